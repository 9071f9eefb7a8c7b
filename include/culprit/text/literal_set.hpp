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

/// Immutable after construction; any() is const and thread-safe (parsers keep one as a
/// function-local static).
class LiteralSet {
 public:
  /// Literals match anywhere in a line (surrounding spaces of a literal are ignored when three
  /// bytes remain; a one-byte literal makes every scan walk each byte); an empty literal matches
  /// every line.
  explicit LiteralSet(const std::vector<std::string>& literals);
  ~LiteralSet();

  /// True when `line` holds one of the literals (ASCII case folded).
  bool any(std::string_view line) const;

 private:
  std::unique_ptr<const LiteralIndex> index_;
  bool always_ = false;
};

}  // namespace culprit::text
