// Pattern: one RE2 with its named groups. Construction never throws (RE2 reports errors as values
// and log_errors is off, so a bad user rule prints nothing on its own). matches() says yes or no;
// match() captures, and says no for the same price: RE2 runs its DFA over the text before it
// captures, so a caller that wants the captures of a match calls match() alone.
#include "culprit/text/pattern.hpp"

#include <re2/re2.h>

#include <atomic>
#include <mutex>

#include "group_names.hpp"

namespace culprit::text {

namespace {

re2::StringPiece piece(std::string_view s) { return re2::StringPiece(s.data(), s.size()); }

}  // namespace

/// The RE2 and its group names, built once.
struct Pattern::Compiled {
  std::once_flag once;
  /// Set once `once` has built it: asked first, as std::call_once sets thread-local state and
  /// calls into pthread_once each time (~450 instructions a match of a signal's pattern).
  std::atomic<bool> built{false};
  std::unique_ptr<re2::RE2> re;
  std::string error;
  std::vector<std::string> names;  // by group index (1-based groups at [i-1]); empty if unnamed

  void build(const std::string& regex) {
    RE2::Options options;
    options.set_log_errors(false);
    // Logs are bytes, not always UTF-8: in Latin-1 mode every byte is a character, so `.` and
    // `[^,]` step over invalid UTF-8 and a UTF-8 literal in a pattern still matches byte for byte.
    options.set_encoding(RE2::Options::EncodingLatin1);
    options.set_max_mem(kPatternMemoryBytes);
    // The groups unnamed (group_names.hpp), where RE2 counts them as this reading did; else the
    // pattern as written, which RE2 names or refuses itself.
    if (auto unnamed = unname_groups(regex)) {
      if (!unnamed->duplicate.empty()) {
        error = "the group name `" + unnamed->duplicate + "` is given twice; give each named group its own name";
        return;
      }
      re = std::make_unique<re2::RE2>(piece(unnamed->regex), options);
      if (re->ok() && static_cast<std::size_t>(re->NumberOfCapturingGroups()) == unnamed->names.size()) {
        names = std::move(unnamed->names);
        return;
      }
    }
    re = std::make_unique<re2::RE2>(piece(regex), options);
    if (!re->ok()) {
      error = re->error();
      if (!re->error_arg().empty()) error += ": " + re->error_arg();
      return;
    }
    names.assign(static_cast<std::size_t>(re->NumberOfCapturingGroups()), std::string());
    for (const auto& [name, index] : re->NamedCapturingGroups()) {
      if (index >= 1 && static_cast<std::size_t>(index) <= names.size()) names[index - 1] = name;
    }
  }
};

Pattern::Pattern(std::string_view regex, Compile when) : source_(regex), state_(std::make_unique<Compiled>()) {
  if (when == Compile::now) (void)compiled();
}

Pattern::~Pattern() = default;
Pattern::Pattern(Pattern&&) noexcept = default;
Pattern& Pattern::operator=(Pattern&&) noexcept = default;

const Pattern::Compiled& Pattern::compiled() const {
  if (!state_->built.load(std::memory_order_acquire))
    std::call_once(state_->once, [this] {
      state_->build(source_);
      state_->built.store(true, std::memory_order_release);
    });
  return *state_;
}

bool Pattern::ok() const {
  if (!state_) return false;  // moved from
  const Compiled& c = compiled();
  return c.re && c.re->ok();
}
const std::string& Pattern::error() const { return compiled().error; }
const std::vector<std::string>& Pattern::group_names() const { return compiled().names; }

bool Pattern::matches(std::string_view text) const {
  if (!ok()) return false;  // builds it once; below, compiled() is a single atomic check
  return state_->re->Match(piece(text), 0, text.size(), RE2::UNANCHORED, nullptr, 0);
}

bool Pattern::match(std::string_view text, std::vector<Capture>& captures) const {
  captures.clear();
  if (!ok()) return false;
  const Compiled& c = *state_;  // built by ok()
  const int groups = static_cast<int>(c.names.size());
  // Small patterns dominate; a fixed buffer avoids an allocation per matching line.
  constexpr int kInline = 16;
  re2::StringPiece inline_buf[kInline + 1];
  std::vector<re2::StringPiece> heap_buf;
  re2::StringPiece* sub = inline_buf;
  if (groups + 1 > kInline + 1) {
    heap_buf.resize(static_cast<std::size_t>(groups) + 1);
    sub = heap_buf.data();
  }
  if (!c.re->Match(piece(text), 0, text.size(), RE2::UNANCHORED, sub, groups + 1)) return false;
  for (int i = 1; i <= groups; ++i) {
    const std::string& name = c.names[static_cast<std::size_t>(i - 1)];
    if (name.empty() || sub[i].data() == nullptr) continue;  // unnamed, or did not take part
    captures.push_back(Capture{name, std::string(sub[i].data(), sub[i].size())});
  }
  return true;
}

}  // namespace culprit::text
