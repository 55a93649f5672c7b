// multipart/form-data (RFC 7578): parsing an upload (OpenAI's audio routes
// take the file and the options this way) and writing one (whisper-server
// reads its request this way). Bounds-checked, no copies of the file
// beyond the one part that holds it. Pure.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace zest::http {

struct FormPart {
  std::string name;          // Content-Disposition's name
  std::string filename;      // its filename, when a file; empty otherwise
  std::string content_type;  // the part's Content-Type; empty when not given
  std::string data;
};

// The boundary of a `multipart/form-data; boundary=...` Content-Type;
// kInvalidArgument when the type is another or has no boundary.
Result<std::string> FormBoundary(std::string_view content_type);

// The parts of `body`; kInvalidArgument naming what is malformed (no
// closing boundary, a part without a name, more than `max_parts`).
Result<std::vector<FormPart>> ParseForm(std::string_view body, std::string_view boundary,
                                        std::size_t max_parts = 64);

// The first part named `name`, or null.
const FormPart* FindPart(const std::vector<FormPart>& parts, std::string_view name);

// A fresh boundary for a form zest writes ("zest-" and 32 random hex
// digits): parts hold a client's bytes, and with a boundary they could
// guess (a constant, once) an upload could close its part and add fields of
// its own to the engine's form (issue 52, 6).
std::string NewFormBoundary();

// A body of `parts` with `boundary`, and its Content-Type. Names, filenames
// and content types lose CR, LF, double quotes and backslashes (a header line or a
// quoted name could otherwise be ended early); a part whose data holds the
// boundary is refused (kInvalidArgument), never written.
Result<std::string> WriteForm(const std::vector<FormPart>& parts, std::string_view boundary);
std::string FormContentType(std::string_view boundary);

}  // namespace zest::http
