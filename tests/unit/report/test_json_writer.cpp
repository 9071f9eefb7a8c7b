// The JSON string escaper and writer: whatever bytes come in, valid JSON comes out.
#include <catch2/catch.hpp>

#include <simdjson.h>

#include <string>

#include "culprit/report/json_writer.hpp"

namespace json_writer_tests {

using namespace culprit::report;

namespace {

// Parses `"..."` with simdjson and returns the decoded string (fails the test if invalid).
std::string decode(const std::string& literal) {
  simdjson::dom::parser parser;
  simdjson::padded_string json(literal);
  std::string_view out;
  const auto error = parser.parse(json).get_string().get(out);
  INFO(literal);
  REQUIRE(error == simdjson::SUCCESS);
  return std::string(out);
}

const std::string kFFFD = "\xef\xbf\xbd";

}  // namespace

TEST_CASE("json_quote escapes quotes, backslashes and control characters", "[report]") {
  CHECK(json_quote("") == "\"\"");
  CHECK(json_quote("plain text") == "\"plain text\"");
  CHECK(json_quote("say \"hi\"") == "\"say \\\"hi\\\"\"");
  CHECK(json_quote("C:\\path") == "\"C:\\\\path\"");
  CHECK(json_quote("a\nb\r\nc\td") == "\"a\\nb\\r\\nc\\td\"");
  CHECK(json_quote("\b\f") == "\"\\b\\f\"");
  CHECK(json_quote(std::string("nul\0here", 8)) == "\"nul\\u0000here\"");
  CHECK(json_quote("\x01\x1b[31m\x1f") == "\"\\u0001\\u001b[31m\\u001f\"");
  CHECK(json_quote("del\x7f") == "\"del\\u007f\"");  // legal in JSON, escaped: printed, it reaches no terminal
  CHECK(json_quote("/") == "\"/\"");
  for (const std::string s : {"say \"hi\"", "a\nb\r\nc\td", "\x01\x1b[31m\x1f", "tab\there"})
    CHECK(decode(json_quote(s)) == s);
}

// Issue 36 (redteam finding 5): a terminal that honours UTF-8 C1 acts on U+009B as on ESC [, and
// bidi overrides / zero-width characters make printed JSON read differently from its bytes.
TEST_CASE("json_quote escapes C1 controls, bidi controls and zero-width characters", "[report]") {
  CHECK(json_quote("c1\xc2\x9b" "2J\xc2\x80\xc2\x9f") == "\"c1\\u009b2J\\u0080\\u009f\"");
  CHECK(json_quote("E\xe2\x80\xae" "a\xe2\x80\x8b" "b\xe2\x81\xa6") == "\"E\\u202ea\\u200bb\\u2066\"");
  CHECK(json_quote("\xc2\xa0nbsp") == "\"\xc2\xa0nbsp\"");  // U+00A0 is text
  for (const std::string s : {"c1\xc2\x9b" "2J", "E\xe2\x80\xae" "a"}) CHECK(decode(json_quote(s)) == s);
}

TEST_CASE("json_quote keeps valid UTF-8 and escapes the JavaScript line separators", "[report]") {
  const std::string text = "caf\xc3\xa9 \xe2\x80\x94 \xe4\xb8\xad \xf0\x9f\x98\x80";  // café — 中 😀
  CHECK(json_quote(text) == "\"" + text + "\"");
  CHECK(json_quote("a\xe2\x80\xa8" "b\xe2\x80\xa9") == "\"a\\u2028b\\u2029\"");
  CHECK(decode(json_quote(text)) == text);
}

TEST_CASE("json_quote replaces invalid UTF-8 with U+FFFD", "[report]") {
  CHECK(json_quote("\xff") == "\"" + kFFFD + "\"");
  CHECK(json_quote("a\x80z") == "\"a" + kFFFD + "z\"");                  // stray continuation
  CHECK(json_quote("\xc0\xaf") == "\"" + kFFFD + kFFFD + "\"");          // overlong '/'
  CHECK(json_quote("\xe0\x80\xaf") == "\"" + kFFFD + kFFFD + kFFFD + "\"");  // overlong, 3 bytes
  CHECK(json_quote("\xed\xa0\x80") == "\"" + kFFFD + kFFFD + kFFFD + "\"");  // surrogate D800
  CHECK(json_quote("\xf4\x90\x80\x80") == "\"" + kFFFD + kFFFD + kFFFD + kFFFD + "\"");  // > U+10FFFF
  CHECK(json_quote("x\xe2\x82") == "\"x" + kFFFD + "\"");                // truncated at the end
  CHECK(json_quote("\xe2\x82z") == "\"" + kFFFD + "z\"");                // truncated mid-text
  CHECK(json_quote("\xf0\x9f\x98") == "\"" + kFFFD + "\"");
  // Every byte value, alone and in a soup, still parses.
  std::string soup;
  for (int b = 0; b < 256; ++b) {
    const std::string one(1, static_cast<char>(b));
    decode(json_quote(one));
    soup += one;
    soup += static_cast<char>(255 - b);
  }
  const std::string decoded = decode(json_quote(soup));
  CHECK(decoded.find('\x05') != std::string::npos);
}

TEST_CASE("JsonWriter writes compact JSON in the order given", "[report]") {
  JsonWriter w;
  w.begin_object();
  w.key("b"); w.value(std::int64_t{2});
  w.key("a"); w.begin_array(); w.value("x"); w.null(); w.value(true); w.begin_object(); w.end_object(); w.end_array();
  w.key("n"); w.value(std::optional<std::int64_t>{});
  w.key("g"); w.value(std::optional<int>{3});
  w.key("neg"); w.value(std::int64_t{-9007199254740993});
  w.key("e"); w.begin_array(); w.end_array();
  w.end_object();
  CHECK(w.str() == R"({"b":2,"a":["x",null,true,{}],"n":null,"g":3,"neg":-9007199254740993,"e":[]})");
  decode("\"ok\"");
  simdjson::dom::parser parser;
  simdjson::padded_string json(w.str());
  CHECK(parser.parse(json).error() == simdjson::SUCCESS);
}

}  // namespace json_writer_tests
