// Ingest recognises culprit's own reports by markers the renderers write (ingest/own_report.cpp
// keeps its own copy, since ingest must not depend on report). Render every verdict in every
// format and check the copy still recognises it, so a renamed headline or heading cannot make a
// saved report be read back as a log again.
#include <catch2/catch.hpp>

#include "culprit/diagnose/finding.hpp"
#include "culprit/report/renderer.hpp"
#include "ingest/own_report.hpp"

namespace own_report_roundtrip_tests {

using namespace culprit;

TEST_CASE("every rendered report, of every verdict, is recognised as culprit's own", "[report][own_report]") {
  for (const char* id : {diagnose::verdict::kCudaOom, diagnose::verdict::kKernelOom, diagnose::verdict::kCgroupOom,
                         diagnose::verdict::kUserspaceOomKill, diagnose::verdict::kHostAllocFail,
                         diagnose::verdict::kNotOom, diagnose::verdict::kUnknown}) {
    diagnose::Verdict v;
    v.verdict = id;
    v.summary = "A summary that mentions OOMKilled and oom_kill.";
    v.ruled_out.push_back("cgroup / container OOM: no OOMKilled container in the inputs");
    diagnose::SourceSummary s;
    s.name = "train.log";
    s.format = "app_log";
    s.lines = 12;
    v.sources.push_back(s);
    for (auto format : {report::Format::text, report::Format::markdown, report::Format::json, report::Format::html}) {
      INFO(id << " format " << static_cast<int>(format));
      CHECK(ingest::is_culprit_report(report::render(v, format)));
    }
  }
  CHECK_FALSE(ingest::is_culprit_report("CUDA OOM happened on node 3\n[rank0]: torch.OutOfMemoryError: CUDA out of memory.\n"));
}

}  // namespace own_report_roundtrip_tests
