// Signal matches to events (see signal_events.hpp). Shared by kernel_log and app_log so that a
// capture means the same field, with the same units, whatever parser saw the line.
#include "signal_events.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <string>

#include "culprit/core/size.hpp"
#include "culprit/text/block_scanner.hpp"
#include "culprit/text/signal_set.hpp"
#include "ingest/format_table.hpp"
#include "ingest/formats/line_prefix.hpp"
#include "ingest/line_hits.hpp"
#include "ingest/xid_details.hpp"

namespace culprit::ingest {
namespace {

// Captures that are integers by contract (stored unquoted in the JSON fields).
constexpr std::string_view kIntegerCaptures[] = {"pid", "rank", "local_rank", "gpu", "xid", "exitcode"};

/// A capture's integer: spaces around it and a leading `+` allowed.
std::optional<std::int64_t> capture_int(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (!s.empty() && s.front() == '+') s.remove_prefix(1);
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size() || s.empty()) return std::nullopt;
  return v;
}

// A bare, possibly negative, GiB figure ("69.42", "-0.3") as bytes; nullopt when not a number.
std::optional<std::int64_t> gib_to_bytes(std::string_view s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);  // locale-independent
  if (s.empty() || ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v) || std::fabs(v) > 1e9)
    return std::nullopt;
  return static_cast<std::int64_t>(std::llround(v * 1073741824.0));
}

bool is_integer_capture(std::string_view name) {
  for (auto k : kIntegerCaptures)
    if (k == name) return true;
  return false;
}

/// The bytes of `line` that are `message`'s (the peeled message is a copy: most often the line's
/// tail), or `message` itself where the line does not hold it.
std::string_view same_bytes_in(std::string_view line, std::string_view message) {
  if (line.size() >= message.size() && line.substr(line.size() - message.size()) == message)
    return line.substr(line.size() - message.size());
  if (const std::size_t at = line.find(message); at != std::string_view::npos) return line.substr(at, message.size());
  return message;
}

}  // namespace

std::vector<core::Event> events_from_signals(const core::Event& base, std::string_view message,
                                             const ParseContext& ctx, std::string_view scope, std::string_view line) {
  std::vector<core::Event> out;
  if (ctx.signals == nullptr) return out;
  const std::string_view format = scope.empty() ? std::string_view(ctx.format) : scope;
  // Candidates depend on the bytes only: the pass's hits within the line's bytes equal to the
  // message's are exactly the literals a scan of the message finds.
  std::vector<std::uint32_t> candidates;
  const bool told = ctx.pass_hits != nullptr && !line.empty() &&
                    candidates_from_pass(*ctx.pass_hits, same_bytes_in(line, message), candidates);
  for (const auto& m : told ? ctx.signals->match(message, format, candidates) : ctx.signals->match(message, format)) {
    if (m.signal == nullptr) continue;
    core::Event e = base;
    e.kind = m.signal->kind;
    e.severity = m.signal->severity;
    e.rule = m.signal->id;
    e.message = std::string(message);
    for (const auto& [key, value] : m.signal->fields) e.set(key, value);
    for (const auto& c : m.captures) {
      if (c.value.empty()) continue;
      if (is_integer_capture(c.name)) {
        if (auto v = capture_int(c.value)) {
          e.set_int(c.name, *v);
          if (c.name == "pid") e.pid = *v;
          if (c.name == "rank") e.rank = static_cast<int>(*v);
          continue;
        }
        e.set(c.name, c.value);  // e.g. pid='<unknown>': keep the text
        continue;
      }
      e.set(c.name, c.value);
      // `name` is the process name in the kill-line, segfault and allocation-failure rules.
      if ((c.name == "comm" || c.name == "name") && e.comm.empty()) e.comm = c.value;
      constexpr std::string_view kSize = "_size";
      if (c.name.size() > kSize.size() && c.name.compare(c.name.size() - kSize.size(), kSize.size(), kSize) == 0) {
        if (auto bytes = core::parse_size(c.value))
          e.set_int(c.name.substr(0, c.name.size() - kSize.size()) + "_bytes", *bytes);
      }
    }
    // `*_gib`: a bare number the line prints in GiB apart from its unit (vLLM's
    // "(69.42/121.63 GiB)"); the ledger reads every size as `<base>_bytes`. A `*_size` of the
    // same base, when a rule has both, wins.
    for (const auto& c : m.captures) {
      constexpr std::string_view kGib = "_gib";
      if (c.value.empty() || c.name.size() <= kGib.size() ||
          c.name.compare(c.name.size() - kGib.size(), kGib.size(), kGib) != 0)
        continue;
      const std::string key = c.name.substr(0, c.name.size() - kGib.size()) + "_bytes";
      if (e.field(key)) continue;
      if (auto bytes = gib_to_bytes(c.value)) e.set_int(key, *bytes);
    }
    // `time`: a full date the message itself carries (Slurm's `CANCELLED AT 2024-05-15T10:22:35`)
    // dates an event whose line had no stamp (issue 37, finding 16); a line's own stamp wins.
    if (e.ts_kind == core::TsKind::none)
      if (const core::Field* t = e.field("time")) {
        PeeledTime when;
        if (read_iso_stamp(t->value, when) == t->value.size() && when.kind == core::TsKind::wall) {
          e.ts_kind = core::TsKind::wall;
          e.ts_raw = t->value;
          e.ts = stamp_epoch(when, 0);
        }
      }
    if (e.kind == core::kind::kXid) enrich_xid_event(e);  // code meaning, PCI form, NVLink5 details
    out.push_back(std::move(e));
  }
  return out;
}

std::vector<text::LiteralList> block_scan_literal_lists(const text::SignalSet& signals) {
  return {{signals.block_literals(fast_path_markers()), {}},
          {signals.block_literals(kernel_log_markers()), {}},
          {anchor_literals(), {}},
          signals.candidate_literals(),
          line_hit_list(signals),
          opener_list()};
}

}  // namespace culprit::ingest
