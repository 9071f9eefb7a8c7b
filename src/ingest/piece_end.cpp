// quiet_piece_end (pipeline.hpp): where a piece of a big input may end. A piece is ingested on
// its own, so a block that opens in one piece and goes on in the next would be read as two
// halves; a piece therefore ends only after a quiet stretch, where no block is open.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "culprit/ingest/pipeline.hpp"
#include "culprit/ingest/sniff.hpp"
#include "culprit/text/block_scanner.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/kernel_oom_report.hpp"
#include "ingest/formats/line_prefix.hpp"
#include "ingest/line_hits.hpp"
#include "ingest/signal_events.hpp"

namespace culprit::ingest {
namespace {

/// Lines without a block opener that must come before a piece's end: longer than a traceback,
/// an nvidia-smi table or a kernel OOM report's task table usually run without one.
constexpr std::size_t kQuietLines = 256;
/// ...and after it: what the next block reads of the lines before it (the last stamp, the
/// step it failed in) stays in its piece.
constexpr std::size_t kQuietLinesAfter = 64;
/// How far back from the end of the text a piece's end is looked for: a few thousand lines (the
/// reader asks again as the piece grows), and further where the piece must end.
constexpr std::size_t kSearchBytes = std::size_t{256} << 10;
constexpr std::size_t kMustSearchBytes = std::size_t{1} << 20;
/// The end of the search read first (quiet_piece_end): some hundreds of lines.
constexpr std::size_t kFirstSearchBytes = std::size_t{64} << 10;
/// A search whose longest quiet run is shorter than this finds the text crowded
/// (quiet_piece_end's `crowded`).
constexpr std::size_t kCrowdedRunLines = kQuietLines / 4;

/// Every literal that may open or carry a block: the format table's anchors and each line
/// parser's markers, their ids the LineHitBit bits of the lists they are in (never the rules'
/// signal literals, so the ends do not depend on the rules or on --no-prefilter).
const text::BlockScanner& opener_scanner() {
  static const auto scanner = [] {
    text::LiteralList list = opener_list();
    return std::make_unique<const text::BlockScanner>(list.literals, text::BlockScanner::Engine::hyperscan,
                                                      text::BlockScanner::kCompileAfterBytes, std::move(list.ids));
  }();
  return *scanner;
}

/// The hits that break a quiet stretch in text of this format: the anchors and the markers of
/// the parser that reads it (a kernel log's `(pid` is no app-log line's); all where unknown.
std::uint8_t opener_bits(std::string_view format) {
  if (format == format::kKernelLog) return kAnchorHit | kKernelLogHit;
  if (format == format::kAppLog) return kAnchorHit | kAppLogHit;
  return kAnchorHit | kAppLogHit | kKernelLogHit;
}

/// True when the line goes on from the one before it: indented once its prefixes are peeled
/// (a traceback frame or source line, a wrapped continuation, a table row).
bool continues(std::string_view line) {
  if (line.empty()) return false;
  if (line[0] == ' ' || line[0] == '\t') return true;
  const std::string message = peel_line(line).message;
  return !message.empty() && (message[0] == ' ' || message[0] == '\t');
}

/// The first line start at or after `at` in `text` (0 stays 0), or npos where none follows.
std::size_t line_start_from(std::string_view text, std::size_t at) {
  if (at == 0) return 0;
  const void* nl = std::memchr(text.data() + at - 1, '\n', text.size() - at + 1);
  if (nl == nullptr) return std::string_view::npos;
  return static_cast<std::size_t>(static_cast<const char*>(nl) - text.data()) + 1;
}

/// quiet_piece_end's answer from the lines of text[from, end), hits of `bits` breaking a quiet
/// stretch; 0 where none there will do. `longest_run`: the most quiet lines in a row there.
std::size_t quiet_end_after(std::string_view text, std::size_t from, std::uint8_t bits, bool must,
                            std::size_t& longest_run) {
  const std::string_view region = text.substr(from);
  std::vector<std::string_view> lines = text::split_lines(region);
  // The last line may be cut off at the text's end: only whole lines count.
  while (!lines.empty() && static_cast<std::size_t>(lines.back().data() - region.data()) >= region.size())
    lines.pop_back();
  if (!lines.empty() && lines.back().data() + lines.back().size() == region.data() + region.size()) lines.pop_back();
  // Lines with a hit of the region's parser (any hit where the ids are not told: no Hyperscan).
  std::vector<std::uint8_t> line_bits;
  if (!line_hits(region, lines, opener_scanner(), bits, line_bits))  // a `hyperscan` scanner scans every block
    line_bits.assign(lines.size(), bits);                             // else: nothing is known quiet
  // before[k]: lines without an opener just before line k; after[k]: from line k on. A task
  // table's row counts as one (the report is open), and a piece never ends between two rows.
  const std::size_t n = lines.size();
  std::vector<std::size_t> before(n + 1, 0), after(n + 1, 0);
  std::vector<bool> hit(n, false), row(n, false);
  for (std::size_t k = 0; k < n; ++k) {
    row[k] = (bits & kKernelLogHit) != 0 && kernel::looks_like_task_row(lines[k]);
    hit[k] = (line_bits[k] & bits) != 0 || row[k];
    before[k + 1] = hit[k] ? 0 : before[k] + 1;
    longest_run = std::max(longest_run, before[k + 1]);
  }
  for (std::size_t k = n; k-- > 0;) after[k] = hit[k] ? 0 : after[k + 1] + 1;
  // The latest line start inside a long enough quiet stretch; with `must`, else the one deepest
  // inside the longest (the latest of equals), else the last line start.
  std::size_t best = 0, best_depth = 0;
  for (std::size_t k = n; k-- > 1;) {
    const std::size_t depth = std::min(before[k], after[k] * kQuietLines / kQuietLinesAfter);
    if (depth < (must ? best_depth + 1 : kQuietLines) || continues(lines[k])) continue;
    const auto begin = from + static_cast<std::size_t>(lines[k].data() - region.data());
    if (before[k] >= kQuietLines && after[k] >= kQuietLinesAfter) return begin;
    best = begin;
    best_depth = depth;
  }
  if (must && best == 0) {  // the last line start not inside a task table
    for (std::size_t k = n; k-- > 1;)
      if (!(row[k - 1] && row[k])) return from + static_cast<std::size_t>(lines[k].data() - region.data());
  }
  return best;
}

}  // namespace

bool reads_in_pieces(std::string_view head) {
  head = head.substr(0, std::min<std::size_t>(head.size(), kSniffHeadBytes));
  const std::string kind = sniff_format(head);
  if (kind != format::kAppLog && kind != format::kKernelLog && kind != format::kJournalJson) return false;
  // A terminal paste: the host a prompt names holds for all the output after it.
  for (const Segment& segment : segment_text(head))
    if (!segment.host.empty() || !segment.command.empty()) return false;
  return true;
}

std::size_t quiet_piece_end(std::string_view text, bool must, bool* crowded) {
  if (crowded != nullptr) *crowded = false;
  const std::size_t search = must ? kMustSearchBytes : kSearchBytes;
  const std::size_t from = line_start_from(text, text.size() > search ? text.size() - search : 0);
  if (from == std::string_view::npos) return 0;  // one line: no line start to end at
  const std::uint8_t bits = opener_bits(sniff_format(text.substr(from, kSniffHeadBytes)));
  // Without `must` the answer is the latest line start with kQuietLines quiet lines before it
  // and kQuietLinesAfter after: where the search's last kFirstSearchBytes hold one, it is the
  // one the whole search finds (a later one would need its quiet lines to reach back past
  // this one, which has them already), so most piece ends read only that much.
  std::size_t longest_run = 0;
  if (!must && text.size() - from > kFirstSearchBytes) {
    const std::size_t near = line_start_from(text, text.size() - kFirstSearchBytes);
    if (near != std::string_view::npos)
      if (const std::size_t end = quiet_end_after(text, near, bits, must, longest_run); end != 0) return end;
  }
  longest_run = 0;
  const std::size_t end = quiet_end_after(text, from, bits, must, longest_run);
  if (crowded != nullptr) *crowded = end == 0 && longest_run < kCrowdedRunLines;
  return end;
}

}  // namespace culprit::ingest
