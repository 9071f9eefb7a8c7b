// nvidia-smi table row shapes (see smi_rows.hpp). Token checks only, no regex: the sniffer asks
// is_gpu_row / is_process_row at every line that starts with `|`.
#include "ingest/formats/smi_rows.hpp"

#include <algorithm>
#include <vector>

#include "culprit/text/lines.hpp"
#include "ingest/formats/smi_report.hpp"

namespace culprit::ingest::smi_rows {
namespace {

using Sv = std::string_view;
using text::is_digit;
using text::trim;

bool is_uint(Sv s, std::size_t max_digits) {
  if (s.empty() || s.size() > max_digits) return false;
  return std::all_of(s.begin(), s.end(), is_digit);
}

std::vector<Sv> tokens(Sv s) {
  std::vector<Sv> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) out.push_back(s.substr(start, i - start));
  }
  return out;
}

bool is_on_off(Sv t) { return t == "On" || t == "Off" || t == "N/A"; }

/// `112MiB`, `22686MiB`, `N/A` (WSL, WDDM).
bool is_memory(Sv t) {
  if (t == "N/A") return true;
  return t.size() > 3 && t.substr(t.size() - 3) == "MiB" && is_uint(t.substr(0, t.size() - 3), 9);
}

/// The line between its outer `|`s (blanks and a CR trimmed); empty when it is not `|…|`.
Sv inside_bars(Sv line) {
  const Sv t = trim(line);
  if (t.size() < 3 || t.front() != '|' || t.back() != '|') return {};
  return t.substr(1, t.size() - 2);
}

}  // namespace

bool is_type(Sv t) {
  if (t.empty() || t.size() > 5) return false;
  for (std::size_t i = 0; i < t.size(); ++i) {
    if (i % 2 == 0 ? (t[i] != 'C' && t[i] != 'G' && t[i] != 'M') : t[i] != '+') return false;
  }
  return t.size() % 2 == 1;
}

bool is_gpu_row(Sv line) {
  const Sv in = inside_bars(line);
  if (in.empty() || in.size() > 400) return false;
  const std::size_t bar1 = in.find('|');
  if (bar1 == Sv::npos) return false;
  const std::size_t bar2 = in.find('|', bar1 + 1);
  if (bar2 == Sv::npos) return false;
  // First cell: index, name (one token or more), persistence mode.
  const auto first = tokens(in.substr(0, bar1));
  if (first.size() < 3 || !is_uint(first.front(), 3) || !is_on_off(first.back())) return false;
  // Second cell: the bus id, then Disp.A.
  const auto second = tokens(in.substr(bar1 + 1, bar2 - bar1 - 1));
  return second.size() == 2 && !smi_bus_id(second[0]).empty() && is_on_off(second[1]);
}

bool is_process_row(Sv line) {
  const Sv in = inside_bars(line);
  if (in.empty() || in.size() > 400 || in.find('|') != Sv::npos) return false;
  const auto toks = tokens(in);
  // ≤ 440: GPU PID Type [name] memory; 450+: GPU GI CI PID Type [name] memory.
  if (toks.size() < 4 || !is_uint(toks[0], 3) || !is_memory(toks.back())) return false;
  if (is_type(toks[2]) && is_uint(toks[1], 10)) return true;
  const auto id = [](Sv t) { return t == "N/A" || is_uint(t, 3); };
  return toks.size() >= 6 && is_type(toks[4]) && is_uint(toks[3], 10) && id(toks[1]) && id(toks[2]);
}

}  // namespace culprit::ingest::smi_rows
