// `culprit --version`: culprit's version and the versions of the libraries this build uses,
// one per line (`SQLite 3.40.1`), for bug reports. Run-time versions where the library says
// (SQLite, libarchive); else the headers this build was compiled with; RE2, which has no
// version macro, from its package as CMake found it. Hyperscan only when it is linked.
#pragma once

#include <string>

namespace culprit::cli {

std::string version_text();

}  // namespace culprit::cli
