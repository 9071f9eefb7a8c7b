// The version listing (version.hpp).
#include "cli/version.hpp"

#include <sqlite3.h>
#include <toml++/impl/version.h>

#include <boost/version.hpp>
#include <fmt/format.h>
#include <simdjson.h>

#ifdef CULPRIT_HAVE_HYPERSCAN
#include <hs/hs.h>
#endif

#include "input/archive_library.hpp"

namespace culprit::cli {

std::string version_text() {
  std::string out = fmt::format("culprit {}\n", CULPRIT_VERSION);
  out += fmt::format("RE2 {}\n", CULPRIT_RE2_VERSION);
  out += fmt::format("SQLite {}\n", sqlite3_libversion());
  out += fmt::format("simdjson {}.{}.{}\n", static_cast<int>(simdjson::SIMDJSON_VERSION_MAJOR),
                     static_cast<int>(simdjson::SIMDJSON_VERSION_MINOR),
                     static_cast<int>(simdjson::SIMDJSON_VERSION_REVISION));
  out += fmt::format("fmt {}.{}.{}\n", FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100);
  out += fmt::format("Boost {}.{}.{}\n", BOOST_VERSION / 100000, BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100);
  // "libarchive 3.6.2": the library's own name and version. Opened here (a paste never opens
  // it), so this names the library culprit would read archives with, or says why there is none.
  namespace la = input::archive_library;
  if (const la::Functions* functions = la::get()) out += fmt::format("{}\n", functions->archive_version_string());
  else out += fmt::format("libarchive: {}\n", la::error());
  out += fmt::format("toml++ {}.{}.{}\n", TOML_LIB_MAJOR, TOML_LIB_MINOR, TOML_LIB_PATCH);
#ifdef CULPRIT_HAVE_HYPERSCAN
  out += fmt::format("Hyperscan {}\n", hs_version());
#endif
  return out;
}

}  // namespace culprit::cli
