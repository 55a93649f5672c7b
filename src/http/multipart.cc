#include "http/multipart.h"

#include <algorithm>
#include <cctype>

#include "core/random_hex.h"

namespace zest::http {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// The value of `key` among a header's `; key=value` parameters (quoted or
// not), or nullopt.
std::optional<std::string> Parameter(std::string_view header, std::string_view key) {
  std::size_t pos = header.find(';');
  while (pos != std::string_view::npos) {
    std::string_view rest = header.substr(pos + 1);
    std::size_t end = std::string_view::npos;
    std::string_view item = Trim(rest);
    std::size_t eq = item.find('=');
    if (eq != std::string_view::npos && Lower(Trim(item.substr(0, eq))) == key) {
      std::string_view value = item.substr(eq + 1);
      if (!value.empty() && value.front() == '"') {
        std::string out;
        for (std::size_t i = 1; i < value.size() && value[i] != '"'; ++i) {
          if (value[i] == '\\' && i + 1 < value.size()) ++i;
          out.push_back(value[i]);
        }
        return out;
      }
      end = value.find(';');
      return std::string(Trim(value.substr(0, end)));
    }
    pos = header.find(';', pos + 1);
  }
  return std::nullopt;
}

// A part's headers (up to the blank line) into `part`.
Status ParseHeaders(std::string_view headers, FormPart& part) {
  bool named = false;
  while (!headers.empty()) {
    std::size_t eol = headers.find("\r\n");
    std::string_view line = headers.substr(0, eol);
    headers = eol == std::string_view::npos ? std::string_view() : headers.substr(eol + 2);
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string key = Lower(Trim(line.substr(0, colon)));
    std::string_view value = Trim(line.substr(colon + 1));
    if (key == "content-disposition") {
      if (Lower(value.substr(0, value.find(';'))) != "form-data") {
        return InvalidArgument("a form part is not form-data");
      }
      if (auto name = Parameter(value, "name")) {
        part.name = *name;
        named = true;
      }
      if (auto filename = Parameter(value, "filename")) part.filename = *filename;
    } else if (key == "content-type") {
      part.content_type = std::string(value);
    }
  }
  if (!named) return InvalidArgument("a form part has no name");
  return Status::Ok();
}

}  // namespace

Result<std::string> FormBoundary(std::string_view content_type) {
  if (Lower(Trim(content_type.substr(0, content_type.find(';')))) != "multipart/form-data") {
    return InvalidArgument("expected a multipart/form-data body (Content-Type: " +
                           std::string(content_type.empty() ? "none" : content_type) + ")");
  }
  auto boundary = Parameter(content_type, "boundary");
  if (!boundary || boundary->empty() || boundary->size() > 70) {
    return InvalidArgument("the multipart/form-data Content-Type has no usable boundary");
  }
  return *boundary;
}

Result<std::vector<FormPart>> ParseForm(std::string_view body, std::string_view boundary,
                                        std::size_t max_parts) {
  const std::string delimiter = "--" + std::string(boundary);
  std::size_t pos = body.find(delimiter);
  if (pos == std::string_view::npos) return InvalidArgument("the form has no boundary line");
  std::vector<FormPart> parts;
  while (true) {
    pos += delimiter.size();
    if (body.substr(pos, 2) == "--") return parts;  // the closing delimiter
    if (body.substr(pos, 2) != "\r\n") return InvalidArgument("a form boundary line is malformed");
    pos += 2;
    std::size_t blank = body.find("\r\n\r\n", pos);
    if (blank == std::string_view::npos) return InvalidArgument("a form part has no body");
    FormPart part;
    // The headers' last line ends at `blank`: give ParseHeaders its CRLF.
    ZEST_RETURN_IF_ERROR(ParseHeaders(body.substr(pos, blank - pos + 2), part));
    std::size_t data = blank + 4;
    std::size_t next = body.find("\r\n" + delimiter, data);
    if (next == std::string_view::npos) return InvalidArgument("the form is not closed");
    part.data = std::string(body.substr(data, next - data));
    if (parts.size() == max_parts) return InvalidArgument("the form has too many parts");
    parts.push_back(std::move(part));
    pos = next + 2;
  }
}

const FormPart* FindPart(const std::vector<FormPart>& parts, std::string_view name) {
  for (const FormPart& part : parts) {
    if (part.name == name) return &part;
  }
  return nullptr;
}

namespace {

// A header value without what could end it: CR, LF, the double quote that
// closes a quoted name and the backslash that escapes one.
std::string HeaderSafe(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c != '\r' && c != '\n' && c != '"' && c != '\\') out += c;
  }
  return out;
}

}  // namespace

std::string NewFormBoundary() { return "zest-" + RandomHex(16); }

Result<std::string> WriteForm(const std::vector<FormPart>& parts, std::string_view boundary) {
  std::string out;
  for (const FormPart& part : parts) {
    if (part.data.find(boundary) != std::string::npos) {
      return InvalidArgument("the form's part '" + HeaderSafe(part.name) +
                             "' holds the form's boundary");
    }
    out += "--";
    out += boundary;
    out += "\r\nContent-Disposition: form-data; name=\"" + HeaderSafe(part.name) + "\"";
    if (!part.filename.empty()) out += "; filename=\"" + HeaderSafe(part.filename) + "\"";
    out += "\r\n";
    if (!part.content_type.empty()) {
      out += "Content-Type: " + HeaderSafe(part.content_type) + "\r\n";
    }
    out += "\r\n";
    out += part.data;
    out += "\r\n";
  }
  out += "--";
  out += boundary;
  out += "--\r\n";
  return out;
}

std::string FormContentType(std::string_view boundary) {
  return "multipart/form-data; boundary=" + std::string(boundary);
}

}  // namespace zest::http
