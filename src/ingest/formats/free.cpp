// `free` output (procps-ng, old procps, busybox; formats.md §6.5) -> one core::HostMemory per
// snapshot (`free -s N` prints several) plus one `log` event each. Columns come from the header
// tokens, never from fixed offsets. Sizes leave in bytes.
//
// Field table (header token -> HostMemory field; the row label picks Mem / Swap):
//   total -> total | used -> used | free -> free | shared -> shared | buff/cache -> buff_cache |
//   buffers + cache/cached -> buff_cache (summed, `-w` and old procps) | available -> available
//   `-/+ buffers/cache:` (old procps) -> used, free of the cache-excluded view (used is replaced)
//   `SwapUse … CachUse … MemUse … MemFree …` (`free -L`) -> swap_used, buff_cache, used, free
//
// Units: a value with a suffix (`1.7Gi`, `500Mi`, `0B`, old `-h` `7.7G`) is read by
// core::parse_size (binary). Bare numbers use the unit named by a `free -m` / `--giga` / … command
// line in the text; without one, the Mem total's magnitude decides (>= 2^33 bytes, >= 2^21 KiB,
// >= 4096 MiB, else GiB) and a `free_unit_guessed` note says so. `--si` turns units decimal.
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "culprit/core/size.hpp"
#include "culprit/ingest/parser.hpp"
#include "ingest/formats/host_memory_fields.hpp"
#include "culprit/text/lines.hpp"

namespace culprit::ingest {
namespace {

std::vector<std::string_view> tokens(std::string_view s) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    std::size_t j = i;
    while (j < s.size() && s[j] != ' ' && s[j] != '\t') ++j;
    if (j > i) out.push_back(s.substr(i, j - i));
    i = j;
  }
  return out;
}

/// Unit for bare numbers, from a `free …` command line in the text (0: not named).
struct UnitHint {
  std::int64_t unit = 0;
  bool si = false;
};

UnitHint unit_from_command(std::string_view line) {
  UnitHint h;
  auto toks = tokens(line);
  bool seen_free = false;
  for (auto t : toks) {
    if (!seen_free) {
      // `free`, `/usr/bin/free`, `"free`, `&& free`, `'free`
      while (!t.empty() && (t.front() == '"' || t.front() == '\'')) t.remove_prefix(1);
      if (t == "free" || (t.size() > 5 && t.substr(t.size() - 5) == "/free")) seen_free = true;
      continue;
    }
    while (!t.empty() && (t.back() == '"' || t.back() == '\'' || t.back() == ';')) t.remove_suffix(1);
    if (t == "&&" || t == "|" || t == ";" || t == "||") break;
    if (t == "--si") h.si = true;
    else if (t == "--bytes") h.unit = 1;
    else if (t == "--kibi") h.unit = 1024;
    else if (t == "--mebi") h.unit = 1024LL << 10;
    else if (t == "--gibi") h.unit = 1024LL << 20;
    else if (t == "--tebi") h.unit = 1024LL << 30;
    else if (t == "--kilo") h.unit = 1000;
    else if (t == "--mega") h.unit = 1000000;
    else if (t == "--giga") h.unit = 1000000000;
    else if (t == "--tera") h.unit = 1000000000000LL;
    else if (t.size() >= 2 && t[0] == '-' && t[1] != '-') {
      for (char c : t.substr(1)) {
        if (c == 'b') h.unit = 1;
        else if (c == 'k') h.unit = 1024;
        else if (c == 'm') h.unit = 1024LL << 10;
        else if (c == 'g') h.unit = 1024LL << 20;
      }
    }
  }
  if (!seen_free) return UnitHint{};
  if (h.si && h.unit == 0) h.unit = 1000;  // `free --si` alone prints kB
  return h;
}

bool is_header(const std::vector<std::string_view>& toks) {
  if (toks.empty() || toks[0].back() == ':') return false;
  bool total = false, used = false;
  for (auto t : toks) {
    total = total || t == "total";
    used = used || t == "used" || t == "free";
  }
  return total && used && toks.size() <= 10;
}

