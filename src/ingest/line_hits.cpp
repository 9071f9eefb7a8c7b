// The input's one block pass (see line_hits.hpp).
#include "ingest/line_hits.hpp"

#include <map>
#include <string>

#include "ingest/format_table.hpp"
#include "ingest/signal_events.hpp"

namespace culprit::ingest {

text::LiteralList line_hit_list(const text::SignalSet& signals) {
  std::map<std::string, std::uint32_t> bits;
  for (const std::string& anchor : anchor_literals()) bits[anchor] |= kAnchorHit;
  for (const std::string& literal : signals.block_literals(fast_path_markers())) bits[literal] |= kAppLogHit;
  for (const std::string& literal : signals.block_literals(kernel_log_markers())) bits[literal] |= kKernelLogHit;
  text::LiteralList list;
  for (auto& [literal, id] : bits) {
    list.literals.push_back(literal);
    list.ids.push_back(id);
  }
  return list;
}

bool line_hits(std::string_view text, const std::vector<std::string_view>& lines, const text::SignalSet& signals,
               std::vector<std::uint8_t>& out) {
  static const int kKey = 0;  // this list's place in the signal set's scanners
  const auto scanner = signals.block_scanner(&kKey, line_hit_list);
  std::vector<text::BlockScanner::LineIds> hits;
  if (!scanner || !scanner->hit_line_ids(text, hits)) return false;
  out.assign(lines.size(), 0);
  // Hits come in order of their line; a hit ends in line k when begin < end <= begin + size.
  std::size_t k = 0;
  for (const auto& hit : hits) {
    while (k < lines.size() && static_cast<std::size_t>(lines[k].data() - text.data()) + lines[k].size() < hit.end) ++k;
    if (k == lines.size()) break;
    out[k] |= static_cast<std::uint8_t>(hit.ids);
  }
  return true;
}

}  // namespace culprit::ingest
