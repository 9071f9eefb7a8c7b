// Spelling distance for "did you mean" hints: a mistyped subcommand, rule key or event kind.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::text {

/// Optimal string alignment distance: insertions, deletions, substitutions and a swap of two
/// neighbours (`scna` -> `scan`) each cost one.
std::size_t edit_distance(std::string_view a, std::string_view b);

/// The candidate nearest `word` when it is a likely typo of it: one edit, or two for candidates
/// of five letters or more (short words are too near each other); the first such on a tie.
/// Nothing when no candidate is near (or `word` is one of them).
std::optional<std::string> near_word(std::string_view word, const std::vector<std::string>& candidates);

}  // namespace culprit::text
