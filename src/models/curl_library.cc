#include "models/curl_library.h"

#include <dlfcn.h>

#include <mutex>

namespace zest::curl {
namespace {

constexpr const char* kSoname = "libcurl.so.4";

struct Library {
  Status status = Status::Ok();
  CURL* (*easy_init)() = nullptr;
  void (*easy_cleanup)(CURL*) = nullptr;
  CURLcode (*easy_perform)(CURL*) = nullptr;
  const char* (*easy_strerror)(CURLcode) = nullptr;
  internal::SetoptFn easy_setopt = nullptr;
  internal::GetinfoFn easy_getinfo = nullptr;
  curl_slist* (*slist_append)(curl_slist*, const char*) = nullptr;
  void (*slist_free_all)(curl_slist*) = nullptr;
  char* (*easy_escape)(CURL*, const char*, int) = nullptr;
  void (*free)(void*) = nullptr;
};

template <typename Fn>
bool Bind(void* handle, const char* name, Fn* fn) {
  *fn = reinterpret_cast<Fn>(dlsym(handle, name));
  return *fn != nullptr;
}

Library LoadLibrary() {
  Library lib;
  // Never closed: loaded once for the life of the process.
  void* handle = dlopen(kSoname, RTLD_NOW | RTLD_LOCAL);
  if (handle == nullptr) {
    const char* why = dlerror();
    lib.status = Unavailable(std::string("cannot load ") + kSoname +
                             " (install libcurl4): " + (why != nullptr ? why : "unknown error"));
    return lib;
  }
  bool ok = Bind(handle, "curl_easy_init", &lib.easy_init) &&
            Bind(handle, "curl_easy_cleanup", &lib.easy_cleanup) &&
            Bind(handle, "curl_easy_perform", &lib.easy_perform) &&
            Bind(handle, "curl_easy_strerror", &lib.easy_strerror) &&
            Bind(handle, "curl_easy_setopt", &lib.easy_setopt) &&
            Bind(handle, "curl_easy_getinfo", &lib.easy_getinfo) &&
            Bind(handle, "curl_slist_append", &lib.slist_append) &&
            Bind(handle, "curl_slist_free_all", &lib.slist_free_all) &&
            Bind(handle, "curl_easy_escape", &lib.easy_escape) &&
            Bind(handle, "curl_free", &lib.free);
  if (!ok) lib.status = Unavailable(std::string(kSoname) + " lacks a function zest needs");
  return lib;
}

const Library& Lib() {
  static const Library kLibrary = LoadLibrary();  // thread-safe once
  return kLibrary;
}

}  // namespace

Status Load() { return Lib().status; }

CURL* EasyInit() { return Lib().status.ok() ? Lib().easy_init() : nullptr; }
void EasyCleanup(CURL* curl) { Lib().easy_cleanup(curl); }
CURLcode EasyPerform(CURL* curl) { return Lib().easy_perform(curl); }
const char* EasyStrerror(CURLcode code) { return Lib().easy_strerror(code); }
curl_slist* SlistAppend(curl_slist* list, const char* text) {
  return Lib().slist_append(list, text);
}
void SlistFreeAll(curl_slist* list) { Lib().slist_free_all(list); }

std::string Escape(const std::string& text) {
  if (!Lib().status.ok()) return text;
  char* escaped = Lib().easy_escape(nullptr, text.c_str(), static_cast<int>(text.size()));
  std::string out = escaped != nullptr ? escaped : text;
  Lib().free(escaped);
  return out;
}

namespace internal {
SetoptFn Setopt() { return Lib().easy_setopt; }
GetinfoFn Getinfo() { return Lib().easy_getinfo; }
}  // namespace internal

}  // namespace zest::curl
