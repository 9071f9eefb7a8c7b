// The block scanners' Hyperscan databases the build compiled for the built-in rules (defined in
// the generated culprit_literal_databases.cpp, by src/tools/literal_databases_gen.cpp).
#pragma once

namespace culprit::api {

/// Hands the build's prebuilt databases to text::BlockScanner; load_rule_set() calls it, so
/// every run through the API (the CLI, the Python module) scans with them. Idempotent.
void install_prebuilt_databases();

}  // namespace culprit::api
