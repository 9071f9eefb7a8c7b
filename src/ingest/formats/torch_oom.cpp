// PyTorch allocator OOM message parsing (formats.md §3.1.1–3.1.3). Anchors are searched
// independently, not as one sequence, so every generation, the 2.1 `capacty` typo, optional
// clauses and messages cut short all yield whatever figures they still hold.
#include "ingest/formats/torch_oom.hpp"

#include <charconv>
#include <cmath>

#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"

namespace culprit::ingest {

namespace {

using Sv = std::string_view;

constexpr Sv kAnchor = " out of memory. Tried to allocate ";

using text::is_digit;

// `<number> <unit>` at s[i] (unit bytes|KiB|MiB|GiB|TiB, PyTorch's format_size); advances i.
// The value is nullopt-with-ok for sizes ≥ 1 PiB (NVML "not available").
struct SizeRead {
  bool ok = false;
  std::optional<std::int64_t> bytes;
};

SizeRead read_size(Sv s, std::size_t& i) {
  SizeRead r;
  std::size_t j = i;
  while (j < s.size() && is_digit(s[j])) ++j;
  if (j == i) return r;
  if (j + 1 < s.size() && s[j] == '.' && is_digit(s[j + 1])) {
    ++j;
    while (j < s.size() && is_digit(s[j])) ++j;
  }
  double v = 0;
  if (std::from_chars(s.data() + i, s.data() + j, v).ec != std::errc()) return r;
  if (j >= s.size() || s[j] != ' ') return r;
  ++j;
  double mult = 0;
  std::size_t len = 0;
  const Sv rest = s.substr(j);
  if (rest.substr(0, 5) == "bytes") mult = 1, len = 5;
  else if (rest.substr(0, 3) == "KiB") mult = 1024.0, len = 3;
  else if (rest.substr(0, 3) == "MiB") mult = 1048576.0, len = 3;
  else if (rest.substr(0, 3) == "GiB") mult = 1073741824.0, len = 3;
  else if (rest.substr(0, 3) == "TiB") mult = 1099511627776.0, len = 3;
  else return r;
  const double bytes = v * mult;
  r.ok = true;
  if (bytes < kUnknownSizeBytes) r.bytes = static_cast<std::int64_t>(std::llround(bytes));
  i = j + len;
  return r;
}

// The size right after `anchor` (first occurrence at or after `from`).
std::optional<std::int64_t> size_after(Sv s, Sv anchor, std::size_t from = 0) {
  const std::size_t pos = s.find(anchor, from);
  if (pos == Sv::npos) return std::nullopt;
  std::size_t i = pos + anchor.size();
  return read_size(s, i).bytes;
}

// The size that ends right before `anchor` (`<sz> total capacity`), within one `; `-item.
std::optional<std::int64_t> size_before(Sv item, Sv label) {
  if (item.size() <= label.size() || item.substr(item.size() - label.size()) != label)
    return std::nullopt;
  std::size_t i = 0;
  auto r = read_size(item, i);
  if (!r.ok || i + label.size() != item.size()) return std::nullopt;
  return r.bytes;
}

/// The number of up to six digits at `s[i]` (a GPU index); nullopt when no digit is there.
std::optional<int> number_at(Sv s, std::size_t i) {
  int v = 0;
  const std::size_t start = i;
  while (i < s.size() && is_digit(s[i]) && i - start < 6) v = v * 10 + (s[i++] - '0');
  if (i == start) return std::nullopt;
  return v;
}

/// The body of a 2.1+ message whose head (`CUDA out of memory. `) was cut or elided, as people
/// quote it: the line opens — after blanks and an elision mark `...` / `…` — with `Tried to
/// allocate <sz>. GPU <n> has a total capacit`. The offset of its `Tried to allocate `, or npos.
/// Anchored at the line's start, so prose that mentions an allocation is not it, and a whole
/// message (head and all) stays the anchor's.
std::size_t headless_start(Sv m) {
  constexpr Sv kHeadless = "Tried to allocate ";
  std::size_t i = 0;
  while (i < m.size() && (m[i] == ' ' || m[i] == '\t')) ++i;
  constexpr Sv kDots = "...", kEllipsis = "\u2026";  // the ellipsis is 3 bytes of UTF-8
  if (m.substr(i, kDots.size()) == kDots) i += kDots.size();
  else if (m.substr(i, kEllipsis.size()) == kEllipsis) i += kEllipsis.size();
  while (i < m.size() && m[i] == ' ') ++i;
  if (m.substr(i, kHeadless.size()) != kHeadless) return Sv::npos;
  std::size_t k = i + kHeadless.size();
  if (!read_size(m, k).ok || m.substr(k, 6) != ". GPU ") return Sv::npos;
  const std::size_t has = m.find(" has a total capac", k + 6);
  return has != Sv::npos && has <= k + 6 + 10 ? i : Sv::npos;  // the GPU index: at most 10 digits
}

}  // namespace

bool is_torch_oom(std::string_view message) {
  return message.find(kAnchor) != Sv::npos || headless_start(message) != Sv::npos;
}

std::optional<TorchOom> parse_torch_oom(std::string_view message) {
  const std::size_t anchor = message.find(kAnchor);
  TorchOom oom;
  Sv s;
  if (anchor != Sv::npos) {
    std::size_t b = anchor;
    while (b > 0 && message[b - 1] >= 'A' && message[b - 1] <= 'Z') --b;
    oom.device = std::string(message.substr(b, anchor - b));
    s = message.substr(anchor + kAnchor.size());
  } else if (const std::size_t h = headless_start(message); h != Sv::npos) {
    s = message.substr(h + 18);  // after `Tried to allocate `; the device is not said
  } else {
    return std::nullopt;
  }
  std::size_t i = 0;
  oom.requested = read_size(s, i).bytes;
  const Sv tail = s.substr(i);

  if (tail.substr(0, 6) == " (GPU ") {
    // 1.0 – 2.0: `(GPU 4; 31.75 GiB total capacity; 30.29 GiB already allocated; 3.75 MiB free;
    // [4.00 GiB allowed; ]30.40 GiB reserved in total by PyTorch)` — 1.0–1.3 say `cached`.
    oom.gpu = number_at(tail, 6);
    const std::size_t close = tail.find(')');
    Sv list = tail.substr(1, close == Sv::npos ? Sv::npos : close - 1);
    std::size_t start = 0;
    while (start < list.size()) {
      std::size_t semi = list.find(';', start);
      Sv item = list.substr(start, semi == Sv::npos ? Sv::npos : semi - start);
      while (!item.empty() && item.front() == ' ') item.remove_prefix(1);
      while (!item.empty() && item.back() == ' ') item.remove_suffix(1);
      if (auto v = size_before(item, " total capacity")) oom.total = v;
      else if (auto v2 = size_before(item, " already allocated")) oom.allocated = v2;
      else if (auto v3 = size_before(item, " free")) oom.free = v3;
      else if (auto v4 = size_before(item, " allowed")) oom.allowed = v4;
      else if (auto v5 = size_before(item, " reserved in total by PyTorch")) oom.reserved = v5;
      else if (auto v6 = size_before(item, " cached")) oom.reserved = v6;
      if (semi == Sv::npos) break;
      start = semi + 1;
    }
    return oom;
  }

  // 2.1+: `. GPU 0 has a total capacity of 14.75 GiB of which 11.06 MiB is free. Process 3258 has
  // 14.73 GiB memory in use. Including non-PyTorch memory, this process has … memory in use.
  // [<sz> allowed; ]Of the allocated memory <sz> is allocated by PyTorch, [with <sz> allocated in
  // private pools (e.g., CUDA Graphs), ]and <sz> is reserved by PyTorch but unallocated.`
  if (tail.substr(0, 6) == ". GPU ") oom.gpu = number_at(tail, 6);
  if (auto v = size_after(tail, "has a total capacity of ")) oom.total = v;
  else if (auto v2 = size_after(tail, "has a total capacty of ")) oom.total = v2;
  if (const std::size_t w = tail.find(" of which "); w != Sv::npos) {
    std::size_t k = w + 10;
    auto r = read_size(tail, k);
    if (r.ok && tail.substr(k, 8) == " is free") oom.free = r.bytes;
  }
  for (std::size_t pos = tail.find("Process "); pos != Sv::npos;
       pos = tail.find("Process ", pos + 8)) {
    std::size_t k = pos + 8;
    std::int64_t pid = 0;
    const std::size_t start = k;
    while (k < tail.size() && is_digit(tail[k]) && k - start < 10) pid = pid * 10 + (tail[k++] - '0');
    if (k == start || tail.substr(k, 5) != " has ") continue;
    k += 5;
    auto r = read_size(tail, k);
    if (!r.ok || tail.substr(k, 14) != " memory in use") continue;
    oom.processes.push_back(TorchOomProcess{pid, r.bytes});
  }
  if (const std::size_t p = tail.find("this process has "); p != Sv::npos) {
    std::size_t k = p + 17;
    auto r = read_size(tail, k);
    if (r.ok) {
      oom.self_listed = true;
      oom.self = r.bytes;
    }
  }
  if (const std::size_t a = tail.find(" allowed; "); a != Sv::npos) {
    // the size just before: scan back over `<num> <unit>`
    std::size_t b = a;
    int spaces = 0;
    while (b > 0 && (tail[b - 1] != ' ' || ++spaces < 2)) --b;
    std::size_t k = b;
    auto r = read_size(tail, k);
    if (r.ok && k == a) oom.allowed = r.bytes;
  }
  oom.allocated = size_after(tail, "Of the allocated memory ");
  oom.private_pools = size_after(tail, "by PyTorch, with ");
  if (const std::size_t a = tail.find("is allocated by PyTorch, "); a != Sv::npos) {
    for (std::size_t pos = tail.find("and ", a); pos != Sv::npos; pos = tail.find("and ", pos + 4)) {
      std::size_t k = pos + 4;
      auto r = read_size(tail, k);
      if (r.ok && tail.substr(k, 33) == " is reserved by PyTorch but unall") {
        oom.reserved_unallocated = r.bytes;
        break;
      }
    }
  }
  if (oom.allocated && oom.reserved_unallocated) oom.reserved = *oom.allocated + *oom.reserved_unallocated;
  return oom;
}

void set_torch_oom_fields(const TorchOom& oom, core::Event& e) {
  if (!oom.device.empty()) e.set("oom_device", oom.device);
  if (oom.gpu) e.set_int("gpu", *oom.gpu);
  e.set_int_if("requested_bytes", oom.requested);
  e.set_int_if("total_bytes", oom.total);
  e.set_int_if("free_bytes", oom.free);
  if (oom.total && oom.free) e.set_int("used_bytes", *oom.total - *oom.free);
  e.set_int_if("allocated_bytes", oom.allocated);
  e.set_int_if("reserved_bytes", oom.reserved);
  e.set_int_if("reserved_unallocated_bytes", oom.reserved_unallocated);
  e.set_int_if("private_pool_bytes", oom.private_pools);
  e.set_int_if("allowed_bytes", oom.allowed);
  e.set_int_if("self_bytes", oom.self);
  if (!oom.processes.empty()) {
    e.set_int("processes", static_cast<std::int64_t>(oom.processes.size()));
    for (const auto& p : oom.processes)
      if (p.bytes) e.set_int("proc_" + std::to_string(p.pid) + "_bytes", *p.bytes);
  }
}

std::optional<core::GpuSnapshot> torch_oom_snapshot(const TorchOom& oom, const core::Event& e) {
  if (!oom.gpu) return std::nullopt;
  if (!oom.total && !oom.free && oom.processes.empty() && !oom.self_listed) return std::nullopt;
  core::GpuSnapshot snap;
  snap.source_id = e.source_id;
  snap.line = e.line;
  snap.host = e.host;
  snap.ts = e.ts;
  snap.ts_raw = e.ts_raw;
  snap.gpu = *oom.gpu;
  snap.mem_total = oom.total;
  if (oom.total && oom.free) snap.mem_used = *oom.total - *oom.free;
  bool self_in_list = false;
  for (const auto& p : oom.processes) {
    core::GpuProcess gp;
    gp.pid = p.pid;
    gp.mem_used = p.bytes;
    gp.gpu = oom.gpu;
    snap.processes.push_back(gp);
    self_in_list = self_in_list || (e.pid && *e.pid == p.pid);
  }
  if (oom.self_listed && e.pid && !self_in_list) {
    core::GpuProcess gp;
    gp.pid = *e.pid;
    gp.mem_used = oom.self;
    gp.gpu = oom.gpu;
    snap.processes.push_back(gp);
  }
  return snap;
}

void report_torch_oom(const TorchOom& oom, const core::Event& e, ParseContext& ctx,
                      std::set<std::tuple<std::string, std::int64_t, bool>>* reported) {
  if (!ctx.sink) return;
  if (auto snap = torch_oom_snapshot(oom, e)) ctx.sink->add_gpu_snapshot(*snap);
  auto first = [&](std::int64_t pid, bool job) {
    return !reported || reported->emplace(e.host, pid, job).second;
  };
  if (e.pid && first(*e.pid, true)) {
    core::ProcessSighting s;
    s.host = e.host;
    s.pid = *e.pid;
    s.ts = e.ts;
    s.job = true;
    s.evidence = "raised the CUDA OOM";
    ctx.sink->add_process(s);
  }
  for (const auto& p : oom.processes) {
    if ((e.pid && *e.pid == p.pid) || !first(p.pid, false)) continue;
    core::ProcessSighting s;
    s.host = e.host;
    s.pid = p.pid;
    s.ts = e.ts;
    s.job = false;
    s.evidence = "listed in the CUDA OOM message";
    ctx.sink->add_process(s);
  }
}

}  // namespace culprit::ingest
