// RFC 4180 records, JsonWriter::number, and the timeline's events as JSON / CSV
// (`culprit timeline --json / --csv`).
#include <catch2/catch.hpp>

#include <simdjson.h>

#include <cmath>
#include <limits>
#include <string>

#include "culprit/report/csv_writer.hpp"
#include "culprit/report/json_writer.hpp"
#include "culprit/report/timeline.hpp"

namespace csv_and_timeline_table_tests {

using namespace culprit;
using namespace culprit::report;

namespace {

std::string record(const std::vector<std::optional<std::string>>& fields) {
  std::string out;
  append_csv_record(out, fields);
  return out;
}

diagnose::TimelineEvent event(std::int64_t id, std::string message) {
  diagnose::TimelineEvent e;
  e.event_id = id;
  e.ts = 1775695633.5;  // 2026-04-09T00:47:13.500Z
  e.host = "spark-a";
  e.kind = "cuda_oom";
  e.severity = "error";
  e.source = "train.log";
  e.line = 7;
  e.summary = std::move(message);
  return e;
}

}  // namespace

TEST_CASE("CSV: plain fields bare, records end in CRLF", "[report]") {
  CHECK(record({"a", "b c", "1"}) == "a,b c,1\r\n");
  CHECK(record({}) == "\r\n");
}

TEST_CASE("CSV: a comma or a quote quotes the field, and quotes double", "[report]") {
  CHECK(record({"a,b"}) == "\"a,b\"\r\n");
  CHECK(record({"say \"hi\""}) == "\"say \"\"hi\"\"\"\r\n");
  // Look-alikes that need no quotes: semicolons, single quotes, spaces.
  CHECK(record({"a;b", "it's", " x "}) == "a;b,it's, x \r\n");
}

// Issue 36 (redteam finding 3): stored values from a received timeline reach the terminal as
// text, one record a line: controls escaped as utf8::visible shows them, a blob's bytes as \xNN.
TEST_CASE("CSV and TSV: controls, newlines and raw bytes in a cell are shown, never printed", "[report]") {
  CHECK(record({"two\nlines", "cr\rhere", "a\tb"}) == "two\\nlines,cr\\rhere,a\\tb\r\n");
  CHECK(record({"\x1b]0;T\x07\x1b[2J", "\x1b]52;c;cm0gLXJmIH4K\x07"}) ==
        "\\x1b]0;T\\x07\\x1b[2J,\\x1b]52;c;cm0gLXJmIH4K\\x07\r\n");
  CHECK(record({"E\xe2\x80\xae" "x", "c1\xc2\x9b"}) == "E<U+202E>x,c1<U+009B>\r\n");
  std::string tsv;
  append_tsv_record(tsv, {"name", "message"});
  append_tsv_record(tsv, {"nl\nfake\trow", std::string("ptr\x10\xa0\xff\x7f\0\0", 9)});
  CHECK(tsv == "name\tmessage\nnl\\nfake\\trow\tptr\\x10\\xa0\\xff\\x7f\\x00\\x00\n");
}

TEST_CASE("CSV: an absent value is an empty field, an empty string is \"\"", "[report]") {
  CHECK(record({std::nullopt, "", "x"}) == ",\"\",x\r\n");
}

TEST_CASE("JsonWriter::number: reals stay reals, NaN and infinities are null", "[report]") {
  JsonWriter w;
  w.begin_array();
  w.number(2.5);
  w.number(3.0);
  w.number(-0.125);
  w.number(1e20);
  w.number(std::numeric_limits<double>::quiet_NaN());
  w.number(std::numeric_limits<double>::infinity());
  w.end_array();
  CHECK(w.str() == "[2.5,3.0,-0.125,1e+20,null,null]");
  simdjson::dom::parser parser;
  simdjson::padded_string json(w.str());
  simdjson::dom::element doc;
  REQUIRE(parser.parse(json).get(doc) == simdjson::SUCCESS);
  CHECK(doc.at(1).is_double());
}

TEST_CASE("timeline --json: the listing's fields, marks, nulls for what is absent", "[report]") {
  auto root = event(12, "CUDA out of memory, \"Tried\" to allocate\n2.00 GiB");
  root.mark = "root";
  root.pid = 4242;
  auto echo = event(13, "rank 1 exited");
  echo.mark = "echo";
  echo.rank = 1;
  auto other = event(14, "plain");
  other.ts.reset();
  other.ts_raw = "";
  other.line = 9;
  const std::string json = render_timeline_json({root, echo, other});
  simdjson::dom::parser parser;
  simdjson::padded_string padded(json);
  simdjson::dom::element doc;
  REQUIRE(parser.parse(padded).get(doc) == simdjson::SUCCESS);
  simdjson::dom::array events;
  REQUIRE(doc.get_array().get(events) == simdjson::SUCCESS);
  REQUIRE(events.size() == 3);
  auto e0 = doc.at(0);
  CHECK(std::string_view(e0["mark"].get_string()) == "root");
  CHECK(std::string_view(e0["time"].get_string()) == "2026-04-09T00:47:13.500Z");
  CHECK(int64_t(e0["pid"].get_int64()) == 4242);
  CHECK(e0["rank"].is_null());
  CHECK(std::string_view(e0["message"].get_string()) == "CUDA out of memory, \"Tried\" to allocate\n2.00 GiB");
  CHECK(std::string_view(doc.at(1)["mark"].get_string()) == "echo");
  CHECK(int64_t(doc.at(1)["rank"].get_int64()) == 1);
  CHECK(doc.at(2)["mark"].is_null());   // an event that is neither root nor echo
  CHECK(doc.at(2)["time"].is_null());   // unplaced: no ISO time …
  CHECK(std::string_view(doc.at(2)["time_text"].get_string()) == "line 9");  // … but what the listing shows
  CHECK(render_timeline_json({}) == "[]\n");
}

TEST_CASE("timeline --csv: a header, then the same fields, quoted per RFC 4180", "[report]") {
  auto root = event(12, "out of memory, \"really\"");
  root.mark = "root";
  const std::string csv = render_timeline_csv({root});
  CHECK(csv.rfind("id,time,time_text,host,kind,severity,pid,rank,comm,source,line,mark,message\r\n", 0) == 0);
  CHECK(csv.find("\r\n12,2026-04-09T00:47:13.500Z,") != std::string::npos);
  CHECK(csv.find(",spark-a,cuda_oom,error,,,,train.log,7,root,\"out of memory, \"\"really\"\"\"\r\n") != std::string::npos);
  CHECK(render_timeline_csv({}) ==
        "id,time,time_text,host,kind,severity,pid,rank,comm,source,line,mark,message\r\n");
}

}  // namespace csv_and_timeline_table_tests
