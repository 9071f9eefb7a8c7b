// `cat /proc/meminfo` (formats: fs/proc/meminfo.c, hugetlb_report_meminfo, arch DirectMap lines)
// -> one core::HostMemory per listing plus one `log` event (rule `meminfo`), like the `free`
// parser. A listing starts at `MemTotal:`; a sample stamp line directly above it (see
// sample_stamp.hpp: culprit's samples, `date -Is; cat /proc/meminfo`) gives its time.
//
// Field table (kB = KiB; values leave in bytes), as procps-ng's `free` derives its columns, so a
// meminfo and a `free` of the same moment agree:
//   MemTotal -> total | MemFree -> free | MemAvailable -> available (3.14+) | Shmem -> shared |
//   Buffers + Cached + SReclaimable -> buff_cache |
//   used: total - available (procps-ng 4's `used`); without MemAvailable (kernels before
//   3.14) total - free - buff_cache, as older `free` printed it |
//   SwapTotal -> swap_total | SwapFree -> swap_free | SwapTotal - SwapFree -> swap_used
#include "ingest/formats/meminfo.hpp"

#include <charconv>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "culprit/ingest/parser.hpp"
#include "ingest/formats/host_memory_fields.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/sample_stamp.hpp"

namespace culprit::ingest {
namespace meminfo {

std::optional<Line> parse_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::size_t i = 0;
  while (i < line.size()) {
    const char c = line[i];
    const bool key_char = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' ||
                          c == '(' || c == ')';
    if (!key_char) break;
    ++i;
  }
  if (i == 0 || i >= line.size() || line[i] != ':' || !((line[0] >= 'A' && line[0] <= 'Z') || (line[0] >= 'a' && line[0] <= 'z')))
    return std::nullopt;
  Line out;
  out.key = line.substr(0, i);
  std::size_t j = i + 1;
  const std::size_t pad = j;
  while (j < line.size() && line[j] == ' ') ++j;
  if (j == pad) return std::nullopt;  // the kernel always pads the value
  const std::size_t num = j;
  while (j < line.size() && line[j] >= '0' && line[j] <= '9') ++j;
  if (j == num || j - num > 19) return std::nullopt;
  if (std::from_chars(line.data() + num, line.data() + j, out.value).ec != std::errc()) return std::nullopt;
  std::string_view rest = line.substr(j);
  while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
  if (rest == " kB") out.kb = true;
  else if (!rest.empty()) return std::nullopt;
  return out;
}

bool is_anchor(std::string_view line) {
  if (!text::starts_with(line, "MemTotal:")) return false;
  const auto l = parse_line(line);
  return l && l->kb;
}

}  // namespace meminfo

namespace {

struct MeminfoListing {
  std::int64_t first_line = 0, anchor_line = 0, last_line = 0;  // segment lines
  std::optional<double> ts;
  std::string stamp;
  std::string anchor_text;
  std::map<std::string, std::int64_t, std::less<>> kib;  // the sizes, in KiB
};

std::optional<std::int64_t> bytes(const MeminfoListing& l, std::string_view key) {
  const auto it = l.kib.find(key);
  if (it == l.kib.end() || it->second > (INT64_MAX >> 10)) return std::nullopt;
  return it->second * 1024;
}

void emit(const MeminfoListing& l, ParseContext& ctx, std::int64_t& count) {
  core::HostMemory mem;
  mem.source_id = ctx.source_id;
  mem.host = ctx.host;
  mem.line = ctx.absolute_line(l.anchor_line);
  mem.ts = l.ts;
  mem.total = bytes(l, "MemTotal");
  mem.free = bytes(l, "MemFree");
  mem.available = bytes(l, "MemAvailable");
  mem.shared = bytes(l, "Shmem");
  const auto buffers = bytes(l, "Buffers"), cached = bytes(l, "Cached"), reclaimable = bytes(l, "SReclaimable");
  if (buffers || cached) mem.buff_cache = buffers.value_or(0) + cached.value_or(0) + reclaimable.value_or(0);
  if (mem.total && mem.available && *mem.available <= *mem.total) {
    mem.used = *mem.total - *mem.available;
  } else if (mem.total && mem.free && !mem.available) {
    const std::int64_t u = *mem.total - *mem.free - mem.buff_cache.value_or(0);
    if (u >= 0) mem.used = u;
  }
  mem.swap_total = bytes(l, "SwapTotal");
  mem.swap_free = bytes(l, "SwapFree");
  if (mem.swap_total && mem.swap_free && *mem.swap_free <= *mem.swap_total) mem.swap_used = *mem.swap_total - *mem.swap_free;
  ctx.sink->add_host_memory(mem);

  core::Event ev = ctx.make_event(l.first_line);
  ev.line_end = ctx.absolute_line_end(l.last_line);
  ev.rule = "meminfo";
  ev.kind = std::string(core::kind::kLog);
  ev.message = l.anchor_text;
  if (l.ts) {
    ev.ts = l.ts;
    ev.ts_raw = l.stamp;
    ev.ts_kind = core::TsKind::wall;
    ev.ts_value = l.ts;
  }
  set_host_memory_fields(ev, mem);
  ev.set_int("snapshot", ++count);
  ctx.sink->add_event(ev);
}

}  // namespace

void parse_meminfo(std::string_view text, ParseContext& ctx) {
  if (ctx.sink == nullptr) return;
  const auto lines = text::split_lines(text);
  std::optional<MeminfoListing> cur;
  std::int64_t count = 0;
  sample_stamp::Last stamp;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto seg = static_cast<std::int64_t>(i) + 1;
    const std::string_view line = lines[i];
    if (meminfo::is_anchor(line)) {
      if (cur) emit(*cur, ctx, count);
      cur = MeminfoListing{};
      cur->first_line = cur->anchor_line = cur->last_line = seg;
      if (stamp.above(seg)) stamp.date(*cur);
      cur->anchor_text = std::string(text::trim(line));
    }
    if (const auto l = meminfo::parse_line(line); l && cur) {
      if (l->kb) cur->kib[std::string(l->key)] = l->value;
      cur->last_line = seg;
      continue;
    }
    stamp.take(line, seg);
    if (cur) {  // other text ends the listing
      emit(*cur, ctx, count);
      cur.reset();
    }
  }
  if (cur) emit(*cur, ctx, count);
}

}  // namespace culprit::ingest
