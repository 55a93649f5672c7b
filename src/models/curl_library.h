// libcurl, loaded (dlopen) the first time zest makes an HTTP request of its
// own (a pull; the CLI's calls to the server) instead of when it starts.
// Linked the usual way, libcurl brings two dozen libraries with it (GnuTLS,
// Kerberos, LDAP, SSH, nghttp2, ...) whose relocations and constructors
// keep about 3.7 MB resident in a server that may never download anything
// (measured with /proc/PID/smaps: the server's idle RSS went from 15.4 to
// 11.7 MiB; bench/cold_start.mjs). The wrappers mirror the curl_* functions
// zest uses. Thread-safe.
#pragma once

#include <curl/curl.h>

#include <string>

#include "core/result.h"

namespace zest::curl {

// OK once libcurl is loaded; an error naming the library when it cannot be
// (the libcurl4 package is missing).
Status Load();

// Each as its curl_* namesake. With libcurl missing, EasyInit returns null
// (callers already treat that as a failure; Load says why) and the others
// must not be called.
CURL* EasyInit();
void EasyCleanup(CURL* curl);
CURLcode EasyPerform(CURL* curl);
const char* EasyStrerror(CURLcode code);
curl_slist* SlistAppend(curl_slist* list, const char* text);
void SlistFreeAll(curl_slist* list);
// curl_easy_escape, as a std::string.
std::string Escape(const std::string& text);

namespace internal {
using SetoptFn = CURLcode (*)(CURL*, CURLoption, ...);
using GetinfoFn = CURLcode (*)(CURL*, CURLINFO, ...);
SetoptFn Setopt();
GetinfoFn Getinfo();
}  // namespace internal

template <typename T>
CURLcode EasySetopt(CURL* curl, CURLoption option, T value) {
  return internal::Setopt()(curl, option, value);
}

template <typename T>
CURLcode EasyGetinfo(CURL* curl, CURLINFO info, T* value) {
  return internal::Getinfo()(curl, info, value);
}

}  // namespace zest::curl
