// Build-time tool: loads the built-in rules (rules/**/*.toml, embedded) through the TOML path
// exactly as a run on them alone used to (load_rules with SampleCheck::skip, no query checker)
// and writes the result's compact form (src/rules/compact.hpp) as a C++ source, so that start-up
// decodes it instead of parsing ~230 KB of TOML and re-validating every rule.
//
// Usage: culprit_rules_compact_gen OUT.cpp
// Fails (and writes nothing) when the built-in rules have an error: the binary would refuse to run
// on them anyway, and `culprit rules check` says the same at file:line:column.
#include <cstdio>
#include <fstream>
#include <string>

#include "culprit/rules/loader.hpp"
#include "rules/compact.hpp"
#include "tools/cpp_literal.hpp"


int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUT.cpp\n", argv[0]);
    return 2;
  }
  using namespace culprit;
  const rules::LoadResult loaded = rules::load_rules(rules::builtin_rules(), {}, rules::SampleCheck::skip);
  if (!loaded.ok()) {
    for (const auto& p : loaded.problems) std::fprintf(stderr, "%s\n", p.to_string().c_str());
    std::fprintf(stderr, "%s: the built-in rules have errors; see `culprit rules check`\n", argv[0]);
    return 1;
  }
  const std::string bytes = rules::detail::encode_load_result(loaded);
  return culprit::tools::write_bytes_source(argv[0], argv[1], "rules/**/*.toml", "\"rules/compact.hpp\"",
                                            "culprit::rules::detail", "builtin_compact", bytes);
}
