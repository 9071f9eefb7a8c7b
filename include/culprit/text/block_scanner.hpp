// BlockScanner: one multi-literal pass over a whole block of text (a big log, not a line at a
// time), telling which lines hold a literal; line boundaries are looked for only around hits, so
// routine lines are never split for it. The literal prefilter's contract holds: literals compare
// ASCII-case-insensitively and are trimmed as the per-line prefilter trims them, so a line holds
// a hit here exactly when the per-line check (LiteralSet / SignalSet::candidate) says yes.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::text {

/// Immutable after construction; hit_lines() is const and thread-safe.
class BlockScanner {
 public:
  /// `literals` as LiteralSet takes them. Check usable(): an empty literal (every line) or one
  /// holding a line terminator (a hit could span two lines) leaves the scanner unusable.
  /// Which matcher: `automatic` (none until Hyperscan pays, then Hyperscan), or either one from
  /// the start (the tests compare both; `hyperscan` is the automaton where the build lacks it).
  enum class Engine { automatic, automaton, hyperscan };
  /// `automatic` compiles Hyperscan once this many bytes were offered (kCompileAfterBytes: the
  /// break-even of a ~300-literal set; a smaller set compiles faster and may pass a smaller one).
  static constexpr std::size_t kCompileAfterBytes = std::size_t{64} << 20;
  explicit BlockScanner(const std::vector<std::string>& literals, Engine engine = Engine::automatic,
                        std::size_t compile_after = kCompileAfterBytes);
  ~BlockScanner();
  BlockScanner(const BlockScanner&) = delete;
  BlockScanner& operator=(const BlockScanner&) = delete;

  bool usable() const { return usable_; }

  /// Appends, in increasing order, one offset per line of `block` that holds a literal: the end
  /// (one past the last byte) of a hit in it. Lines end at \n and \r, as text::split_lines has
  /// them, so a caller walking its lines tells a line [begin, end) holds a hit by an offset in
  /// (begin, end]. False (nothing appended) when the scanner declines: not usable, or
  /// `automatic` while a block scan would not repay its cost; the caller's per-line checks run.
  bool hit_lines(std::string_view block, std::vector<std::size_t>& ends) const;

  /// "hyperscan" when the build found libhs (the SIMD matcher; `automatic` compiles it once 64 MiB
  /// were offered, since its compile costs more than it saves on less), else "aho-corasick" (the
  /// prefilter's own automaton, which `automatic` never runs over blocks: it is no faster there
  /// than the per-line checks).
  static std::string_view engine();

  /// True when the environment has CULPRIT_BLOCK_SCAN=always: parsers block-scan every segment,
  /// however short, and signal sets build `hyperscan` scanners (the automaton where the build
  /// lacks it). For the equivalence test, so the block path is compared on every fixture and real
  /// case, not only on logs big enough to take it; read once.
  static bool forced();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool usable_ = false;
  std::size_t compile_after_ = kCompileAfterBytes;
};

}  // namespace culprit::text
