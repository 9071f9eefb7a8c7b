// The input's one block pass (see line_hits.hpp).
#include "ingest/line_hits.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "ingest/format_table.hpp"
#include "ingest/signal_events.hpp"

namespace culprit::ingest {

text::LiteralList line_hit_list(const std::vector<std::string>& app_log, const std::vector<std::string>& kernel_log,
                                const std::vector<std::string>& process) {
  // Each literal once, in byte order, with the bits of every list it is in.
  std::vector<std::pair<std::string_view, std::uint32_t>> all;
  const auto& anchors = anchor_literals();
  all.reserve(anchors.size() + app_log.size() + kernel_log.size() + process.size());
  for (const std::string& anchor : anchors) all.emplace_back(anchor, anchor_bits(anchor));  // kAnchorHit and its rows' own
  for (const std::string& literal : app_log) all.emplace_back(literal, kAppLogHit);
  for (const std::string& literal : kernel_log) all.emplace_back(literal, kKernelLogHit);
  for (const std::string& word : process) all.emplace_back(word, kProcessWordHit);
  std::sort(all.begin(), all.end());
  text::LiteralList list;
  for (const auto& [literal, bit] : all) {
    if (!list.literals.empty() && list.literals.back() == literal) {
      list.ids.back() |= bit;
      continue;
    }
    list.literals.emplace_back(literal);
    list.ids.push_back(bit);
  }
  return list;
}

text::LiteralList opener_list() { return line_hit_list(fast_path_markers(), kernel_log_markers()); }

text::LiteralList line_hit_list(const text::SignalSet& signals) {
  text::LiteralList list = line_hit_list(signals.block_literals(fast_path_markers()),
                                         signals.block_literals(kernel_log_markers()), process_words());
  for (std::uint32_t i = 0; i < list.ids.size(); ++i) list.ids[i] |= i << kLiteralIndexShift;
  return list;
}

bool candidates_from_pass(const PassHits& pass, std::string_view message, std::vector<std::uint32_t>& out) {
  if (pass.hits.empty() || !pass.owners || message.data() < pass.text.data() ||
      message.data() + message.size() > pass.text.data() + pass.text.size())
    return false;
  const auto begin = static_cast<std::size_t>(message.data() - pass.text.data());
  const std::size_t end = begin + message.size();
  auto hit = std::upper_bound(pass.hits.begin(), pass.hits.end(), begin,
                              [](std::size_t at, const text::BlockScanner::Hit& h) { return at < h.end; });
  const std::size_t first = out.size();
  for (; hit != pass.hits.end() && hit->end <= end; ++hit) {
    const std::size_t index = hit->id >> kLiteralIndexShift;
    if (index >= pass.owners->size()) {  // not this list's numbering: a scan decides
      out.resize(first);
      return false;
    }
    const auto& owner = (*pass.owners)[index];
    if (hit->end < begin + owner.bytes) continue;  // it starts before the message
    out.insert(out.end(), owner.signals.begin(), owner.signals.end());
  }
  const auto from = out.begin() + static_cast<std::ptrdiff_t>(first);
  std::sort(from, out.end());
  out.erase(std::unique(from, out.end()), out.end());
  return true;
}

bool line_hits(std::string_view text, const std::vector<std::string_view>& lines, const text::SignalSet& signals,
               std::vector<std::uint8_t>& out, const text::RareBytes& rare, PassHits* pass) {
  static const int kKey = 0;  // this list's place in the signal set's scanners
  auto scanner = signals.block_scanner(&kKey, [&signals] { return line_hit_list(signals); });
  if (!scanner) return false;
  if (pass) {
    pass->text = text;
    pass->owners = signals.literal_owners(&kKey);
  }
  return line_hits(text, lines, *scanner, 0, out, rare, pass ? &pass->hits : nullptr);
}

bool line_hits(std::string_view text, const std::vector<std::string_view>& lines, const text::BlockScanner& scanner,
               std::uint8_t unknown_ids, std::vector<std::uint8_t>& out, const text::RareBytes& rare,
               std::vector<text::BlockScanner::Hit>* kept) {
  std::vector<text::BlockScanner::LineIds> hits;
  if (!scanner.hit_line_ids(text, hits, rare, kept, text.size() / kBytesPerKeptHit)) {
    std::vector<std::size_t> ends;
    if (unknown_ids == 0 || !scanner.hit_lines(text, ends)) return false;
    // A line whose hit may be an anchor may be any row's.
    const std::uint8_t ids = (unknown_ids & kAnchorHit) != 0 ? unknown_ids | kKernelAnchorHit : unknown_ids;
    for (const std::size_t end : ends) hits.push_back({end, ids});
  }
  out.assign(lines.size(), 0);
  LineOfEnd line_of(text, lines);  // hits come in order of their line
  for (const auto& hit : hits) {
    const std::size_t k = line_of(hit.end);
    if (k == lines.size()) break;
    out[k] |= static_cast<std::uint8_t>(hit.ids);
  }
  mark_short_anchors(text, lines, out);  // every list of this pass holds the anchors
  mark_boot_stamps(lines, out);
  return true;
}

LiteralHits::LiteralHits(std::string_view text, const ParseContext& ctx, LineHitBit bit,
                         const std::vector<std::string>& markers)
    : text_(text), given_(ctx.line_hits_of(text)), bit_(bit) {
  if (!given_.empty() || ctx.signals == nullptr) return;
  if (const auto scanner = ctx.signals->block_scanner(markers)) scanned_ = scanner->hit_lines(text, ends_);
}

LiteralHit LiteralHits::at(std::size_t k, std::string_view raw, std::size_t read) {
  if (!given_.empty()) {
    if (raw.size() > read) return LiteralHit::unknown;  // the pass saw where no hit lies, not where one does
    return (given_[k] & bit_) != 0 ? LiteralHit::yes : LiteralHit::no;
  }
  if (!scanned_) return LiteralHit::unknown;
  const auto begin = static_cast<std::size_t>(raw.data() - text_.data());
  while (next_ < ends_.size() && ends_[next_] <= begin) ++next_;
  return next_ < ends_.size() && ends_[next_] <= begin + read ? LiteralHit::yes : LiteralHit::no;
}

}  // namespace culprit::ingest
