// libarchive opened with dlopen on first use (archive_library.hpp): the table is filled once,
// by a thread-safe static, and the library stays loaded for the process.
#include "input/archive_library.hpp"

#include <dlfcn.h>

#include <fmt/format.h>

namespace culprit::input::archive_library {

const char* const kSoname = CULPRIT_LIBARCHIVE_SONAME;

namespace {

std::string dl_error() {
  const char* e = ::dlerror();
  return e ? e : "unknown error";
}

const Library& loaded() {
  static const Library library = open(kSoname);
  return library;
}

}  // namespace

Library open(const char* soname) {
  Library out;
  // RTLD_LOCAL: libarchive's symbols serve only this table, never resolve another library's.
  void* handle = ::dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    out.error = fmt::format("cannot load {}, which reads and writes archives and compressed files ({}); "
                            "install libarchive (Debian: apt-get install libarchive13)",
                            soname, dl_error());
    return out;
  }
  auto functions = std::make_unique<Functions>();
  bool complete = true;
  // dlsym returns void*; POSIX guarantees it converts to a function pointer.
#define CULPRIT_LIBARCHIVE_LOOKUP(name)                                                             \
  if (complete) {                                                                                   \
    functions->name = reinterpret_cast<decltype(&::name)>(::dlsym(handle, #name));                  \
    if (!functions->name) {                                                                         \
      out.error = fmt::format("{} has no {} ({}); install libarchive 3.3.3 or newer", soname, #name, \
                              dl_error());                                                          \
      complete = false;                                                                             \
    }                                                                                               \
  }
  CULPRIT_LIBARCHIVE_FUNCTIONS(CULPRIT_LIBARCHIVE_LOOKUP)
#undef CULPRIT_LIBARCHIVE_LOOKUP
  if (complete) out.functions = std::move(functions);
  else ::dlclose(handle);
  return out;
}

const Functions* get() { return loaded().functions.get(); }

const std::string& error() { return loaded().error; }

std::string error_text(const Functions& la, archive* a) {
  const char* s = la.archive_error_string(a);
  return s && *s ? s : "unknown error";
}

const Inflate* inflate() {
  static const Inflate* const found = []() -> const Inflate* {
    void* handle = ::dlopen("libz.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!handle) return nullptr;
    static Inflate z;
    // dlsym returns void*; POSIX guarantees it converts to a function pointer.
    z.init = reinterpret_cast<decltype(&::inflateInit2_)>(::dlsym(handle, "inflateInit2_"));
    z.inflate = reinterpret_cast<decltype(&::inflate)>(::dlsym(handle, "inflate"));
    z.end = reinterpret_cast<decltype(&::inflateEnd)>(::dlsym(handle, "inflateEnd"));
    return z.init && z.inflate && z.end ? &z : nullptr;
  }();
  return found;
}

}  // namespace culprit::input::archive_library
