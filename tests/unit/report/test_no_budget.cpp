// A CUDA OOM whose inputs give no sizes (NCCL / XLA failures name none) still has a memory-budget
// section that says the budget is not known and what to collect; other verdicts have none.
#include <catch2/catch.hpp>

#include <string>

#include "culprit/report/renderer.hpp"

namespace no_budget_tests {

using namespace culprit::report;
namespace d = culprit::diagnose;

namespace {

d::Verdict sizeless(const char* verdict) {
  d::Verdict v;
  v.verdict = verdict;
  v.confidence = d::Confidence::medium;
  v.summary = "A CUDA allocation failed on a3-node-2 GPU 5.";
  v.culprit = d::ProcessRef{"a3-node-2", 2211, "", "job", "the job's own allocations exhausted the GPU", ""};
  return v;
}

}  // namespace

TEST_CASE("a CUDA OOM without sizes says its budget is not known", "[report][budget]") {
  const auto v = sizeless("cuda_oom");
  const std::string md = render(v, Format::markdown);
  CHECK(md.find("## Memory budget") != std::string::npos);
  CHECK(md.find("Not known: the error names no sizes") != std::string::npos);
  const std::string text = render(v, Format::text);
  CHECK(text.find("Memory budget") != std::string::npos);
  CHECK(text.find("Not known: the error names no sizes") != std::string::npos);
}

TEST_CASE("other verdicts have no budget section", "[report][budget]") {
  const auto v = sizeless("not_oom");
  CHECK(render(v, Format::markdown).find("Memory budget") == std::string::npos);
  CHECK(render(v, Format::text).find("Memory budget") == std::string::npos);
}

}  // namespace no_budget_tests
