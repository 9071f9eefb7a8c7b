// One block pass over an input for the sniffer and both line parsers: the format table's anchors
// and the app-log and kernel-log parsers' literals (their markers and the signals') in one
// Hyperscan database whose ids are bits naming the lists a literal is in, so that the text is
// scanned once, not once for the anchors and again per segment for its parser's literals.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "culprit/text/block_scanner.hpp"
#include "culprit/text/signal_set.hpp"

namespace culprit::ingest {

/// The lists a line's hits belong to (one bit each).
enum LineHitBit : std::uint8_t {
  kAnchorHit = 1,     ///< a format-table anchor (format_table.hpp: anchor_literals)
  kAppLogHit = 2,     ///< a signal literal or an app-log marker (fast_path_markers)
  kKernelLogHit = 4,  ///< a signal literal or a kernel-log marker (kernel_log_markers)
};

/// The pass's list: every literal of the three lists once, its id the bits of the lists it is in
/// (sorted, so the build's prebuilt database is found by its key).
text::LiteralList line_hit_list(const text::SignalSet& signals);

/// Per line of `lines` (text::split_lines(text)), the LineHitBit bits of the literals it holds:
/// one pass over `text`. False where the pass does not run (the prefilter is off, a signal has no
/// literal, no database is ready): each caller then makes its own checks, as before.
bool line_hits(std::string_view text, const std::vector<std::string_view>& lines, const text::SignalSet& signals,
               std::vector<std::uint8_t>& out);

}  // namespace culprit::ingest
