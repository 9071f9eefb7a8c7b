// libarchive opened on first use (src/input/archive_library.*): every function resolves from the
// real library, and one that cannot be opened, or lacks a function, is an error that says what to
// install (the message a reader gives as its diagnostic). That a paste never opens it is
// tests/cli/lazy_libarchive.sh, on the shipped binary.
#include <catch2/catch.hpp>

#include <string>

#include "input/archive_library.hpp"

namespace la = culprit::input::archive_library;

TEST_CASE("archive_library: the real library gives every function", "[input][archive]") {
  const la::Functions* functions = la::get();
  REQUIRE(functions != nullptr);
  CHECK(la::error().empty());
  CHECK(std::string(functions->archive_version_string()).rfind("libarchive ", 0) == 0);
  CHECK(functions->archive_write_add_filter_zstd != nullptr);  // the last added (3.3.3)
  CHECK(la::get() == functions);  // opened once
}

TEST_CASE("archive_library: a missing library is an error naming it and what to install", "[input][archive]") {
  const la::Library missing = la::open("libculprit-no-such-archive.so.0");
  CHECK(missing.functions == nullptr);
  CHECK_THAT(missing.error, Catch::Contains("cannot load libculprit-no-such-archive.so.0") &&
                                Catch::Contains("install libarchive"));
}

TEST_CASE("archive_library: a library without the functions is an error naming the first missing", "[input][archive]") {
  // libc opens, but has no archive_version_string.
  const la::Library wrong = la::open("libc.so.6");
  CHECK(wrong.functions == nullptr);
  CHECK_THAT(wrong.error, Catch::Contains("libc.so.6 has no archive_version_string"));
}
