// What an API key's scope lets a request ask for, in every API (OpenAI's,
// and the others as they come). An inference key's priority is a ceiling:
// a request may ask for less, never more (asking more is capped to it, not
// refused, so a client that always sends `X-Priority: high` still works).
// Its `keep_alive` is capped at the server's `security.max_keep_alive`, so
// it cannot pin a model in memory ("-1") for everyone else. Admin keys, and
// servers without keys, get what they ask for. Pure.
#pragma once

#include <optional>
#include <string_view>

#include "core/duration.h"
#include "core/result.h"
#include "http/request.h"
#include "scheduler/queue_discipline.h"

namespace zest::api {

// The queue priority of `request`: `asked` (the X-Priority header, else the
// body's field; empty = none), else its key's; for an inference key never
// above the key's own (normal when the key has none). kInvalidArgument for
// a priority that is not high, normal or low.
Result<scheduler::Priority> RequestPriority(const http::Request& request, std::string_view asked);

// The keep_alive `request` may set: `asked` as it is, or for an inference
// key at most `max` (forever = nullopt counts as longer than any duration).
std::optional<Duration> AllowedKeepAlive(const http::Request& request,
                                         const std::optional<Duration>& asked, const Duration& max);

}  // namespace zest::api
