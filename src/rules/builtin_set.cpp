// load_builtin_rules: the built-in rule set from the compact form the build generated
// (culprit_rules_compact.cpp, by src/tools/rules_compact_gen.cpp). Kept apart from the TOML path's
// files because the generator links those and must not need its own output.
#include "compact.hpp"

namespace culprit::rules {

LoadResult load_builtin_rules() {
  if (auto decoded = detail::decode_load_result(detail::builtin_compact())) return std::move(*decoded);
  // Not reached with a blob this build generated; the TOML path is the same rules, only slower.
  return load_rules(builtin_rules(), {}, SampleCheck::skip);
}

}  // namespace culprit::rules
