// The format table: one row per format culprit reads — its id, how the sniffer finds it (a
// detector and its score), its parser, whether neighbouring segments merge, and where its
// samples live. The sniffer, parse_segment(), the fuzzers and the tests all iterate it, so a new
// format is one row here (and its parser in src/ingest/formats/).
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/text/lines.hpp"
#include "ingest/formats/kernel_stamp.hpp"

namespace culprit::ingest {

struct ParseContext;

/// The lines of one section of a paste (between two prompts, or a gap between blocks) as the
/// detectors see them: `lines[begin, end)` may be read, nothing outside.
/// The bit of Scan::anchored that marks a line holding an anchor literal.
inline constexpr unsigned char kAnchoredBit = 1;
/// The bit of Scan::anchored that marks a line opening, at its first byte, with a dmesg boot
/// stamp (kernel::starts_with_boot_stamp): most lines of a dmesg. The pass that fills the anchor
/// bits sets it (mark_boot_stamps), so that the sniffer's block rows, its kernel class and the
/// kernel parser, which each ask it of such a line, ask it once. A line without it is asked as
/// before: the bit only ever saves the question.
inline constexpr unsigned char kBootStampBit = 8;
/// The bit of Scan::anchored that marks a line that may hold one of the kernel row's own
/// anchors (its FormatSpec::anchor_bit): set beside kAnchoredBit by a pass that tells which
/// literal it found, and with it wherever a pass cannot tell. A line holding only another row's
/// anchor (a vLLM line's `total`) is then asked the kernel row's shape check, as a line holding
/// none is, not its full reading (5k instructions a line on a log where a line in ten holds one).
inline constexpr unsigned char kKernelAnchorBit = 32;
/// The bit of Scan::anchored that marks a line opening with `[` but no boot stamp: the pass that
/// sets kBootStampBit asked it too (mark_boot_stamps), so the question is not asked again.
inline constexpr unsigned char kNoBootStampBit = 64;
/// Sets kBootStampBit in `bits[k]` for each line k of `lines` that opens with a boot stamp, and
/// kNoBootStampBit for each other line whose first byte is `[` (`bits` holds one entry per
/// line): of every line it asks, the answer (Scan::boot_stamp). Every pass that fills anchor
/// bits calls it.
void mark_boot_stamps(const std::vector<std::string_view>& lines, std::vector<unsigned char>& bits);
/// What a pass knows of whether a line opens with a boot stamp (Scan::boot_stamp): `unknown`
/// is asked of the line itself.
enum class BootStamp : unsigned char { unknown, no, yes };

struct Scan {
  Scan(const std::vector<std::string_view>& all, std::size_t b, std::size_t e) : lines(all), begin(b), end(e) {}

  const std::vector<std::string_view>& lines;
  std::size_t begin, end;
  /// Per line of `lines`: bit kAnchoredBit set where the line holds one of the table's anchor
  /// literals (FormatSpec::anchors, any row's; found by one block pass over the text; the other
  /// bits are other lists', line_hits.hpp). nullptr: not known, every line may hold one. A line
  /// without one is asked only the `unanchored` checks.
  const std::vector<unsigned char>* anchored = nullptr;
  bool may_anchor(std::size_t i) const { return may_anchor(i, kAnchoredBit); }
  /// Whether line i may hold an anchor of the rows `bit` marks (a FormatSpec::anchor_bit).
  bool may_anchor(std::size_t i, unsigned char bit) const { return anchored == nullptr || ((*anchored)[i] & bit) != 0; }
  /// What the pass knows of line i's boot stamp (kBootStampBit, kNoBootStampBit): it asks every
  /// line opening with `[` (mark_boot_stamps). An SGLang log's every line opens so and was asked
  /// it three times (the pass, the rows to ask, the kernel class).
  BootStamp boot_stamp(std::size_t i) const {
    if (anchored == nullptr) return BootStamp::unknown;
    const unsigned char bits = (*anchored)[i];
    return (bits & kBootStampBit) != 0 ? BootStamp::yes : (bits & kNoBootStampBit) != 0 ? BootStamp::no : BootStamp::unknown;
  }

