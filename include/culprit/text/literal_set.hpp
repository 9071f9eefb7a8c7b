// LiteralSet: "does this line contain any of these words?" in one pass, for the hot per-line
// checks of the parsers (a fast path's markers, a block's anchors) that used to call find() once
// per word. Matching folds ASCII case, so it may answer yes where an exact find() would not: use
// it to rule lines out, then check exactly.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::text {

class LiteralIndex;

/// A hand-written literal of the parsers' own lists (a parser's markers, the format table's
/// anchors) as the prefilter looks for it: without surrounding spaces when three bytes or more
/// remain, so the marker `process ` finds `process` (a substring of a required literal is
/// required too).
/// A rule's literals are not read through it: those it declares are looked for as written and
/// those derived from its pattern (text::derive_prefilter) keep the spaces the pattern requires,
/// so ` scheduler ` is not found in every `[scheduler.py:84]` line, nor `second ` in `seconds`.
/// LiteralSet, BlockScanner and the signal set's index compare literals as given.
std::string hand_written_literal(std::string_view literal);

/// hand_written_literal of each.
std::vector<std::string> hand_written_literals(const std::vector<std::string>& literals);

/// Immutable after construction; any() is const and thread-safe (parsers keep one as a
/// function-local static).
class LiteralSet {
 public:
  /// Literals match anywhere in a line, as given, spaces included (a hand-written list passes
  /// through hand_written_literal where it is defined; a one-byte literal makes every scan walk
  /// each byte); an empty literal matches every line.
  explicit LiteralSet(const std::vector<std::string>& literals);
  ~LiteralSet();

  /// True when `line` holds one of the literals (ASCII case folded).
  bool any(std::string_view line) const;

 private:
  std::unique_ptr<const LiteralIndex> index_;
  bool always_ = false;
};

}  // namespace culprit::text
