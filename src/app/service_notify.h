// NotifyService: systemd's readiness protocol (sd_notify(3)) for a unit of
// Type=notify, written by hand rather than linking libsystemd: one datagram
// of "KEY=value" lines to the UNIX socket systemd names in $NOTIFY_SOCKET
// (a path, or an abstract name written with a leading '@'). zest says
// READY=1 once it listens, RELOADING=1 and READY=1 around a SIGHUP's
// reload, STOPPING=1 when it starts to drain, and STATUS= with them, so
// `systemctl start` returns only when zest answers and `systemctl status`
// says what it does. Without $NOTIFY_SOCKET (not under systemd) it does
// nothing. Engines never inherit $NOTIFY_SOCKET (engines/process.cc), so
// none can speak for zest. Thread-safe.
#pragma once

#include <string_view>

namespace zest::app {

// Sends `state` ("READY=1\nSTATUS=..."); false when there is no socket or
// the datagram could not be sent (then systemd times the start out, which
// is the right outcome for a service that cannot say it is up).
bool NotifyService(std::string_view state);

// "RELOADING=1\nMONOTONIC_USEC=<now>": systemd (v253+) matches the reload
// to the time; older ones ignore the field.
bool NotifyReloading();

}  // namespace zest::app