  /// Memo of the last shape check may_anchor made (FormatSpec::unanchored): rows that share a
  /// shape (the JSON formats) check a line once.
  struct ShapeMemo {
    std::size_t at = static_cast<std::size_t>(-1);
    bool (*shape)(std::string_view) = nullptr;
    bool result = false;
  };
  mutable ShapeMemo shape_memo;

  /// Whether line i holds `pattern` (FormatSpec::unanchored_pattern; `?` any byte). The first
  /// ask of a pattern finds its lines for the whole of [begin, end) in one pass over their text
  /// (text::find_pattern), so a row that needs it is asked only at those lines. `lines` are
  /// split_lines of one text, in order, as everywhere the sniffer reads.
  /// `fits` (FormatSpec::unanchored_pattern_fits): where a match must lie in its line to count
  /// (nullptr: anywhere).
  using PatternFits = bool (*)(std::string_view line, std::size_t at);
  bool holds_pattern(std::string_view pattern, std::size_t i, PatternFits fits = nullptr) const {
    // Inline: asked at every line without an anchor. A row's pattern is its table entry's own
    // string, so its lines are told by the address: the last asked, else among the few asked
    // (two rows ask theirs in turn at each line opening with `[`; each went out to a call).
    const auto is = [&](std::size_t at) {
      return pattern_lines[at].pattern.data() == pattern.data() && pattern_lines[at].fits == fits;
    };
    if (last_pattern >= pattern_lines.size() || !is(last_pattern)) {
      std::size_t at = 0;
      while (at < pattern_lines.size() && !is(at)) ++at;
      last_pattern = at < pattern_lines.size() ? at : pattern_lines_for(pattern, fits);
    }
    return i >= begin && i < end && pattern_lines[last_pattern].holds[i - begin] != 0;
  }
  struct PatternLines {
    std::string_view pattern;
    PatternFits fits = nullptr;
    std::vector<unsigned char> holds;  ///< per line of [begin, end)
  };
  mutable std::vector<PatternLines> pattern_lines;

  /// The index in pattern_lines of `pattern`'s lines (where `fits`), found (one pass) the first time.
  std::size_t pattern_lines_for(std::string_view pattern, PatternFits fits = nullptr) const;
  mutable std::size_t last_pattern = static_cast<std::size_t>(-1);  ///< the pattern asked last

