// A compiled RE2 pattern with named groups. RE2 stays private to the text module.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace re2 { class RE2; }

namespace culprit::text {

struct Capture {
  std::string name;
  std::string value;
};

/// When the RE2 is built: at construction, or at the first call that needs it (ok(), error(),
/// group_names(), a match). Lazy patterns are for rules already known to be valid (the built-in
/// set, checked by `culprit rules check` and the test suite): a short paste then compiles only the
/// few whose literals occur in it, not all of them.
enum class Compile { now, on_first_use };

/// Owns one RE2. Construction never throws: check ok() and error(). Patterns and texts are bytes
/// (RE2's Latin-1 mode): invalid UTF-8 in a log never stops `.` or `[^,]`, and a UTF-8 literal in
/// a pattern matches byte for byte. Logically immutable; thread-safe (a lazy compile happens once,
/// under std::call_once).
/// The memory one compiled pattern may use (RE2's max_mem: its program and DFA caches). A rule
/// whose regex needs more is refused when it loads; a long search past the DFA budget falls back
/// to RE2's slower NFA, never to more memory. RE2's own default, written down as the rules' budget.
inline constexpr std::int64_t kPatternMemoryBytes = std::int64_t{8} << 20;

class Pattern {
 public:
  explicit Pattern(std::string_view regex, Compile when = Compile::now);
  ~Pattern();
  Pattern(Pattern&&) noexcept;
  Pattern& operator=(Pattern&&) noexcept;

  bool ok() const;
  const std::string& error() const;
  const std::string& source() const { return source_; }
  const std::vector<std::string>& group_names() const;

  /// Unanchored search; no captures (fast path).
  bool matches(std::string_view text) const;
  /// Unanchored search; fills the named groups that took part in the match.
  bool match(std::string_view text, std::vector<Capture>& captures) const;

 private:
  struct Compiled;
  const Compiled& compiled() const;  ///< builds it on first use

  std::string source_;
  std::unique_ptr<Compiled> state_;
};

}  // namespace culprit::text
