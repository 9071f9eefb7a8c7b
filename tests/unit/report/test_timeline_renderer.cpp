// `culprit timeline` formatting: a header with each host's clock, one line per event with the
// root and echoes marked, unplaced events by their raw stamp or line, everything within width.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "culprit/report/timeline.hpp"
#include "culprit/core/utf8.hpp"
#include "unit/report/sample_verdicts.hpp"
#include "unit/test_text.hpp"

namespace timeline_renderer_tests {

using namespace culprit::report;
namespace d = culprit::diagnose;

namespace {

using culprit::test::lines_of;

const std::string* line_with(const std::vector<std::string>& lines, const std::string& needle) {
  for (const auto& l : lines)
    if (l.find(needle) != std::string::npos) return &l;
  return nullptr;
}

}  // namespace

TEST_CASE("timeline: header names each host's clock alignment", "[report]") {
  const auto v = test::cuda_oom_foreign();
  const auto lines = lines_of(render_timeline(v.data.timeline, v.data.hosts, 7));
  REQUIRE(lines.size() > 5);
  CHECK(lines[0] == "Timeline: 7 events on 2 hosts, 2026-04-09 00:44:53 to 00:57:13 UTC");
  CHECK(lines[1] == "  spark-a  clock: wall clock stamps (UTC assumed) (medium)");
  CHECK(lines[2] == "  spark-b  clock: wall clock stamps (UTC assumed) (medium), unified memory");
  CHECK(lines[3] == "  > root failure   ~ echo (a consequence of the root)");
}

TEST_CASE("timeline: one line per event, root and echo marked, unplaced by boot stamp", "[report]") {
  const auto v = test::cuda_oom_foreign();
  const auto lines = lines_of(render_timeline(v.data.timeline, v.data.hosts, 7, {false, 100}));
  const auto* root = line_with(lines, "cuda_oom");
  REQUIRE(root);
  CHECK(root->rfind("> 00:47:13.412  spark-b  cuda_oom", 0) == 0);
  CHECK(root->find("51877/r0") != std::string::npos);
  // Paths are cut first, from the left (the line number stays), so the message keeps its room.
  CHECK(root->find("rank0.log:1184  ") != std::string::npos);
  CHECK(root->find("torch.OutOfMemoryError:") != std::string::npos);
  const auto* echo = line_with(lines, "nccl_timeout");
  REQUIRE(echo);
  CHECK(echo->rfind("~ 00:57:13.612  spark-a", 0) == 0);
  const auto* xid = line_with(lines, "xid");
  REQUIRE(xid);
  CHECK(xid->rfind("  boot+93.1s", 0) == 0);
  for (const auto& l : lines) {
    INFO(l);
    CHECK(culprit::core::utf8::columns(l) <= 100);
  }
  // Without a limit nothing is cut.
  const auto wide = lines_of(render_timeline(v.data.timeline, v.data.hosts, 7, {false, 0}));
  CHECK(line_with(wide, "ran for 600085 milliseconds before timing out.") != nullptr);
}

TEST_CASE("timeline: events on several days carry the date: a cap says what was left out", "[report]") {
  auto v = test::cuda_oom_foreign();
  v.data.timeline[0].ts = *v.data.timeline[0].ts - 86400;
  const auto lines = lines_of(render_timeline(v.data.timeline, v.data.hosts, 1234, {false, 100}));
  CHECK(lines[0] == "Timeline: 7 events of 1234 on 2 hosts, 2026-04-08 00:44:53 to 2026-04-09 00:57:13 UTC");
  CHECK(line_with(lines, "2026-04-09 00:47:13.412  spark-b") != nullptr);
  CHECK(lines.back().rfind("… 1227 more events not shown", 0) == 0);
}

TEST_CASE("timeline: hostile text and narrow widths keep the layout", "[report]") {
  auto v = test::cuda_oom_foreign();
  v.data.timeline[2].summary = "\x1b[31mred\x1b[0m\r\nnext line\ttab \xff\xfe end";
  v.data.timeline[2].host = "a-very-long-host-name-that-goes-on-and-on.example.internal";
  v.data.timeline[2].source = "/var/log/some/very/deep/folder/structure/with/a/long/name/worker.log";
  for (int width : {60, 80, 100, 132}) {
    for (const auto& l : lines_of(render_timeline(v.data.timeline, v.data.hosts, 7, {false, width}))) {
      INFO(width << ": " << l);
      CHECK(culprit::core::utf8::columns(l) <= width);
      CHECK(culprit::core::utf8::clean(l) == l);
    }
  }
  const std::string colored = render_timeline(v.data.timeline, v.data.hosts, 7, {true, 100});
  CHECK(colored.find("\x1b[") != std::string::npos);
  CHECK(colored.find("\x1b[31mred") == std::string::npos);  // the log's own escapes are gone
}

TEST_CASE("timeline: nothing matched", "[report]") {
  const auto out = render_timeline({}, {}, 0);
  CHECK(out == "Timeline: 0 events on 0 hosts\n  (no events match)\n");
}

}  // namespace timeline_renderer_tests
