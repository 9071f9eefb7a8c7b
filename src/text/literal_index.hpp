// LiteralIndex: an Aho–Corasick automaton over the prefilter literals of many signals, matched
// ASCII-case-insensitively in one pass over a line. Private to the text module.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::text {

/// Immutable after construction; all methods are const and thread-safe.
class LiteralIndex {
 public:
  /// `sets[i]` are the literals of owner i (any one present makes i a candidate). Literals are
  /// compared as given (spaces included: a parser's hand-written lists come trimmed,
  /// hand_written_literal) with ASCII case folding; an empty literal is ignored (the caller
  /// treats an owner without usable literals as always a candidate).
  explicit LiteralIndex(const std::vector<std::vector<std::string>>& sets);

  /// True when any literal occurs in `text`.
  bool any(std::string_view text) const;
  /// Appends the owners with a literal in `text`, sorted and unique. Does not allocate when
  /// nothing matches (the common case on big logs).
  void owners(std::string_view text, std::vector<std::uint32_t>& out) const;

  /// The offset just past the first literal hit that starts at or after `pos`, or npos: a
  /// block-level scan resumes from the next line's start after each hit (BlockScanner).
  std::size_t next_hit(std::string_view text, std::size_t pos) const;

  std::size_t states() const { return state_count_; }

 private:
  /// Position after the next literal hit from root at or after `pos`, or npos; `state` is the
  /// state offset reached (with kOutput set).
  std::size_t scan(std::string_view text, std::size_t pos, std::uint32_t& state) const;

  static constexpr std::uint32_t kOutput = 0x80000000u;  ///< set on transitions into a state with owners
  /// Folded byte pairs that begin some literal: in the root state a position whose pair is not
  /// here cannot start a match, so the scan skips it without walking the automaton.
  std::vector<std::uint64_t> start_pairs_ = std::vector<std::uint64_t>(65536 / 64, 0);
  bool has_short_ = false;  ///< a one-byte literal exists: no pair skipping
  std::array<std::uint8_t, 256> fold_{};
  std::array<std::uint8_t, 256> byte_class_{};
  std::uint32_t classes_ = 1;
  std::size_t state_count_ = 1;
  /// delta_[state_offset + class] = next state's offset (state * classes_) | kOutput if it has owners.
  std::vector<std::uint32_t> delta_;
  /// Owners per state, CSR: owners_[owner_begin_[s] .. owner_begin_[s + 1]).
  std::vector<std::uint32_t> owner_begin_;
  std::vector<std::uint32_t> owners_;
};

/// ASCII lower-casing (bytes >= 0x80 unchanged).
std::string ascii_lower(std::string_view s);

/// Everything RE2's prefilter (FilteredRE2 atoms) says a line that `regex` matches holds, as
/// clauses, each of which such a line holds one atom of (ASCII case-insensitively): `literals`,
/// the minimal set the index looks for, longest atoms kept (empty when no set is known to be
/// safe: the signal must then always be tried), and up to kMaxClauses others. A candidate line
/// that misses a clause cannot match, so its regex is neither compiled nor run for it.
struct DerivedPrefilter {
  std::vector<std::string> literals;
  std::vector<std::vector<std::string>> clauses;
};
inline constexpr std::size_t kMaxClauses = 6;
DerivedPrefilter derive_prefilter(std::string_view regex);

}  // namespace culprit::text
