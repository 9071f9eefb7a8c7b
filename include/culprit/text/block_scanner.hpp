// BlockScanner: one multi-literal pass over a whole block of text (a big log, not a line at a
// time), telling which lines hold a literal; line boundaries are looked for only around hits, so
// routine lines are never split for it. The literal prefilter's contract holds: literals compare
// ASCII-case-insensitively and as given, spaces included (as the per-line prefilter compares
// them), so a line holds a hit here exactly when the per-line check (LiteralSet /
// SignalSet::candidate) says yes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/text/lines.hpp"

namespace culprit::text {

/// A Hyperscan database the build compiled and serialised for a literal list it knew (the
/// built-in rules' signal literals with each parser's markers, the format table's anchors): a
/// scanner over exactly that list deserialises it (~0.03 ms) instead of compiling (~6-15 ms), so
/// it scans every block from the first, however short. `literals` is the list's key().
struct PrebuiltDatabase {
  std::string_view literals;
  std::string_view database;
};

/// A literal list with an id per literal (empty ids: 0 for each), as a scanner is built from it.
struct LiteralList {
  std::vector<std::string> literals;
  std::vector<std::uint32_t> ids;
};

/// Immutable after construction; hit_lines() is const and thread-safe.
class BlockScanner {
 public:
  /// `literals` as LiteralSet takes them. Check usable(): an empty literal (every line) or one
  /// holding a line terminator (a hit could span two lines) leaves the scanner unusable.
  /// Which matcher: `automatic` (Hyperscan from the start where the build prebuilt this list's
  /// database, else none until a compile pays, then Hyperscan), or either one from the start
  /// (the tests compare both; `hyperscan` is the automaton where the build lacks it).
  enum class Engine { automatic, automaton, hyperscan };
  /// An `automatic` scanner without a prebuilt database declines blocks shorter than this (the
  /// per-line checks are as cheap there) and compiles once kCompileAfterBytes of longer ones were
  /// offered: a ~300-literal set compiles in 6-15 ms and the pass saves ~2 ms per MB of per-line
  /// checks (measured on the bench corpus), so it pays from a few MB on.
  static constexpr std::size_t kMinBlockBytes = std::size_t{256} << 10;
  static constexpr std::size_t kCompileAfterBytes = std::size_t{8} << 20;
  /// `ids`: one per literal, what literal_ids() reports for it (empty: 0 for every literal).
  explicit BlockScanner(const std::vector<std::string>& literals, Engine engine = Engine::automatic,
                        std::size_t compile_after = kCompileAfterBytes, std::vector<std::uint32_t> ids = {});
  ~BlockScanner();
  BlockScanner(const BlockScanner&) = delete;
  BlockScanner& operator=(const BlockScanner&) = delete;

  bool usable() const { return usable_; }
  /// True when hit_lines() scans any block now (a database is ready, or the automaton was asked
  /// for); false while an `automatic` scanner still waits for enough text to compile.
  bool ready() const;

  /// Appends, in increasing order, one offset per line of `block` that holds a literal: the end
  /// (one past the last byte) of a hit in it. Lines end at \n and \r, as text::split_lines has
  /// them, so a caller walking its lines tells a line [begin, end) holds a hit by an offset in
  /// (begin, end]. False (nothing appended) when the scanner declines: not usable, or
  /// `automatic` while a block scan would not repay its cost; the caller's per-line checks run.
  bool hit_lines(std::string_view block, std::vector<std::size_t>& ends) const;

  /// A line that holds a hit, for hit_line_ids(): the end of its first hit (as hit_lines()
  /// gives it) and the OR of the ids of all its hits.
  struct LineIds {
    std::size_t end = 0;
    std::uint32_t ids = 0;
  };
  /// hit_lines() with the OR of the ids of every hit in each line: for a list whose ids are bits
  /// naming the lists a literal belongs to, one pass tells each list's lines. Hyperscan only:
  /// false (nothing appended) where no database is ready, as for literal_ids(). `rare`: the
  /// block's census, where one was taken (its `\r`).
  bool hit_line_ids(std::string_view block, std::vector<LineIds>& out, const RareBytes& rare = RareBytes::all()) const {
    return hit_line_ids(block, out, rare, nullptr, 0);
  }
  /// One hit of a literal: the end of its bytes in the block (one past the last) and its id.
  struct Hit {
    std::uint32_t end = 0;
    std::uint32_t id = 0;
  };
  /// hit_line_ids() that also fills `hits` (emptied first) with every hit, in order of their
  /// end, while they number at most `max_hits`; past that, `hits` is left empty (the caller then
  /// reads the lines as it would without them).
  bool hit_line_ids(std::string_view block, std::vector<LineIds>& out, const RareBytes& rare,
                    std::vector<Hit>* hits, std::size_t max_hits) const;

  /// Appends the ids of the literals `line` holds (one Hyperscan scan of the line), sorted and
  /// unique. False (nothing appended) where no database is ready: the caller's own automaton
  /// answers instead. For a few lines (a block scan's hits), not for every line of a block.
  bool literal_ids(std::string_view line, std::vector<std::uint32_t>& out) const;

  /// "hyperscan" when the build found libhs (the SIMD matcher), else "aho-corasick" (the
  /// prefilter's own automaton, which `automatic` never runs over blocks: it is no faster there
  /// than the per-line checks).
  static std::string_view engine();

  /// True when the environment has CULPRIT_BLOCK_SCAN=always: every `automatic` scanner is built
  /// as a `hyperscan` one (the automaton where the build lacks it), so it scans every block,
  /// however short. For the equivalence test, so the block path is compared on every fixture and
  /// real case whether or not a database was prebuilt for it; read once.
  static bool forced();

  /// The key of a literal list in the prebuilt table: its literals, one per line, each followed
  /// by its id where `ids` are given.
  static std::string key(const std::vector<std::string>& literals, const std::vector<std::uint32_t>& ids = {});
  /// The serialised database for `literals` and their `ids` (for the build's generator:
  /// portable, no CPU feature beyond the baseline assumed); empty where the build has no
  /// Hyperscan, the list is not usable or the compile fails.
  static std::string serialize(const std::vector<std::string>& literals, const std::vector<std::uint32_t>& ids = {});
  /// Makes `table` (the build's prebuilt databases, static storage) the one scanners built from
  /// now on look their list up in. Call before scanning; a later call replaces it.
  static void install_prebuilt(const PrebuiltDatabase* table, std::size_t count);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  bool usable_ = false;
  std::size_t compile_after_ = kCompileAfterBytes;
};

}  // namespace culprit::text
