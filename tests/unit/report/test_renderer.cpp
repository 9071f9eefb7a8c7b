// report::render dispatch and parse_format.
#include <catch2/catch.hpp>

#include "culprit/report/renderer.hpp"
#include "unit/report/sample_verdicts.hpp"

using namespace culprit::report;

TEST_CASE("parse_format accepts the documented names, case-insensitively", "[report]") {
  CHECK(parse_format("text") == Format::text);
  CHECK(parse_format("markdown") == Format::markdown);
  CHECK(parse_format("md") == Format::markdown);
  CHECK(parse_format("MD") == Format::markdown);
  CHECK(parse_format("json") == Format::json);
  CHECK_FALSE(parse_format("html").has_value());
  CHECK_FALSE(parse_format("").has_value());
  CHECK_FALSE(parse_format("jsonl").has_value());
  for (Format f : {Format::text, Format::markdown, Format::json}) CHECK(parse_format(to_string(f)) == f);
}

TEST_CASE("render dispatches to each format and ends with a newline", "[report]") {
  const auto v = test::cuda_oom_foreign();
  const std::string text = render(v, Format::text);
  const std::string md = render(v, Format::markdown);
  const std::string json = render(v, Format::json);
  CHECK(text.rfind("CUDA OOM on spark-b", 0) == 0);
  CHECK(md.rfind("# Incident: CUDA OOM on spark-b", 0) == 0);
  CHECK(json.rfind("{\"schema_version\":1,", 0) == 0);
  for (const std::string* s : {&text, &md, &json}) {
    REQUIRE_FALSE(s->empty());
    CHECK(s->back() == '\n');
  }
}
