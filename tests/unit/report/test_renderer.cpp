// report::render dispatch, parse_format, and robustness of all formats against junk bytes.
#include <catch2/catch.hpp>

#include <simdjson.h>

#include <cstdint>
#include <string>

#include "culprit/report/renderer.hpp"
#include "culprit/core/utf8.hpp"
#include "unit/report/html_check.hpp"
#include "unit/report/sample_verdicts.hpp"

namespace renderer_tests {

using namespace culprit::report;

TEST_CASE("parse_format accepts the documented names, case-insensitively", "[report]") {
  CHECK(parse_format("text") == Format::text);
  CHECK(parse_format("markdown") == Format::markdown);
  CHECK(parse_format("md") == Format::markdown);
  CHECK(parse_format("MD") == Format::markdown);
  CHECK(parse_format("json") == Format::json);
  CHECK(parse_format("html") == Format::html);
  CHECK(parse_format("HTM") == Format::html);
  CHECK_FALSE(parse_format("").has_value());
  CHECK_FALSE(parse_format("jsonl").has_value());
  for (Format f : {Format::text, Format::markdown, Format::json, Format::html}) CHECK(parse_format(to_string(f)) == f);
}

TEST_CASE("render dispatches to each format and ends with a newline", "[report]") {
  const auto v = test::cuda_oom_foreign();
  const std::string text = render(v, Format::text);
  const std::string md = render(v, Format::markdown);
  const std::string json = render(v, Format::json);
  CHECK(text.rfind("CUDA OOM on spark-b", 0) == 0);
  CHECK(md.rfind("# Incident: CUDA OOM on spark-b", 0) == 0);
  CHECK(json.rfind("{\"schema_version\":3,", 0) == 0);
  for (const std::string* s : {&text, &md, &json}) {
    REQUIRE_FALSE(s->empty());
    CHECK(s->back() == '\n');
  }
}

TEST_CASE("random bytes in every string never break any format", "[report]") {
  std::uint32_t state = 12345;
  auto rnd = [&] {
    state = state * 1664525u + 1013904223u;
    return state >> 8;
  };
  auto junk = [&] {
    std::string s;
    const std::size_t n = rnd() % 300;
    for (std::size_t i = 0; i < n; ++i) {
      const auto r = rnd() % 10;
      s += r < 6 ? static_cast<char>('a' + rnd() % 26) : r < 7 ? ' ' : static_cast<char>(rnd() % 256);
    }
    return s;
  };
  for (int round = 0; round < 200; ++round) {
    auto v = round % 2 ? test::cuda_oom_foreign() : test::kernel_oom_victim_not_hog();
    v.summary = junk();
    v.culprit->name = junk();
    v.culprit->why = junk();
    v.culprit->host = junk();
    v.root->title = junk();
    v.root->summary = junk();
    v.evidence[0].text = junk() + "\n" + junk();
    v.evidence[0].source = junk();
    v.advice.push_back(junk());
    v.ruled_out.push_back(junk());
    v.skipped.push_back(junk());
    if (v.budget) v.budget->entries[0].label = junk();
    for (int width : {100, 57, 40}) {
      const std::string text = render(v, Format::text, {round % 3 == 0, width});
      std::size_t start = 0;
      while (start < text.size()) {
        const std::size_t end = text.find('\n', start);
        const std::string line = text.substr(start, end - start);
        if (round % 3 != 0) {  // plain text (culprit::core::utf8::columns is tested on its own)
          INFO(line);
          REQUIRE(culprit::core::utf8::columns(line) <= width);
          REQUIRE(culprit::core::utf8::clean(line) == line);  // valid UTF-8, no control characters
        }
        start = end + 1;
      }
    }
    const std::string md = render(v, Format::markdown);
    REQUIRE_FALSE(md.empty());
    if (!v.data.timeline.empty()) {
      v.data.timeline[0].summary = junk();
      v.data.timeline[0].host = junk();
    }
    const std::string html = render(v, Format::html);
    const auto problems = test::check_html(html);
    CAPTURE(problems.list);
    REQUIRE(problems.ok());
    const std::string json = render(v, Format::json);
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    INFO(json);
    REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
    REQUIRE(doc["summary"].is_string());
  }
}

}  // namespace renderer_tests
