// torch_memory_snapshot: PyTorch's allocator snapshot as JSON -> one `allocator_snapshot` event
// (the segment totals, the largest free block, the request the OOM's message names) and one
// `allocator_site` event per largest live allocation site (torch_memory_snapshot.hpp has the
// layout). Nothing here unpickles: the hook writes JSON, and a pickle is no JSON.
#include "ingest/formats/torch_memory_snapshot.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <map>
#include <tuple>

#include "culprit/core/size.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/container_values.hpp"
#include "ingest/formats/json_spans.hpp"
#include "ingest/formats/torch_oom.hpp"

namespace culprit::ingest {
namespace torch_memory {
namespace {

using simdjson::dom::element;

constexpr std::string_view kHeaderKey = "culprit_memory_snapshot";

/// A number of the snapshot (a size, an index, a line) in [0, kMaxValue]; 0 when absent or not a
/// number. The cap keeps every sum below int64's range: no device has 4 TiB, and at most
/// kMaxBlocks (2^20) values of 2^42 are added.
constexpr std::int64_t kMaxValue = std::int64_t{1} << 42;

std::int64_t int_of(element parent, std::string_view key) {
  element e;
  if (parent[key].get(e)) return 0;
  std::int64_t v = 0;
  if (!e.get_int64().get(v)) return std::clamp<std::int64_t>(v, 0, kMaxValue);
  std::uint64_t u = 0;
  if (!e.get_uint64().get(u)) return kMaxValue;
  double d = 0;
  if (!e.get_double().get(d) && d >= 0) return d < static_cast<double>(kMaxValue) ? static_cast<std::int64_t>(d) : kMaxValue;
  return 0;
}

std::string_view str_of(element parent, std::string_view key) {
  std::string_view v;
  if (parent[key].get_string().get(v)) return {};
  return v;
}

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// A frame of Python code: a `.py` file, or the interpreter's own names (`<stdin>`, `<string>`).
/// C++ frames (2.1+'s stacks="all": `??`, `.so`, `.cpp`) are not.
bool is_python(std::string_view file) { return ends_with(file, ".py") || (file.size() > 2 && file[0] == '<'); }

/// A file of torch's own package (its nn modules, autograd, the allocator's Python side).
bool is_torch_internal(std::string_view file) {
  for (std::string_view dir : {"-packages/torch/", "/pytorch/torch/"})
    if (file.find(dir) != std::string_view::npos) return true;
  return text::starts_with(file, "torch/");
}

/// The frames of one block: 2.1+'s `frames`, else the last `history` entry's (1.13, 2.0).
element frames_of(element block, bool& found) {
  element frames;
  found = !block["frames"].get(frames) && frames.is_array();
  if (found) return frames;
  element history;
  if (!block["history"].get(history) && history.is_array()) {
    element last;
    bool any = false;
    for (element h : history.get_array()) {
      last = h;
      any = true;
    }
    found = any && last.is_object() && !last["frames"].get(frames) && frames.is_array();
  }
  return frames;
}

struct SiteKey {
  std::string file, function;
  std::int64_t line = 0;
  bool operator<(const SiteKey& o) const { return std::tie(file, line, function) < std::tie(o.file, o.line, o.function); }
};

}  // namespace

std::optional<Frame> allocation_site(const std::vector<Frame>& frames) {
  const Frame* first_python = nullptr;
  for (const auto& f : frames) {
    if (!is_python(f.file)) continue;
    if (!is_torch_internal(f.file)) return f;
    if (first_python == nullptr) first_python = &f;
  }
  if (first_python) return *first_python;
  return std::nullopt;
}

std::optional<Summary> summarize(std::string_view json) {
  if (json.size() > kMaxBytes) return std::nullopt;
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  element root;
  if (parser.parse(padded).get(root)) return std::nullopt;
  element segments;
  Summary s;
  if (root.is_array()) {
    segments = root;
  } else if (!root.is_object() || root["segments"].get(segments) || !segments.is_array()) {
    return std::nullopt;
  }
  element head;
  std::int64_t header_blocks = 0;
  if (root.is_object() && !root[kHeaderKey].get(head) && head.is_object()) {
    if (element d; !head["device"].get(d) && d.is_int64()) s.device = static_cast<int>(int_of(head, "device"));
    if (element p; !head["pid"].get(p) && p.is_int64()) s.pid = int_of(head, "pid");
    s.time = std::string(str_of(head, "time"));
    s.torch_version = std::string(str_of(head, "torch"));
    s.error = std::string(str_of(head, "error"));
    s.reserved += int_of(head, "dropped_total_size");
    s.allocated += int_of(head, "dropped_allocated_size");
    s.active += int_of(head, "dropped_active_size");
    s.segments += int_of(head, "segments_dropped");
    header_blocks = int_of(head, "blocks_total");
    s.cut = int_of(head, "segments_dropped") > 0 || int_of(head, "blocks_dropped") > 0;
  }

  std::map<SiteKey, Site> sites;
  std::size_t segments_read = 0, blocks_read = 0;
  std::vector<Frame> frames;
  for (element seg : segments.get_array()) {
    if (!seg.is_object()) continue;
    if (segments_read++ >= kMaxSegments) {
      s.cut = true;
      break;
    }
    ++s.segments;
    s.reserved += int_of(seg, "total_size");
    s.allocated += int_of(seg, "allocated_size");
    s.active += int_of(seg, "active_size");
    if (!s.device)
      if (element d; !seg["device"].get(d) && d.is_int64()) s.device = static_cast<int>(int_of(seg, "device"));
    element blocks;
    if (seg["blocks"].get(blocks) || !blocks.is_array()) continue;
    for (element b : blocks.get_array()) {
      if (!b.is_object()) continue;
      if (blocks_read++ >= kMaxBlocks) {
        s.cut = true;
        break;
      }
      ++s.blocks;
      const std::int64_t size = int_of(b, "size");
      const std::string_view state = str_of(b, "state");
      if (state == "inactive") {
        ++s.free_blocks;
        s.largest_free = std::max(s.largest_free, size);
        continue;
      }
      if (state != "active_allocated") continue;  // active_pending_free: freed, its stream still busy
      ++s.live_blocks;
      bool found = false;
      element list = frames_of(b, found);
      frames.clear();
      if (found) {
        for (element f : list.get_array()) {
          if (frames.size() >= kMaxFrames) break;
          if (f.is_object()) frames.push_back({str_of(f, "filename"), int_of(f, "line"), str_of(f, "name")});
        }
      }
      const auto site = allocation_site(frames);
      if (!site) {
        s.unattributed += size;
        continue;
      }
      Site& to = sites[{std::string(site->file), std::string(site->function), site->line}];
      to.bytes += size;
      ++to.blocks;
      to.largest = std::max(to.largest, size);
    }
  }
  s.blocks = std::max(s.blocks, header_blocks);
  // 2.1+'s trace of allocator actions: an `oom` entry's size is the request that failed.
  element traces;
  std::size_t entries_read = 0;
  if (root.is_object() && !root["device_traces"].get(traces) && traces.is_array())
    for (element device : traces.get_array()) {
      if (!device.is_array()) continue;
      for (element entry : device.get_array()) {
        if (entries_read++ >= kMaxTraceEntries) break;
        if (entry.is_object() && str_of(entry, "action") == "oom") s.trace_request = int_of(entry, "size");
      }
    }
  s.site_count = static_cast<std::int64_t>(sites.size());
  for (auto& [key, site] : sites) {
    site.file = key.file;
    site.line = key.line;
    site.function = key.function;
    s.sites.push_back(std::move(site));
  }
  std::sort(s.sites.begin(), s.sites.end(), [](const Site& a, const Site& b) {
    return std::tie(b.bytes, a.file, a.line) < std::tie(a.bytes, b.file, b.line);
  });
  if (s.sites.size() > kMaxSites) s.sites.resize(kMaxSites);
  return s;
}

}  // namespace torch_memory

namespace {

std::string short_file(std::string_view path) {
  const auto slash = path.rfind('/');
  return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

void push_summary(const torch_memory::Summary& s, std::int64_t seg_line, ParseContext& ctx) {
  core::Event e = ctx.make_event(seg_line);
  if (!s.time.empty())
    if (auto t = containers::parse_rfc3339(s.time)) {
      e.ts = *t;
      e.ts_kind = core::TsKind::wall;
      e.ts_raw = s.time;
    }
  e.pid = s.pid;
  e.kind = std::string(core::kind::kAllocatorSnapshot);
  e.rule = "torch_memory_snapshot";
  e.severity = core::Severity::info;
  std::optional<std::int64_t> requested;
  if (auto oom = parse_torch_oom(s.error)) requested = oom->requested;
  if (!requested) requested = s.trace_request;
  e.message = fmt::format("PyTorch allocator snapshot{}: {} reserved, {} allocated in {} segment(s); largest free block {}{}",
                          s.device ? fmt::format(" of GPU {}", *s.device) : std::string(),
                          core::format_size(s.reserved), core::format_size(s.allocated), s.segments,
                          core::format_size(s.largest_free),
                          requested ? fmt::format(", {} requested", core::format_size(*requested)) : std::string());
  if (s.device) e.set_int("gpu", *s.device);
  e.set_int("reserved_bytes", s.reserved);
  e.set_int("allocated_bytes", s.allocated);
  e.set_int("active_bytes", s.active);
  e.set_int("largest_free_bytes", s.largest_free);
  e.set_int_if("request_bytes", requested);
  e.set_int("segments", s.segments);
  e.set_int("blocks", s.blocks);
  e.set_int("live_blocks", s.live_blocks);
  e.set_int("free_blocks", s.free_blocks);
  e.set_int("unattributed_bytes", s.unattributed);
  e.set_int("sites", s.site_count);
  e.set_int("cut", s.cut ? 1 : 0);
  if (!s.torch_version.empty()) e.set("torch_version", s.torch_version);
  ctx.sink->add_event(e);

  int rank = 0;
  for (const auto& site : s.sites) {
    core::Event x = ctx.make_event(seg_line);
    x.ts = e.ts;
    x.ts_kind = e.ts_kind;
    x.ts_raw = e.ts_raw;
    x.pid = s.pid;
    x.kind = std::string(core::kind::kAllocatorSite);
    x.rule = "torch_memory_snapshot";
    x.severity = core::Severity::info;
    x.message = fmt::format("allocator: {} live in {} block(s) allocated at {}:{} in {}", core::format_size(site.bytes),
                            site.blocks, short_file(site.file), site.line, site.function);
    x.set_int("site_rank", ++rank);
    x.set("site_file", site.file);
    x.set_int("site_line", site.line);
    x.set("site_function", site.function);
    x.set_int("bytes", site.bytes);
    x.set_int("blocks", site.blocks);
    x.set_int("largest_bytes", site.largest);
    if (s.device) x.set_int("gpu", *s.device);
    ctx.sink->add_event(x);
  }
}

}  // namespace

void parse_torch_memory_snapshot(std::string_view text, ParseContext& ctx) {
  if (ctx.sink == nullptr) return;
  if (text.size() > torch_memory::kMaxBytes) {
    ctx.note("torch_memory_snapshot_too_large", 1,
             fmt::format("an allocator snapshot of {} is over the {} read; skipped", core::format_size(static_cast<std::int64_t>(text.size())),
                         core::format_size(static_cast<std::int64_t>(torch_memory::kMaxBytes))));
    return;
  }
  std::int64_t bad = 0, first_bad = 0;
  for (const auto& span : json::split_values(text, true, torch_memory::kMaxBytes)) {
    auto summary = torch_memory::summarize(span.text);
    if (!summary) {
      if (bad++ == 0) first_bad = span.line;
      continue;
    }
    push_summary(*summary, span.line, ctx);
  }
  if (bad > 0)
    ctx.note("torch_memory_snapshot_bad_json", first_bad,
             fmt::format("{} JSON value(s) could not be read as an allocator snapshot and were skipped", bad));
}

}  // namespace culprit::ingest
