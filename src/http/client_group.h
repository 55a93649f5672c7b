// ClientGroup: the unit that per-client limits count by (open connections,
// streams, wrong keys). An address is a poor unit where one machine holds
// many: every address in 127.0.0.0/8 (and ::1) is this machine, so a local
// process that connects from 127.0.0.2 and 127.0.0.3 doubled its share and
// locked 127.0.0.1 out (issue 52, MEDIUM 7); and an IPv6 host is given a
// /64 to pick addresses from. So loopback is one group, an IPv6 address
// counts as its /64, an IPv4 one (also written ::ffff:a.b.c.d) as itself.
// Pure.
#pragma once

#include <string>
#include <string_view>

namespace zest::http {

// "loopback" for 127.0.0.0/8 and ::1; "2001:db8:1:2::/64" for an IPv6
// address; an IPv4 address as it is; anything else as it came.
std::string ClientGroup(std::string_view address);

}  // namespace zest::http
