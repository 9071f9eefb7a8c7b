// The cgroup memory listing (cgroup_memory.hpp) -> one `log` event per listing (rule
// `cgroup_memory`) whose fields give the cgroup's usage against its limit; a sample stamp line
// (sample_stamp.hpp) directly above gives its time. A listing ends where a file it already
// holds comes again (two listings pasted one after the other).
//
// Fields (bytes as the kernel prints them; `max` / v1's near-2^63 "no limit" leave the limit out
// and set limit_unlimited = 1):
//   v2 (Documentation/admin-guide/cgroup-v2.rst): memory.current -> usage_bytes |
//     memory.max -> limit_bytes | memory.high -> high_bytes | memory.peak -> peak_bytes |
//     memory.swap.current -> swap_usage_bytes | memory.swap.max -> swap_limit_bytes |
//     memory.events `high N`, `max N`, `oom N`, `oom_kill N` -> events_high, events_max,
//     events_oom, events_oom_kill
//   v1 (cgroup-v1/memory.rst): memory.usage_in_bytes -> usage_bytes | memory.limit_in_bytes ->
//     limit_bytes | memory.max_usage_in_bytes -> peak_bytes | memory.failcnt -> failcnt |
//     memory.oom_control `oom_kill N` -> events_oom_kill, `under_oom N` -> under_oom
//   /proc/self/cgroup `0::PATH` (v2) or `N:…memory…:PATH` (v1) -> cgroup; without it the header's
//     directory below /sys/fs/cgroup(/memory)
#include "ingest/formats/cgroup_memory.hpp"

#include <fmt/format.h>

#include <charconv>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "culprit/core/parser_rules.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/sample_stamp.hpp"

