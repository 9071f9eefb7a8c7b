// MemInfo: the figures of a kernel OOM report's `Mem-Info:` dump (formats.md §1.5) that tell
// where the memory went — unreclaimable slab and shmem, each zone's free memory against its
// watermarks, the zones with buddy free lists, hugepages set aside. Why: a host OOM with little
// task RSS is explained by these (a slab leak, a tmpfs, hugepages), and a zone under its `min`
// watermark is the one the allocation failed in.
//
// Field table (line -> what is read; pages are multiplied by the report's page size on emit):
//   ` slab_reclaimable:872 slab_unreclaimable:4769`   slab_unreclaimable (pages)
//   ` mapped:833 shmem:49252 pagetables:930`          shmem (pages)
//   `Node 0 Normal free:20564kB [boost:0kB ]min:16524kB low:20652kB high:…`  zone, free, min, low (kB)
//   `Normal free:…` (3.10 without `Node`)               the same
//   `Node 0 Normal: 489*4kB (UE) … = 20564kB`           zone with a buddy free list
//   `Node 0 hugepages_total=2 … hugepages_size=1048576kB`  hugepages per size (summed over nodes)
// The global counter record may come as one line with rsyslog's `#012` for its newlines.
#include <algorithm>
#include <cctype>

#include "culprit/core/size.hpp"
#include "kernel_oom_report.hpp"

namespace culprit::ingest::kernel {
namespace {

bool is_zone_name(std::string_view w) {
  return w == "DMA" || w == "DMA32" || w == "Normal" || w == "HighMem" || w == "Movable" || w == "Device";
}

std::string_view next_word(std::string_view s, std::size_t& i) {
  while (i < s.size() && s[i] == ' ') ++i;
  std::size_t j = i;
  while (j < s.size() && s[j] != ' ') ++j;
  std::string_view w = s.substr(i, j - i);
  i = j;
  return w;
}

/// `key:<n>kB` in `s` (the first after a space or at the start) -> n.
std::optional<std::int64_t> kb_value(std::string_view s, std::string_view key) {
  std::size_t p = 0;
  while ((p = s.find(key, p)) != std::string_view::npos) {
    if (p == 0 || s[p - 1] == ' ') {
      std::string_view v = s.substr(p + key.size());
      std::size_t e = 0;
      while (e < v.size() && std::isdigit(static_cast<unsigned char>(v[e]))) ++e;
      if (e > 0) return parse_number(v.substr(0, e));
      return std::nullopt;
    }
    p += key.size();
  }
  return std::nullopt;
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

}  // namespace

bool MemInfo::feed(std::string_view t) {
  std::size_t i = 0;
  std::string_view first = next_word(t, i);
  if (first.empty()) return false;
  std::string name;
  if (first == "Node") {
    std::string_view node = next_word(t, i);
    std::size_t k = i;
    std::string_view word = next_word(t, k);
    if (node.empty() || !std::isdigit(static_cast<unsigned char>(node[0]))) return false;
    if (word.rfind("hugepages_total=", 0) == 0) {
      auto total = parse_number(word.substr(16));
      std::size_t s = t.find("hugepages_size=");
      auto size = s == std::string_view::npos ? std::nullopt : parse_number(t.substr(s + 15));
      if (!total || !size) return false;
      auto it = std::find_if(hugepages_.begin(), hugepages_.end(), [&](auto& h) { return h.first == *size; });
      if (it == hugepages_.end()) hugepages_.emplace_back(*size, *total);
      else it->second += *total;
      return true;
    }
    bool buddy = !word.empty() && word.back() == ':' && is_zone_name(word.substr(0, word.size() - 1));
    if (buddy) {
      std::string zone = "Node " + std::string(node) + " " + std::string(word.substr(0, word.size() - 1));
      if (std::find(buddy_zones_.begin(), buddy_zones_.end(), zone) == buddy_zones_.end()) buddy_zones_.push_back(zone);
      return true;
    }
    if (!is_zone_name(word)) return false;
    name = "Node " + std::string(node) + " " + std::string(word);
    i = k;
  } else if (is_zone_name(first)) {
    name = std::string(first);
  } else {
    // The global counters: `key:<pages>` words (rsyslog may have joined the record with #012).
    std::string line;
    for (std::size_t from = 0;;) {
      const std::size_t p = t.find("#012", from);
      line.append(t, from, p == std::string_view::npos ? std::string_view::npos : p - from);
      if (p == std::string_view::npos) break;
      line += ' ';
      from = p + 4;
    }
    std::string_view l(line);
    std::size_t colon = first.find(':');
    if (colon == std::string_view::npos || colon == 0 || colon + 1 >= first.size() ||
        !std::isdigit(static_cast<unsigned char>(first[colon + 1])))
      return false;
    for (char c : first.substr(0, colon))
      if (!(std::islower(static_cast<unsigned char>(c)) || c == '_')) return false;
    if (auto v = kb_value(l, "slab_unreclaimable:")) slab_unreclaimable_pages_ = v;
    if (auto v = kb_value(l, "shmem:")) shmem_pages_ = v;
    return true;
  }
  std::string_view rest = t.substr(i);
  if (!rest.starts_with(" free:") && !rest.starts_with("free:")) return false;
  Zone z;
  z.name = name;
  z.free_kb = kb_value(rest, "free:");
  z.min_kb = kb_value(rest, "min:");
  z.low_kb = kb_value(rest, "low:");
  if (!z.free_kb) return false;
  zones_.push_back(std::move(z));
  return true;
}

void MemInfo::emit(core::Event& ev, std::int64_t page_size) const {
  if (slab_unreclaimable_pages_)
    if (auto b = core::scale_bytes(*slab_unreclaimable_pages_, page_size)) ev.set_int("slab_unreclaimable_bytes", *b);
  if (shmem_pages_)
    if (auto b = core::scale_bytes(*shmem_pages_, page_size)) ev.set_int("shmem_bytes", *b);
  std::vector<std::string> names, below_min, below_low;
  for (const auto& z : zones_) {
    names.push_back(z.name);
    if (z.min_kb && *z.free_kb < *z.min_kb) below_min.push_back(z.name);
    else if (z.low_kb && *z.free_kb < *z.low_kb) below_low.push_back(z.name);
  }
  if (!names.empty()) ev.set("zones", join(names));
  if (!below_min.empty()) ev.set("zones_below_min", join(below_min));
  if (!below_low.empty()) ev.set("zones_below_low", join(below_low));
  if (!buddy_zones_.empty()) ev.set("buddy_zones", join(buddy_zones_));
  for (const auto& [size, total] : hugepages_) ev.set_int("hugepages_" + std::to_string(size) + "kB_total", total);
}

}  // namespace culprit::ingest::kernel
