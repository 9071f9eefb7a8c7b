// TEMPORARY (wt-gpu): a minimal text::SignalSet (no prefilter) so ingest tests can run signals
// before the text module lands on main. Delete this file when merging main.
#include "culprit/text/signal_set.hpp"

namespace culprit::text {

void SignalSet::add(Signal signal) { signals_.push_back(std::move(signal)); }

void SignalSet::build() {}

bool SignalSet::applies(const Signal& signal, std::string_view line, std::string_view format) const {
  if (!signal.formats.empty()) {
    bool any = false;
    for (const auto& f : signal.formats) any = any || f == format;
    if (!any) return false;
  }
  if (prefilter_ && !signal.literals.empty()) {
    bool any = false;
    for (const auto& lit : signal.literals) any = any || line.find(lit) != std::string_view::npos;
    if (!any) return false;
  }
  return true;
}

std::vector<SignalMatch> SignalSet::match(std::string_view line, std::string_view format) const {
  std::vector<SignalMatch> out;
  for (const auto& s : signals_) {
    if (!s.pattern || !applies(s, line, format)) continue;
    SignalMatch m;
    m.signal = &s;
    if (s.pattern->match(line, m.captures)) out.push_back(std::move(m));
  }
  return out;
}

bool SignalSet::candidate(std::string_view line) const {
  for (const auto& s : signals_) {
    if (s.literals.empty()) return true;
    for (const auto& lit : s.literals)
      if (line.find(lit) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace culprit::text