namespace culprit::ingest {
namespace cgroup_memory {

std::string_view header_path(std::string_view line) {
  const std::string_view t = text::trim(line);
  if (t.size() < 9 || !text::starts_with(t, "==> ") || t.substr(t.size() - 4) != " <==") return {};
  return text::trim(t.substr(4, t.size() - 8));
}

namespace {
std::string_view base_name(std::string_view path) {
  const auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}
}  // namespace

bool is_memory_header(std::string_view line) {
  const std::string_view p = header_path(line);
  return !p.empty() && text::starts_with(base_name(p), "memory.") && base_name(p).size() > 7;
}

bool is_listing_header(std::string_view line) {
  if (is_memory_header(line)) return true;
  const std::string_view p = header_path(line);
  return p == "/proc/self/cgroup" || (p.size() > 7 && p.substr(p.size() - 7) == "/cgroup" && text::starts_with(p, "/proc/"));
}

bool is_body_line(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  if (line.empty() || line.size() > 512 || line[0] == ' ' || line[0] == '\t' || text::contains(line, "==>"))
    return false;
  const auto sp = line.find(' ');
  return sp == std::string_view::npos || (sp > 0 && line.find(' ', sp + 1) == std::string_view::npos && sp + 1 < line.size());
}

}  // namespace cgroup_memory

namespace {

std::optional<std::int64_t> integer(std::string_view s) {
  s = text::trim(s);
  std::int64_t v = 0;
  if (s.empty() || std::from_chars(s.data(), s.data() + s.size(), v).ec != std::errc() || v < 0) return std::nullopt;
  return v;
}

/// v1 prints "no limit" as PAGE_COUNTER_MAX pages in bytes (9223372036854771712 on 64-bit).
constexpr std::int64_t kUnlimitedV1 = std::int64_t{1} << 62;

struct Listing {
  std::int64_t first_line = 0, last_line = 0;
  std::optional<double> ts;
  std::string stamp;
  std::set<std::string> files;
  std::string dir, cgroup, current_file;
  int version = 0;
  std::optional<std::int64_t> usage, limit, high, peak, swap_usage, swap_limit;
  bool unlimited = false, swap_unlimited = false;
  std::vector<std::pair<std::string, std::int64_t>> counts;  // event counters, in field order
};

void take_value(Listing& l, std::string_view file, std::string_view body) {
  auto size_or_max = [&](std::optional<std::int64_t>& to, bool* unlimited) {
    if (text::trim(body) == "max") {
      if (unlimited) *unlimited = true;
      return;
    }
    to = integer(body);
  };
  if (file == "memory.current") l.version = 2, l.usage = integer(body);
  else if (file == "memory.max") l.version = 2, size_or_max(l.limit, &l.unlimited);
  else if (file == "memory.high") size_or_max(l.high, nullptr);
  else if (file == "memory.peak") l.peak = integer(body);
  else if (file == "memory.swap.current") l.swap_usage = integer(body);
  else if (file == "memory.swap.max") size_or_max(l.swap_limit, &l.swap_unlimited);
  else if (file == "memory.usage_in_bytes") l.version = 1, l.usage = integer(body);
  else if (file == "memory.max_usage_in_bytes") l.peak = integer(body);
  else if (file == "memory.failcnt") {
    if (auto v = integer(body)) l.counts.emplace_back("failcnt", *v);
  } else if (file == "memory.limit_in_bytes") {
    l.version = 1;
    l.limit = integer(body);
    if (l.limit && *l.limit >= kUnlimitedV1) l.limit.reset(), l.unlimited = true;
  } else if (file == "memory.events" || file == "memory.oom_control") {
    const auto sp = body.find(' ');
    if (sp == std::string_view::npos) return;
    const std::string_view key = body.substr(0, sp);
    const auto v = integer(body.substr(sp + 1));
    if (!v) return;
    static const std::pair<std::string_view, const char*> kCounters[] = {
        {"high", "events_high"}, {"max", "events_max"}, {"oom", "events_oom"},
        {"oom_kill", "events_oom_kill"}, {"under_oom", "under_oom"}};
    for (const auto& [name, field] : kCounters)
      if (key == name && (file == "memory.events" || key == "oom_kill" || key == "under_oom")) l.counts.emplace_back(field, *v);
  } else if (file == "cgroup") {
    // v2: `0::/path`; v1: `7:memory:/path` (or a joined `4:cpu,memory:/path`).
    const auto a = body.find(':');
    const auto b = a == std::string_view::npos ? a : body.find(':', a + 1);
    if (b == std::string_view::npos) return;
    const std::string_view controllers = body.substr(a + 1, b - a - 1);
    const std::string_view path = body.substr(b + 1);
    if (controllers.empty() && body.substr(0, a) == "0") {
      if (l.cgroup.empty() || l.version != 1) l.cgroup = std::string(path);
    } else if (text::contains(controllers, "memory")) {
      l.cgroup = std::string(path);
    }
  }
}

std::string size_words(std::int64_t b) {
  if (b >= (std::int64_t{1} << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(b) / (1 << 30));
  if (b >= (std::int64_t{1} << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(b) / (1 << 20));
  return fmt::format("{} B", b);
}

void emit(Listing& l, ParseContext& ctx) {
  if (!l.usage && !l.limit && !l.unlimited) return;  // nothing about its memory
  if (l.cgroup.empty()) {
    std::string_view d = l.dir;
    for (std::string_view root : {"/sys/fs/cgroup/memory", "/sys/fs/cgroup"})
      if (text::starts_with(d, root)) {
        d.remove_prefix(root.size());
        break;
      }
    while (d.size() > 1 && d.back() == '/') d.remove_suffix(1);
    l.cgroup = d.empty() ? "/" : std::string(d);
  }
  core::Event ev = ctx.make_event(l.first_line);
  ev.line_end = ctx.absolute_line_end(l.last_line);
  ev.rule = std::string(core::parser_rule::kCgroupMemory);
  ev.kind = std::string(core::kind::kLog);
  if (l.ts) {
    ev.ts = l.ts;
    ev.ts_raw = l.stamp;
    ev.ts_kind = core::TsKind::wall;
    ev.ts_value = l.ts;
  }
  ev.set("cgroup", l.cgroup);
  if (l.version) ev.set_int("cgroup_version", l.version);
  ev.set_int_if("usage_bytes", l.usage);
  ev.set_int_if("limit_bytes", l.limit);
  if (l.unlimited) ev.set_int("limit_unlimited", 1);
  ev.set_int_if("high_bytes", l.high);
  ev.set_int_if("peak_bytes", l.peak);
  ev.set_int_if("swap_usage_bytes", l.swap_usage);
  ev.set_int_if("swap_limit_bytes", l.swap_limit);
  for (const auto& [k, v] : l.counts) ev.set_int(k, v);
  ev.message = fmt::format("cgroup {}: usage {}, {}", l.cgroup, l.usage ? size_words(*l.usage) : std::string("unknown"),
                           l.limit ? "limit " + size_words(*l.limit) : l.unlimited ? std::string("no limit") : std::string("an unknown limit"));
  ctx.sink->add_event(ev);
}

}  // namespace

void parse_cgroup_memory(std::string_view text, ParseContext& ctx) {
  if (ctx.sink == nullptr) return;
  const auto lines = text::split_lines(text);
  std::optional<Listing> cur;
  sample_stamp::Last stamp;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto seg = static_cast<std::int64_t>(i) + 1;
    const std::string_view line = lines[i];
    if (cgroup_memory::is_listing_header(line)) {
      const std::string_view path = cgroup_memory::header_path(line);
      const auto slash = path.rfind('/');
      const std::string file(slash == std::string_view::npos ? path : path.substr(slash + 1));
      if (cur && (cur->files.count(file) || stamp.above(seg))) {
        emit(*cur, ctx);
        cur.reset();
      }
      if (!cur) {
        cur = Listing{};
        cur->first_line = seg;
        if (stamp.above(seg)) stamp.date(*cur);
      }
      cur->files.insert(file);
      cur->current_file = file;
      if (cgroup_memory::is_memory_header(line) && cur->dir.empty() && slash != std::string_view::npos)
        cur->dir = std::string(path.substr(0, slash));
      cur->last_line = seg;
      continue;
    }
    if (stamp.take(line, seg)) continue;
    if (cur && cgroup_memory::is_body_line(line)) {
      std::string_view body = line;
      if (!body.empty() && body.back() == '\r') body.remove_suffix(1);
      take_value(*cur, cur->current_file, body);
      cur->last_line = seg;
    }
  }
  if (cur) emit(*cur, ctx);
}

}  // namespace culprit::ingest
