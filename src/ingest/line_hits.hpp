// One block pass over an input for the sniffer and both line parsers: the format table's anchors
// and the app-log and kernel-log parsers' literals (their markers and the signals') in one
// Hyperscan database whose ids are bits naming the lists a literal is in, so that the text is
// scanned once, not once for the anchors and again per segment for its parser's literals.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/ingest/parser.hpp"
#include "culprit/text/block_scanner.hpp"
#include "culprit/text/signal_set.hpp"
#include "ingest/format_table.hpp"
#include "ingest/signal_events.hpp"

namespace culprit::ingest {

/// The lists a line's hits belong to (one bit each).
enum LineHitBit : std::uint8_t {
  kAnchorHit = kAnchoredBit,  ///< a format-table anchor (format_table.hpp: anchor_literals, Scan::anchored)
  kAppLogHit = 2,     ///< a signal literal or an app-log marker (fast_path_markers)
  kKernelLogHit = 4,  ///< a signal literal or a kernel-log marker (kernel_log_markers)
  kBootStampLine = kBootStampBit,  ///< no hit: the line opens with a boot stamp (format_table.hpp)
  kProcessWordHit = 16,  ///< a process word (process_words), case-folded: the line may name a process
  kKernelAnchorHit = kKernelAnchorBit,  ///< an anchor of the kernel row's own (format_table.hpp)
  kNoBootStampLine = kNoBootStampBit,    ///< no hit: the line opens with `[` but no boot stamp
};

/// Where the input's pass (line_hit_list(signals)) numbers its literals in their ids: above the
/// LineHitBit bits, the literal's index in the list, so that a hit names its literal (PassHits,
/// SignalSet::literal_owners). A line's OR of ids keeps its bits in the low byte.
inline constexpr unsigned kLiteralIndexShift = 8;

/// The pass's list: every literal of the three lists once (sorted, so the build's prebuilt
/// database is found by its key), its id the bits of the lists it is in and its index above them
/// (kLiteralIndexShift).
text::LiteralList line_hit_list(const text::SignalSet& signals);
/// The same list over the given app-log and kernel-log literals (the format table's anchors are
/// always in it), and `process` (kProcessWordHit) where given.
text::LiteralList line_hit_list(const std::vector<std::string>& app_log, const std::vector<std::string>& kernel_log,
                                const std::vector<std::string>& process = {});
/// That list over the parsers' markers alone: what may open or carry a block, whatever the rules
/// (quiet_piece_end's).
text::LiteralList opener_list();

/// Every hit of the input's pass over `text`, where line_hits() kept them: their literals' ends
/// and ids in order of their end, and what each literal is (`owners`, by the index its id
/// carries: its length and its signals). A message that is a part of `text` finds the signals
/// its literals may match among them (candidates_from_pass) rather than in a scan of its own.
/// Kept while they number at most one per kBytesPerKeptHit bytes of the text (8 bytes each);
/// past that, none.
struct PassHits {
  std::vector<text::BlockScanner::Hit> hits;
  std::string_view text;
  std::shared_ptr<const text::SignalSet::LiteralOwners> owners;
};
inline constexpr std::size_t kBytesPerKeptHit = 64;

/// The candidate signals of `message` (SignalSet::match's, sorted and unique): those whose
/// literals lie wholly within it among `pass`'s hits, exactly what a scan of the message finds
/// (the same literals, caseless both). False where `message` is not a part of the pass's text
/// (a line with its colour codes stripped, a joined wrap) or no hits were kept.
bool candidates_from_pass(const PassHits& pass, std::string_view message, std::vector<std::uint32_t>& out);

/// Per line of `lines` (text::split_lines(text)), the LineHitBit bits of the literals it holds
/// (and kBootStampLine): one pass over `text`. False where the pass does not run (the prefilter is off, a signal has no
/// literal, no database is ready): each caller then makes its own checks, as before.
/// `rare`: the text's census, where one was taken.
/// `pass`: where given, also every hit of the pass (PassHits), for the parsers' candidates.
bool line_hits(std::string_view text, const std::vector<std::string_view>& lines, const text::SignalSet& signals,
               std::vector<std::uint8_t>& out, const text::RareBytes& rare = text::RareBytes::all(),
               PassHits* pass = nullptr);
/// The same pass with `scanner` (ids: LineHitBit bits). Where it tells no ids (no Hyperscan), each
/// line with a hit gets `unknown_ids`, or, when that is 0, false. `hits`: where given, filled
/// with every hit while they are at most one per kBytesPerKeptHit bytes of `text`.
bool line_hits(std::string_view text, const std::vector<std::string_view>& lines, const text::BlockScanner& scanner,
               std::uint8_t unknown_ids, std::vector<std::uint8_t>& out,
               const text::RareBytes& rare = text::RareBytes::all(), std::vector<text::BlockScanner::Hit>* hits = nullptr);

/// A line parser's LiteralHit for each line of its text: the input's one pass (the parser's bit)
/// where the pipeline ran it for this very text, else the parser's own block pass over the text
/// (`markers` and the signals' literals, SignalSet::block_scanner), else unknown (the parser's
/// per-line checks decide).
class LiteralHits {
 public:
  LiteralHits(std::string_view text, const ParseContext& ctx, LineHitBit bit, const std::vector<std::string>& markers);
  /// Line `k` (0-based, in order) of the text, `raw`, of which the parser reads the first `read`
  /// bytes: whether a literal lies within them.
  LiteralHit at(std::size_t k, std::string_view raw, std::size_t read);
  /// Whether line `k`'s first `read` bytes may hold a process word (process_words): false only
  /// where the input's pass ran over them and found none.
  bool may_hold_process_word(std::size_t k, std::string_view raw, std::size_t read) const {
    return given_.empty() || raw.size() > read || (given_[k] & kProcessWordHit) != 0;
  }
  /// Whether the input's pass found line `k` opening with a boot stamp (kBootStampLine); false:
  /// not known.
  bool known_boot_stamped(std::size_t k) const { return !given_.empty() && (given_[k] & kBootStampLine) != 0; }

 private:
  std::string_view text_;
  std::span<const std::uint8_t> given_;
  LineHitBit bit_;
  std::vector<std::size_t> ends_;  ///< the own pass's hits (BlockScanner::hit_lines)
  bool scanned_ = false;
  std::size_t next_ = 0;
};

}  // namespace culprit::ingest
