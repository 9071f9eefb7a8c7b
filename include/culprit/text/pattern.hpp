// A compiled RE2 pattern with named groups. RE2 stays private to the text module.
#pragma once

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

/// Owns one RE2. Construction never throws: check ok() and error(). Patterns and texts are bytes
/// (RE2's Latin-1 mode): invalid UTF-8 in a log never stops `.` or `[^,]`, and a UTF-8 literal in
/// a pattern matches byte for byte. Immutable after construction; thread-safe.
class Pattern {
 public:
  explicit Pattern(std::string_view regex);
  ~Pattern();
  Pattern(Pattern&&) noexcept;
  Pattern& operator=(Pattern&&) noexcept;

  bool ok() const;
  const std::string& error() const { return error_; }
  const std::string& source() const { return source_; }
  const std::vector<std::string>& group_names() const { return names_; }

  /// Unanchored search; no captures (fast path).
  bool matches(std::string_view text) const;
  /// Unanchored search; fills the named groups that took part in the match.
  bool match(std::string_view text, std::vector<Capture>& captures) const;

 private:
  std::unique_ptr<re2::RE2> re_;
  std::string source_;
  std::string error_;
  std::vector<std::string> names_;  // by group index (1-based groups at [i-1]); empty if unnamed
};

}  // namespace culprit::text
