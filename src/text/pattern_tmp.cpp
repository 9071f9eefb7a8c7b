// TEMPORARY (wt-kernel): stand-in for the text module's pattern.cpp / signal_set.cpp so ingest
// tests link. Delete after merging main once the real ones land.
#include <re2/re2.h>

#include "culprit/text/pattern.hpp"
#include "culprit/text/signal_set.hpp"

namespace culprit::text {

Pattern::Pattern(std::string_view regex) : source_(regex) {
  RE2::Options opts;
  opts.set_log_errors(false);
  re_ = std::make_unique<re2::RE2>(re2::StringPiece(regex.data(), regex.size()), opts);
  if (!re_->ok()) { error_ = re_->error(); return; }
  names_.assign(static_cast<std::size_t>(re_->NumberOfCapturingGroups()), std::string());
  for (const auto& [name, idx] : re_->NamedCapturingGroups()) names_[static_cast<std::size_t>(idx - 1)] = name;
}
Pattern::~Pattern() = default;
Pattern::Pattern(Pattern&&) noexcept = default;
Pattern& Pattern::operator=(Pattern&&) noexcept = default;

bool Pattern::ok() const { return re_ && re_->ok(); }

bool Pattern::matches(std::string_view text) const {
  return ok() && RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

bool Pattern::match(std::string_view text, std::vector<Capture>& captures) const {
  captures.clear();
  if (!ok()) return false;
  int n = re_->NumberOfCapturingGroups();
  std::vector<re2::StringPiece> groups(static_cast<std::size_t>(n) + 1);
  if (!re_->Match(re2::StringPiece(text.data(), text.size()), 0, text.size(), RE2::UNANCHORED, groups.data(),
                  n + 1))
    return false;
  for (int i = 1; i <= n; ++i) {
    const auto& name = names_[static_cast<std::size_t>(i - 1)];
    if (name.empty() || groups[static_cast<std::size_t>(i)].data() == nullptr) continue;
    captures.push_back(Capture{name, std::string(groups[static_cast<std::size_t>(i)])});
  }
  return true;
}

void SignalSet::add(Signal signal) { signals_.push_back(std::move(signal)); }
void SignalSet::build() {}

bool SignalSet::applies(const Signal& signal, std::string_view line, std::string_view format) const {
  if (!signal.formats.empty()) {
    bool ok = false;
    for (const auto& f : signal.formats) ok = ok || f == format;
    if (!ok) return false;
  }
  if (prefilter_ && !signal.literals.empty()) {
    bool any = false;
    for (const auto& l : signal.literals) any = any || line.find(l) != std::string_view::npos;
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
    for (const auto& l : s.literals)
      if (line.find(l) != std::string_view::npos) return true;
  }
  return false;
}

}  // namespace culprit::text