bool has_suffix(std::string_view v) { return !v.empty() && std::isalpha(static_cast<unsigned char>(v.back())); }

struct Row {
  std::string label;
  std::vector<std::string_view> values;
  std::int64_t seg_line = 0;
  std::string_view text;
};

struct Snapshot {
  std::vector<std::string_view> cols;
  std::int64_t header_line = 0, last_line = 0;
  std::vector<Row> rows;
  bool line_format = false;  // `free -L`
};

class FreeParser {
 public:
  explicit FreeParser(ParseContext& ctx) : ctx_(ctx) {}

  void run(std::string_view text) {
    auto lines = text::split_lines(text);
    for (auto l : lines)
      if (auto h = unit_from_command(l); h.unit != 0 || h.si) hint_ = h;
    std::optional<Snapshot> cur;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      std::int64_t seg = static_cast<std::int64_t>(i) + 1;
      std::string clean = text::has_ansi(lines[i]) ? text::strip_ansi(lines[i]) : std::string(lines[i]);
      std::string_view line = text::trim(clean);
      auto toks = tokens(line);
      if (is_header(toks)) {
        if (cur) emit(*cur);
        cur = Snapshot{};
        cur->header_line = cur->last_line = seg;
        owned_.push_back(std::move(clean));  // the column names point into it
        cur->cols = tokens(owned_.back());
        continue;
      }
      if (!toks.empty() && toks[0] == "SwapUse") {  // free -L: one line per snapshot
        if (cur) emit(*cur);
        owned_.push_back(std::move(clean));
        Snapshot s;
        s.line_format = true;
        s.header_line = s.last_line = seg;
        Row r;
        r.seg_line = seg;
        r.text = owned_.back();
        r.values = tokens(owned_.back());
        s.rows.push_back(r);
        emit(s);
        cur.reset();
        continue;
      }
      if (!cur) continue;
      std::size_t colon = line.find(':');
      if (line.empty() || colon == std::string_view::npos || colon > 24) {
        emit(*cur);  // a blank line (free -s) or other text ends the snapshot
        cur.reset();
        continue;
      }
      owned_.push_back(std::move(clean));
      std::string_view stored = text::trim(owned_.back());
      Row r;
      r.label = std::string(text::trim(stored.substr(0, colon)));
      r.values = tokens(stored.substr(colon + 1));
      r.seg_line = seg;
      r.text = stored;
      cur->rows.push_back(std::move(r));
      cur->last_line = seg;
    }
    if (cur) emit(*cur);
  }

 private:
  /// Bytes for one printed value; `unit` applies to bare numbers.
  std::optional<std::int64_t> bytes(std::string_view v, std::int64_t unit) const {
    if (has_suffix(v)) {
      if (hint_.si) {  // decimal suffixes: 1.7G = 1.7e9
        std::size_t j = v.size();
        while (j > 0 && std::isalpha(static_cast<unsigned char>(v[j - 1]))) --j;
        std::string_view suf = v.substr(j);
        double mult = suf == "B" ? 1 : suf == "K" || suf == "k" ? 1e3 : suf == "M" ? 1e6 : suf == "G" ? 1e9 : suf == "T" ? 1e12 : 0;
        std::string num(v.substr(0, j));
        char* end = nullptr;
        double base = std::strtod(num.c_str(), &end);
        if (mult > 0 && end != num.c_str() && *end == '\0') return static_cast<std::int64_t>(std::llround(base * mult));
      }
      return core::parse_size(v);
    }
    return core::parse_size(v, unit);
  }

  void emit(const Snapshot& s) {
    if (s.rows.empty()) return;
    core::HostMemory mem;
    mem.source_id = ctx_.source_id;
    mem.host = ctx_.host;
    core::Event ev = ctx_.make_event(s.header_line);
    ev.line_end = ctx_.absolute_line_end(s.last_line);
    ev.rule = "free";
    ev.kind = std::string(core::kind::kLog);

    // Unit for bare numbers: the command line, else the Mem total's magnitude.
    std::int64_t unit = hint_.unit;
    bool guessed = false;
    bool any_bare = false;
    std::optional<double> mem_total_raw;
    for (const auto& r : s.rows)
      for (auto v : r.values)
        if (!has_suffix(v) && core::parse_size(v, 1)) any_bare = true;
    if (unit == 0 && any_bare) {
      for (const auto& r : s.rows)
        if (r.label == "Mem" && !r.values.empty()) mem_total_raw = static_cast<double>(core::parse_size(r.values[0], 1).value_or(0));
      double t = mem_total_raw.value_or(0);
      unit = t >= 8589934592.0 ? 1 : t >= 2097152.0 ? 1024 : t >= 4096.0 ? (1024LL << 10) : (1024LL << 20);
      guessed = mem_total_raw.has_value() && unit != 1024;
      if (guessed && !noted_) {
        ctx_.note("free_unit_guessed", s.header_line,
                  "free: no unit printed and no `free -m/-g/-b` command seen; unit inferred from the Mem total");
        noted_ = true;
      }
    }
    if (unit == 0) unit = 1024;

    std::int64_t mem_line = s.header_line;
    if (s.line_format) {  // SwapUse x CachUse x MemUse x MemFree x
      const auto& v = s.rows[0].values;
      for (std::size_t k = 0; k + 1 < v.size(); k += 2) {
        auto b = bytes(v[k + 1], unit);
        if (v[k] == "SwapUse") mem.swap_used = b;
        else if (v[k] == "CachUse") mem.buff_cache = b;
        else if (v[k] == "MemUse") mem.used = b;
        else if (v[k] == "MemFree") mem.free = b;
      }
      ev.message = std::string(s.rows[0].text);
    }
    for (const auto& r : s.rows) {
      if (s.line_format) break;
      auto col = [&](std::string_view name) -> std::optional<std::int64_t> {
        for (std::size_t k = 0; k < s.cols.size() && k < r.values.size(); ++k)
          if (s.cols[k] == name) return bytes(r.values[k], unit);
        return std::nullopt;
      };
      if (r.label == "Mem") {
        mem_line = r.seg_line;
        ev.message = std::string(r.text);
        mem.total = col("total");
        mem.used = col("used");
        mem.free = col("free");
        mem.shared = col("shared");
        mem.available = col("available");
        mem.buff_cache = col("buff/cache");
        if (!mem.buff_cache) {
          auto b = col("buffers");
          auto c = col("cache");
          if (!c) c = col("cached");
          if (b || c) mem.buff_cache = b.value_or(0) + c.value_or(0);
        }
      } else if (r.label.rfind("-/+", 0) == 0) {
        // Old procps: used/free without buffers and cache (the modern meaning of `used`).
        if (mem.used) ev.set_int("mem_used_incl_cache_bytes", *mem.used);
        if (r.values.size() >= 1) mem.used = bytes(r.values[0], unit);
        if (r.values.size() >= 2) ev.set_int("mem_free_incl_cache_bytes", bytes(r.values[1], unit).value_or(0));
      } else if (r.label == "Swap") {
        mem.swap_total = col("total");
        mem.swap_used = col("used");
        mem.swap_free = col("free");
      } else if (r.label == "Total") {
        if (auto t = col("total")) ev.set_int("total_total_bytes", *t);
      }
    }
    mem.line = ctx_.absolute_line(mem_line);
    ctx_.sink->add_host_memory(mem);

    set_host_memory_fields(ev, mem);
    ev.set_int("unit_bytes", unit);
    if (guessed) ev.set_int("unit_guessed", 1);
    ev.set_int("snapshot", ++snapshots_);
    if (ev.message.empty()) ev.message = "free";
    ctx_.sink->add_event(ev);
  }

  ParseContext& ctx_;
  UnitHint hint_;
  bool noted_ = false;
  std::int64_t snapshots_ = 0;
  std::deque<std::string> owned_;  // cleaned lines the snapshot views point into (stable)
};

}  // namespace

void parse_free(std::string_view text, ParseContext& ctx) {
  if (ctx.sink == nullptr) return;
  FreeParser(ctx).run(text);
}

}  // namespace culprit::ingest
