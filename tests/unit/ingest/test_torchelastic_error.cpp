// torchrun's error file (TORCHELASTIC_ERROR_FILE): fixtures/formats/torchelastic_error/ (written by
// PyTorch 1.13.1's torch.distributed.elastic, see the README there) sniff as the format by their
// content, and parse into the events a printed traceback gives — the traceback with its exception,
// the signals' events on its exception line — dated by the file's timestamp, at the file's line.
// Look-alikes (JSON-lines logs with `message` and `timestamp` keys) stay what they were.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "culprit/ingest/parser.hpp"
#include "culprit/ingest/sniff.hpp"
#include "culprit/rules/loader.hpp"
#include "unit/ingest/fixture_files.hpp"
#include "unit/ingest/gpu_recording_sink.hpp"

namespace torchelastic_error_tests {

using culprit::core::Event;
using culprit::ingest::sniff_format;
using culprit::test::GpuRecordingSink;

namespace {

std::string fixture(const std::string& name) {
  return culprit::test::read_fixture(std::filesystem::path(CULPRIT_SOURCE_DIR) / "fixtures/formats/torchelastic_error" /
                                     name);
}

struct Parsed {
  GpuRecordingSink sink;
  culprit::core::Diagnostics diags;
};

Parsed parse(const std::string& text) {
  static const auto rules = culprit::rules::load_builtin_rules();
  Parsed out;
  culprit::ingest::ParseContext ctx;
  ctx.sink = &out.sink;
  ctx.signals = &rules.rules.signals;
  ctx.diagnostics = &out.diags;
  ctx.source_id = 1;
  ctx.source_name = "torchelastic-error.json";
  ctx.host = "node-1";
  ctx.format = std::string(culprit::ingest::format::kTorchelasticError);
  ctx.first_line = 7;  // as a segment of a paste starting at line 7
  culprit::ingest::parse_segment(text, ctx);
  return out;
}

const Event& only_traceback(const Parsed& p) {
  const auto tbs = p.sink.of_kind(culprit::core::kind::kTraceback);
  REQUIRE(tbs.size() == 1);
  static Event e;
  e = tbs[0];
  return e;
}

}  // namespace

TEST_CASE("torchelastic error files sniff as their format by content", "[torchelastic_error][sniff]") {
  for (const auto& path : culprit::test::format_fixtures("torchelastic_error")) {
    INFO(path.filename().string());
    CHECK(sniff_format(culprit::test::read_fixture(path)) == culprit::ingest::format::kTorchelasticError);
  }
}

TEST_CASE("JSON logs with message and timestamp keys are no torchelastic error file", "[torchelastic_error][sniff]") {
  // A JSON-lines application log (structlog / python-json-logger shape), one line holding a traceback.
  const std::string jsonl =
      "{\"message\": \"step 10 loss 2.3\", \"timestamp\": 1796479671}\n"
      "{\"message\": \"Traceback (most recent call last):\\n  File \\\"t.py\\\", line 1, in <module>\\nValueError: x\\n\", "
      "\"timestamp\": 1796479672}\n";
  CHECK(sniff_format(jsonl) != culprit::ingest::format::kTorchelasticError);
  // A message/timestamp object without a traceback, and keys in another order.
  CHECK(sniff_format("{\"message\": \"worker started\", \"timestamp\": 1796479671}\n") !=
        culprit::ingest::format::kTorchelasticError);
  CHECK(sniff_format("{\"timestamp\": 1796479671, \"level\": \"error\", \"message\": \"Traceback (most recent call last):\"}\n") !=
        culprit::ingest::format::kTorchelasticError);
  // docker inspect stays docker's.
  CHECK(sniff_format("[{\"Id\": \"abc\", \"State\": {\"OOMKilled\": true, \"ExitCode\": 137}}]\n") ==
        culprit::ingest::format::kDockerInspect);
}

TEST_CASE("torchrun's copy of the root cause: the exception, its frame, the exit code and the time", "[torchelastic_error]") {
  const Parsed p = parse(fixture("torchrun-copy-errorcode.txt"));
  const Event& tb = only_traceback(p);
  CHECK(tb.field_or("exc_type") == "ValueError");
  CHECK(tb.field_or("exc_message") == "rank 1: bad batch shape (2, 3)");
  CHECK(tb.field_or("frame_file") == "/tmp/te/dist.py");
  CHECK(tb.field_or("frame_line") == "10");
  CHECK(tb.field_or("exitcode") == "1");
  REQUIRE(tb.ts.has_value());
  CHECK(*tb.ts == 1796479671.0);
  CHECK(tb.ts_kind == culprit::core::TsKind::wall);
  CHECK(tb.line == 7);  // the file's one line, where the segment starts
  CHECK(tb.host == "node-1");
  CHECK(p.diags.empty());
}

TEST_CASE("a worker's own record of a CUDA OOM gives the signals' cuda_oom event", "[torchelastic_error]") {
  const Parsed p = parse(fixture("worker-record-cuda-oom.txt"));
  const Event& tb = only_traceback(p);
  CHECK(tb.field_or("exc_type") == "RuntimeError");
  CHECK(tb.field_or("exitcode").empty());  // the worker's own file has no errorCode
  const auto ooms = p.sink.of_kind(culprit::core::kind::kCudaOom);
  REQUIRE(!ooms.empty());
  CHECK(ooms[0].ts.value_or(0) == 1796479631.0);
  CHECK(ooms[0].line == 7);
}

TEST_CASE("the pretty-printed record cites the callstack's own line", "[torchelastic_error]") {
  const std::string text = fixture("pretty-indent-2.txt");
  const Parsed p = parse(text);
  const Event& tb = only_traceback(p);
  CHECK(tb.field_or("exc_type") == "ValueError");
  // `"py_callstack"` is on the fifth line of the indent-2 dump.
  const auto at = text.find("\"py_callstack\"");
  REQUIRE(at != std::string::npos);
  CHECK(tb.line == 7 + std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
}

TEST_CASE("the string form: message and timestamp at the top", "[torchelastic_error]") {
  const Parsed p = parse(fixture("string-message-form.txt"));
  const Event& tb = only_traceback(p);
  CHECK(tb.field_or("exc_type") == "ValueError");
  CHECK(tb.ts.value_or(0) == 1796479671.0);
}

TEST_CASE("a record without a callstack: its exception line is still read", "[torchelastic_error]") {
  const Parsed p = parse(
      "{\"message\": {\"message\": \"RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (GPU 0; 14.75 GiB "
      "total capacity; 12.10 GiB already allocated; 3.06 MiB free; 12.50 GiB reserved in total by PyTorch)\", "
      "\"extraInfo\": {\"timestamp\": \"1796479631\"}, \"errorCode\": 1}}");
  const auto ooms = p.sink.of_kind(culprit::core::kind::kCudaOom);
  REQUIRE(ooms.size() == 1);
  CHECK(ooms[0].ts.value_or(0) == 1796479631.0);
}

TEST_CASE("a callstack over 1 MiB keeps its opening line and its end: the exception is still read", "[torchelastic_error]") {
  // A deep recursion's traceback, JSON-escaped as json.dump writes it.
  std::string stack = "Traceback (most recent call last):\\n";
  for (int i = 0; i < 40000; ++i)
    stack += "  File \\\"/srv/m" + std::to_string(i) + ".py\\\", line " + std::to_string(i + 1) + ", in f\\n    g()\\n";
  stack += "RecursionError: maximum recursion depth exceeded\\n";
  REQUIRE(stack.size() > (std::size_t{1} << 20));
  const Parsed p = parse("{\"message\": {\"message\": \"RecursionError: maximum recursion depth exceeded\", \"extraInfo\": "
                         "{\"py_callstack\": \"" + stack + "\", \"timestamp\": \"1796479631\"}}}");
  const Event& tb = only_traceback(p);
  CHECK(tb.field_or("exc_type") == "RecursionError");
  CHECK(tb.field_or("frame_file") == "/srv/m39999.py");
  REQUIRE(p.diags.size() == 1);
  CHECK(p.diags[0].code == "torchelastic_callstack_cut");
}

TEST_CASE("broken or foreign JSON in a torchelastic segment is noted, never fatal", "[torchelastic_error]") {
  for (const std::string& text : {std::string("{\"message\": {\"message\": \"x\", \"extraInfo\": {\"py_callstack\": \"Trace"),
                                 std::string("{\"other\": 1}"), std::string("[1, 2, 3]"),
                                 std::string("{\"message\": {\"extraInfo\": {\"timestamp\": \"-5\", \"py_callstack\": 7}}}")}) {
    INFO(text);
    const Parsed p = parse(text);
    CHECK(p.sink.of_kind(culprit::core::kind::kTraceback).empty());
  }
}

}  // namespace torchelastic_error_tests
