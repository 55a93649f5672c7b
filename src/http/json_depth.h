// How deeply a JSON text nests, checked on the bytes before any parser
// builds anything from them: a 32 MiB body of '[' costs a parser hundreds of
// megabytes, this scan nothing. Used by the gateway on every JSON body.
#pragma once

#include <string_view>

namespace zest::http {

// Whether `text` nests arrays/objects deeper than `max_depth` (strings and
// their escapes are skipped). Linear and allocation-free; not a validator.
bool JsonDeeperThan(std::string_view text, int max_depth);

}  // namespace zest::http
