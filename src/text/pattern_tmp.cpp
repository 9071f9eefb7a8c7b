// TEMPORARY (wt-gpu): a minimal text::Pattern over RE2 so ingest tests can build a SignalSet
// before the text module lands on main. Delete this file when merging main.
#include <re2/re2.h>

#include "culprit/text/pattern.hpp"

namespace culprit::text {

Pattern::Pattern(std::string_view regex) : source_(regex) {
  RE2::Options opts;
  opts.set_log_errors(false);
  re_ = std::make_unique<re2::RE2>(re2::StringPiece(regex.data(), regex.size()), opts);
  if (!re_->ok()) {
    error_ = re_->error();
    return;
  }
  names_.assign(static_cast<std::size_t>(re_->NumberOfCapturingGroups()), std::string());
  for (const auto& [name, index] : re_->NamedCapturingGroups())
    if (index >= 1 && static_cast<std::size_t>(index) <= names_.size()) names_[index - 1] = name;
}

Pattern::~Pattern() = default;
Pattern::Pattern(Pattern&&) noexcept = default;
Pattern& Pattern::operator=(Pattern&&) noexcept = default;

bool Pattern::ok() const { return re_ && re_->ok(); }

bool Pattern::matches(std::string_view text) const {
  if (!ok()) return false;
  return RE2::PartialMatch(re2::StringPiece(text.data(), text.size()), *re_);
}

bool Pattern::match(std::string_view text, std::vector<Capture>& captures) const {
  captures.clear();
  if (!ok()) return false;
  const int n = re_->NumberOfCapturingGroups();
  std::vector<re2::StringPiece> groups(static_cast<std::size_t>(n) + 1);
  re2::StringPiece input(text.data(), text.size());
  if (!re_->Match(input, 0, input.size(), RE2::UNANCHORED, groups.data(), n + 1)) return false;
  for (int i = 1; i <= n; ++i) {
    const std::string& name = names_[static_cast<std::size_t>(i - 1)];
    if (name.empty() || groups[static_cast<std::size_t>(i)].data() == nullptr) continue;
    captures.push_back(Capture{name, std::string(groups[static_cast<std::size_t>(i)])});
  }
  return true;
}

}  // namespace culprit::text
