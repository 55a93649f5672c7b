// Fuzzes what zest reads of a client's media before any decoder sees it
// (issue 52): the image header probe (api/request/image_probe: format and
// declared size, which the pixel limit trusts) and the multipart form
// parser with the writer that builds whisper-server's form from its parts
// (http/multipart: what it writes must parse back to the same parts, or a
// part could have added fields of its own).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "api/request/image_probe.h"
#include "http/multipart.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  const zest::api::ImageHeader header = zest::api::ProbeImage(bytes);
  (void)header.Pixels();
  (void)header.Mime();

  auto parts = zest::http::ParseForm(bytes, "b");
  if (!parts.ok()) return 0;
  const std::string boundary = zest::http::NewFormBoundary();
  auto written = zest::http::WriteForm(*parts, boundary);
  if (!written.ok()) return 0;
  auto back = zest::http::ParseForm(*written, boundary);
  if (!back.ok() || back->size() != parts->size()) std::abort();
  for (std::size_t i = 0; i < back->size(); ++i) {
    if ((*back)[i].data != (*parts)[i].data) std::abort();
  }
  return 0;
}
