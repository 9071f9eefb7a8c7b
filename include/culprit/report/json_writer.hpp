// A small compact JSON writer: keys come out in the order written (a stable contract), strings
// are escaped so the output is always valid JSON, whatever bytes the logs held.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::report {

/// Appends `text` as a JSON string literal (with quotes). Escapes `"` `\`, control characters
/// (\n \r \t \b \f, others as \u00XX), U+2028/U+2029; replaces invalid UTF-8 (bad bytes,
/// overlongs, surrogates, > U+10FFFF, truncated sequences) with U+FFFD.
void append_json_string(std::string& out, std::string_view text);

/// `append_json_string` into a fresh string.
std::string json_quote(std::string_view text);

/// A finite real as JSON writes it: the shortest text that reads back as the same double, with a
/// `.0` when it would look like an integer (`2.5`, `3.0`, `1e+20`), so a real stays one.
std::string real_text(double number);

/// Builds one compact JSON document. Misuse (a value without a key inside an object) is a bug
/// in the caller; the writer does not check nesting beyond what it needs for commas.
///   JsonWriter w; w.begin_object(); w.key("n"); w.value(std::int64_t{1}); w.end_object();
class JsonWriter {
 public:
  void begin_object();
  void end_object();
  void begin_array();
  void end_array();
  void key(std::string_view name);  ///< next value belongs to this key
  void value(std::string_view text);
  void value(const char* text) { value(std::string_view(text)); }
  void value(const std::string& text) { value(std::string_view(text)); }
  void value(std::int64_t number);
  void value(int number) { value(static_cast<std::int64_t>(number)); }
  void value(bool flag);
  /// A real number as real_text writes it; NaN and infinities, which JSON cannot hold, as null.
  void number(double number);
  void null();
  void value(const std::optional<std::int64_t>& number);  ///< null when empty
  void value(const std::optional<int>& number);           ///< null when empty

  const std::string& str() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  void before_value();

  std::string out_;
  std::vector<bool> first_;  ///< per open container: no element written yet
  bool after_key_ = false;
};

}  // namespace culprit::report
