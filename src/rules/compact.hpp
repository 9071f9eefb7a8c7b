// The compact form of a loaded rule set: what load_rules() produced, as bytes a program reads back
// without parsing TOML. The build turns the shipped rules into it once (src/tools/
// rules_compact_gen.cpp); a run on the built-in rules alone decodes it (load_builtin_rules), so
// start-up neither parses TOML nor re-validates rules that the build already loaded.
// Private to the rules module.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "culprit/rules/loader.hpp"

namespace culprit::rules::detail {

/// Every field of every signal rule (samples included), every diagnosis rule, each compiled
/// signal's prefilter literals with their flags (so decoding derives nothing), and the problems.
std::string encode_load_result(const LoadResult& loaded);

/// The inverse of encode_load_result: the rule set rebuilt (patterns compile on first use, the
/// literal index is built) and the problems. nullopt when the bytes are not a whole, well-formed
/// encoding of this version of the form.
std::optional<LoadResult> decode_load_result(std::string_view bytes);

/// The built-in rules' encoding, generated at build time (culprit_rules_compact.cpp).
std::string_view builtin_compact();

}  // namespace culprit::rules::detail
