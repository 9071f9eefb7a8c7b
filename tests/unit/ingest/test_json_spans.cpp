// json_spans.hpp's walks jump from one structure byte to the next (StructureBytes, 64 bytes a
// word): they must give what a walk of every byte gives. Held to such a walk (written out below,
// as split_values and the sniffer's depth count read JSON before the jump) on JSON-lines journal
// entries, pretty values, broken values and random strings over the bytes the walk acts on.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "ingest/formats/json_spans.hpp"

namespace json = culprit::ingest::json;

namespace {

int depth_by_bytes(std::string_view line) {
  int d = 0;
  bool in_string = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++d;
    } else if (c == '}' || c == ']') {
      --d;
    }
  }
  return d;
}

std::vector<json::Span> values_by_bytes(std::string_view text, bool arrays, std::size_t max_bytes) {
  std::vector<json::Span> out;
  std::int64_t line = 1;
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
      ++i;
      continue;
    }
    if (c != '{' && !(arrays && c == '[')) {
      ++i;
      continue;
    }
    const std::size_t start = i;
    const std::int64_t start_line = line;
    int depth = 0;
    bool in_string = false, done = false;
    for (; i < text.size(); ++i) {
      const char d = text[i];
      if (d == '\n') ++line;
      if (in_string) {
        if (d == '\\') {
          if (i + 1 < text.size() && text[i + 1] == '\n') ++line;
          ++i;
        } else if (d == '"') {
          in_string = false;
        } else if (d == '\n') {
          break;
        }
        continue;
      }
      if (d == '"') {
        in_string = true;
      } else if (d == '{' || d == '[') {
        ++depth;
      } else if (d == '}' || d == ']') {
        if (--depth == 0) {
          done = true;
          ++i;
          break;
        }
      }
      if (i - start > max_bytes) break;
    }
    if (done) out.push_back({text.substr(start, i - start), start_line, line});
    else if (i < text.size()) ++i;
  }
  return out;
}

void check_same(std::string_view text, bool arrays, std::size_t max_bytes) {
  INFO(std::string(text));
  const auto want = values_by_bytes(text, arrays, max_bytes);
  const auto got = json::split_values(text, arrays, max_bytes);
  REQUIRE(got.size() == want.size());
  for (std::size_t k = 0; k < got.size(); ++k) {
    CHECK(got[k].text.data() == want[k].text.data());
    CHECK(got[k].text.size() == want[k].text.size());
    CHECK(got[k].line == want[k].line);
    CHECK(got[k].last_line == want[k].last_line);
  }
}

}  // namespace

TEST_CASE("json values split by structure bytes are the values a byte walk finds", "[json]") {
  const std::string journal =
      R"({"__CURSOR":"s=8a1c;i=0","__REALTIME_TIMESTAMP":"1775695642111697","_TRANSPORT":"kernel",)"
      R"("MESSAGE":"audit: type=1400 apparmor=\"STATUS\" name=\"cri-containerd\" pid=94996"})";
  const std::vector<std::string> texts = {
      journal + "\n" + journal + "\n",
      journal + " \r\n\n" + journal,
      journal + journal + "\n{\"a\": [1, {\"b\": \"}\\\\\"}]}\n",
      "{\n  \"a\": [\n    1,\n    {\"b\": \"x\\\ny\"}\n  ]\n}\nnot json {\"c\":\"cut",
      "[{\"a\":1},\n {\"b\":\"]\"}]\n{\"broken\": \"a\nb\"}\n{\"after\": 1}",
      "\x1e{\"seq\":1}\n\x1e{\"seq\":2}\n",
      std::string(200, 'x') + "{\"long\":\"" + std::string(300, 'y') + "\"}" + std::string(70, ' ') + "}",
      "", "{", "\"{}\"", "}{}", "\\{\"a\":\"\\\\\"}",
  };
  for (const std::string& text : texts)
    for (const bool arrays : {false, true})
      for (const std::size_t max_bytes : {std::size_t{64 * 1024 * 1024}, std::size_t{100}, std::size_t{5}, std::size_t{0}})
        check_same(text, arrays, max_bytes);
}

TEST_CASE("json values and depths over random structure bytes match a byte walk", "[json]") {
  std::mt19937 rng(38);
  const std::string alphabet = "{}[]\"\\\n ab:,";
  for (int round = 0; round < 3000; ++round) {
    std::string text(rng() % 300, ' ');
    for (char& c : text) c = alphabet[rng() % alphabet.size()];
    INFO(text);
    REQUIRE(json::depth_change(text) == depth_by_bytes(text));
    check_same(text, round % 2 == 0, round % 3 == 0 ? 40 : 64 * 1024 * 1024);
  }
}

TEST_CASE("next_value stops at each line start between values, and the walk from there goes on", "[json]") {
  const std::string text = "{\"a\":1}\nx\n{\"b\":\n2}{\"c\":3}\n";
  json::ValueCursor cursor(text);
  json::Span span;
  std::vector<std::string> values;
  int lines = 0;
  for (json::Step step; (step = json::next_value(text, false, 1000, cursor, span)) != json::Step::end;) {
    if (step == json::Step::line) {
      ++lines;
      CHECK(text[cursor.i - 1] == '\n');
    } else {
      values.emplace_back(span.text);
    }
  }
  CHECK(values == std::vector<std::string>{"{\"a\":1}", "{\"b\":\n2}", "{\"c\":3}"});
  CHECK(lines == 3);  // after `{"a":1}`, after `x`, after `{"c":3}` (the value's own newline is in it)
}