  /// Memo of the JSON value run at line `at` (formats.md's JSON formats share its framing, and
  /// each detector asks for it at the same line).
  struct JsonRun {
    std::size_t at = static_cast<std::size_t>(-1);
    std::size_t end = 0;        ///< exclusive end of the run of JSON values starting at `at`
    bool cut = false;           ///< a value still open at the section's end (a paste cut short)
    std::string_view format;    ///< the JSON format its keys name, '' for other JSON
    /// The value starts the walk from `at` passed (sorted): a run asked at one of them ends
    /// where this one does, so it is not walked again (a cut JSON-lines head was asked at
    /// every line, each walk to the head's end).
    std::vector<std::size_t> starts;
  };
  JsonRun json;
  /// Where each JSON format key was last looked for (format_detect.cpp's json_format over a
  /// window that moves down the text a line at a time: each key is searched once per byte, not
  /// once per window). `from`: the window start of the last search; `found`: the first place
  /// at or after it, else null, when no place from `from` ends before `to`.
  struct KeyCursor {
    const char* from = nullptr;
    const char* found = nullptr;
    const char* to = nullptr;
  };
  std::vector<KeyCursor> json_keys;
};

/// What a detector claims: lines [begin, end). `opaque` claims them for no format: they stay
/// plain text for the line classes, but no anchor inside them counts (a JSON value no JSON
/// format reads, so that it is scanned once). Nothing found: begin == end.
struct Detection {
  std::size_t begin = 0, end = 0;
  bool opaque = false;
  bool found() const { return end > begin; }
};

/// How a format's text is found.
enum class Scope {
  block,     ///< an anchor line opens a block (banner, header, JSON keys); tried at every line first
  line,      ///< a class of lines (kernel stamps): its runs fill the gaps between blocks
  fallback,  ///< what nothing else claims (app_log); exactly one row
};

struct FormatSpec {
  std::string_view id;  ///< stable; stored in sources.format (see format:: in sniff.hpp)
  Scope scope = Scope::block;
  /// How specific the anchor is. Where several detectors claim a line, the highest score wins,
  /// ties going to the earlier row (lnav orders its formats so; the cross-sample test checks
  /// that no detector outscores a format on that format's own samples). Blocks > lines > fallback.
  int score = 0;
  /// block: the block an anchor at `lines[i]` opens (it may start above i, at table lines or a
  /// `watch` header; never before scan.begin). line: the run of this class starting at i.
  /// nullptr for the fallback.
  Detection (*detect)(Scan& scan, std::size_t i) = nullptr;
  /// line scope: whether one line is of this class (ends a fallback run). nullptr otherwise.
  bool (*claims_line)(std::string_view line) = nullptr;
  /// A command typed at a prompt that announces this format for its output, where no anchor can
  /// tell (`nvidia-smi --query-gpu=… --format=csv,noheader`), and the lines of that output.
  bool (*announced_by)(std::string_view command) = nullptr;
  bool (*continues)(std::string_view line) = nullptr;
  void (*parse)(std::string_view text, ParseContext& ctx) = nullptr;
  /// Whether neighbouring segments of this format (same host and command) become one. Snapshots
  /// (one table, one listing each) stay apart; logs merge.
  bool merges = false;
  /// What an anchor line holds (block: a line where `detect` finds a block; line: a line
  /// `claims_line` claims): one of `anchors` (ASCII case aside; a substring of the line), or a
  /// shape no literal tells, which `unanchored` checks cheaply. The sniffer asks `detect` /
  /// `claims_line` only at lines that pass one of them, so both must cover every anchor line
  /// (the anchor-coverage test runs every detector over every sample to check it). Empty
  /// `anchors` and no `unanchored`: the detector runs at every line.
  std::span<const std::string_view> anchors{};
  /// The bit of Scan::anchored that marks this row's own anchors (kKernelAnchorBit), where the
  /// block pass marks them apart; kAnchoredBit (any row's anchor) where it does not.
  unsigned char anchor_bit = kAnchoredBit;
  bool (*unanchored)(std::string_view line) = nullptr;
  /// The bytes a line may start with (its first after leading whitespace, text::trim_left)
  /// where `unanchored` passes: the sniffer asks that row's shape nothing at a line starting
  /// otherwise (shaped_by_rank), so most log lines are asked no shape at all. nullptr: any byte,
  /// and an empty line.
  bool (*unanchored_first)(char first) = nullptr;
  /// A pattern (`?`: any byte) every line `unanchored` passes holds, where one is rare in logs
  /// (a PCI bus id's `:??:??.`): the sniffer finds the lines holding it in one pass over a
  /// section's text (Scan::holds_pattern) and asks `unanchored` only there. Empty: none.
  std::string_view unanchored_pattern{};
  /// Where in its line a match of unanchored_pattern must lie for `unanchored` to pass there
  /// (a bus id's pattern with the cell's bytes around it): the pass marks only such lines, so a
  /// line whose every match is a stamp's `00:47:22.011` is not asked. nullptr: anywhere.
  Scan::PatternFits unanchored_pattern_fits = nullptr;
  /// Sample folders under fixtures/formats/ (lnav's `sample`s): the tests run every detector on them.
  std::array<std::string_view, 3> samples{};
};

/// Every format, in table order.
std::span<const FormatSpec> format_table();
/// The row of a format id; nullptr when none (binary, empty, culprit_report, unknown ids).
const FormatSpec* find_format(std::string_view id);
/// The fallback row (app_log).
const FormatSpec& fallback_format();
/// The rows of one scope by score, highest first, table order on ties: the order detectors are
/// tried in (the first that finds something wins, which is the best-scoring one).
std::span<const FormatSpec* const> formats_by_rank(Scope scope);
/// Whether `f` may anchor at line i of `scan` (see FormatSpec::anchors): the line holds an
/// anchor literal (Scan::anchored), `f` has no anchors declared, or its `unanchored` check says so.
/// Inline: the sniffer asks it of every row at every line.
inline bool may_anchor(const FormatSpec& f, const Scan& scan, std::size_t i) {
  if (scan.may_anchor(i, f.anchor_bit) || (f.anchors.empty() && f.unanchored == nullptr)) return true;
  if (f.unanchored == nullptr) return false;
  if (!f.unanchored_pattern.empty() && !scan.holds_pattern(f.unanchored_pattern, i, f.unanchored_pattern_fits))
    return false;
  Scan::ShapeMemo& memo = scan.shape_memo;
  if (memo.at != i || memo.shape != f.unanchored) memo = {i, f.unanchored, f.unanchored(scan.lines[i])};
  return memo.result;
}
/// One scope's rows that may anchor at a line holding no anchor literal, by the line's first
/// byte after whitespace: a shape check that byte does not rule out (FormatSpec::unanchored_first),
/// or no anchors declared; in formats_by_rank's order.
struct ShapedRows {
  static constexpr std::size_t kEmpty = 256;  ///< by_first's entry for a line of whitespace
  std::array<std::vector<const FormatSpec*>, 257> by_first;
  /// Whether a line opening with a kernel boot stamp (`[ 1478.687080] `, after whitespace) is
  /// asked nothing: the block scope's, since no block's shape opens so (such a line is kernel
  /// text; the format-table test holds every row's shape to it). Most lines of a dmesg are.
  bool stamped_asked_nothing = false;
  /// The rows to ask at `line`: all a detector loop need ask there. `stamp`: what a pass knows
  /// of the line's boot stamp (Scan::boot_stamp); unknown: asked here.
  /// Inline: asked at every line without an anchor.
  std::span<const FormatSpec* const> at(std::string_view line, BootStamp stamp = BootStamp::unknown) const {
    if (stamped_asked_nothing && stamp == BootStamp::yes) return {};
    const std::string_view t = text::trim_left(line);
    if (t.empty()) return by_first[kEmpty];
    if (stamped_asked_nothing && stamp == BootStamp::unknown && t[0] == '[' && kernel::starts_with_boot_stamp(t))
      return {};
    return by_first[static_cast<unsigned char>(t[0])];
  }
};
/// The ShapedRows of `scope` (built once).
const ShapedRows& shaped_by_rank(Scope scope);
/// Every row's anchor literals, once each, read as hand-written (text::hand_written_literal):
/// what the sniffer's block pass looks for. Not the short ones (short_anchor_literals).
const std::vector<std::string>& anchor_literals();
/// Anchors shorter than kMinPassAnchorBytes (the kernel's old stack frame `[<`): a literal of two
/// bytes sets the stride of Hyperscan's FDR for every literal of its database, which made the
/// input's one pass a quarter slower; mark_short_anchors finds them instead.
inline constexpr std::size_t kMinPassAnchorBytes = 3;
const std::vector<std::string>& short_anchor_literals();
/// The line of `lines` (text::split_lines(text)) a match of the text ends in (begin < end <=
/// begin + size: a literal holds no terminator), for matches handed on in order of their end:
/// the block passes' one walk from their hits to the lines.
class LineOfEnd {
 public:
  LineOfEnd(std::string_view text, const std::vector<std::string_view>& lines) : text_(text), lines_(lines) {}
  /// The line's index; lines.size() past the last line.
  std::size_t operator()(std::size_t end) {
    while (k_ < lines_.size() && static_cast<std::size_t>(lines_[k_].data() - text_.data()) + lines_[k_].size() < end) ++k_;
    return k_;
  }

 private:
  std::string_view text_;
  const std::vector<std::string_view>& lines_;
  std::size_t k_ = 0;
};

/// The Scan::anchored bits of an anchor literal (as anchor_literals() and short_anchor_literals()
/// spell it): kAnchoredBit, and the anchor_bit of each row whose anchor it is.
unsigned char anchor_bits(std::string_view literal);

/// Sets the short anchor's anchor_bits in `bits[k]` for each line k of `lines`
/// (text::split_lines(text)) that holds a short anchor, case-folded as the block pass compares:
/// one vector search of `text` for each.
void mark_short_anchors(std::string_view text, const std::vector<std::string_view>& lines,
                        std::vector<unsigned char>& bits);

}  // namespace culprit::ingest
