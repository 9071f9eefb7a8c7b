// The JSON string escaper and compact writer behind the JSON contract. Hand-written so that
// any bytes (control characters, invalid UTF-8 from broken logs) still yield valid JSON.
#include "culprit/report/json_writer.hpp"

#include <fmt/format.h>

#include <cmath>

#include "culprit/core/utf8.hpp"
#include "culprit/text/lines.hpp"

namespace culprit::report {

namespace {
/// A byte a JSON string holds as it is: printable ASCII but `"` and `\`.
constexpr text::ByteSet kPlainJsonByte([](char ch) {
  const auto c = static_cast<unsigned char>(ch);
  return c >= 0x20 && c < 0x7F && c != '"' && c != '\\';
});
}  // namespace

void append_json_string(std::string& out, std::string_view text) {
  static const char kHex[] = "0123456789abcdef";
  out.reserve(out.size() + text.size() + 2);
  out.push_back('"');
  for (std::size_t i = 0; i < text.size();) {
    // The common case, plain ASCII, a run at a time: one append, not a push_back a byte.
    const std::size_t run = kPlainJsonByte.span(text, i);
    if (run > i) {
      out.append(text.data() + i, run - i);
      i = run;
      continue;
    }
    const char32_t cp = core::utf8::next(text, i);
    switch (cp) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\r': out += "\\r"; break;
      case '\t': out += "\\t"; break;
      case '\b': out += "\\b"; break;
      case '\f': out += "\\f"; break;
      case 0x2028: out += "\\u2028"; break;  // valid JSON, but breaks JavaScript parsers
      case 0x2029: out += "\\u2029"; break;
      default:
        // C0, DEL and C1 controls (a terminal acts on U+009B as on ESC [) and the invisible
        // format characters (bidi overrides, zero-width) as \uXXXX: the value is the same,
        // printed JSON cannot drive a terminal or read differently from its bytes.
        if (cp < 0x20 || (cp >= 0x7F && cp < 0xA0) || core::utf8::is_invisible_format(cp)) {
          out += "\\u";
          for (int shift = 12; shift >= 0; shift -= 4) out.push_back(kHex[(cp >> shift) & 0xF]);
        } else {
          core::utf8::append(out, cp);
        }
    }
  }
  out.push_back('"');
}

std::string json_quote(std::string_view text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

void JsonWriter::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (!first_.empty()) {
    if (!first_.back()) out_.push_back(',');
    first_.back() = false;
  }
}

void JsonWriter::begin_object() {
  before_value();
  out_.push_back('{');
  first_.push_back(true);
}

void JsonWriter::end_object() {
  out_.push_back('}');
  if (!first_.empty()) first_.pop_back();
}

void JsonWriter::begin_array() {
  before_value();
  out_.push_back('[');
  first_.push_back(true);
}

void JsonWriter::end_array() {
  out_.push_back(']');
  if (!first_.empty()) first_.pop_back();
}

void JsonWriter::key(std::string_view name) {
  before_value();
  append_json_string(out_, name);
  out_.push_back(':');
  after_key_ = true;
}

void JsonWriter::value(std::string_view text) {
  before_value();
  append_json_string(out_, text);
}

void JsonWriter::value(std::int64_t number) {
  before_value();
  out_ += std::to_string(number);
}

std::string real_text(double number) {
  std::string text = fmt::format("{}", number);
  if (text.find_first_of(".en") == std::string::npos) text += ".0";  // not after inf / nan
  return text;
}

void JsonWriter::number(double number) {
  if (!std::isfinite(number)) return null();
  before_value();
  out_ += real_text(number);
}

void JsonWriter::value(bool flag) {
  before_value();
  out_ += flag ? "true" : "false";
}

void JsonWriter::null() {
  before_value();
  out_ += "null";
}

void JsonWriter::value(const std::optional<std::int64_t>& number) {
  if (number) value(*number);
  else null();
}

void JsonWriter::value(const std::optional<int>& number) {
  if (number) value(static_cast<std::int64_t>(*number));
  else null();
}

}  // namespace culprit::report
