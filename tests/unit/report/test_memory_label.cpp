// The HTML memory chart is titled by the budget's domain: a kernel OOM's host ledger and a cgroup
// OOM's limit are not "GPU memory"; a CUDA OOM's GPU (discrete or unified) is.
#include <catch2/catch.hpp>

#include <string>

#include "culprit/report/renderer.hpp"
#include "diagnose/host_ledger.hpp"
#include "report/charts.hpp"
#include "unit/report/sample_verdicts.hpp"
#include "unit/test_text.hpp"

namespace memory_label_tests {

using namespace culprit::report;
namespace d = culprit::diagnose;

namespace {

using culprit::test::contains;

/// The sample kernel OOM with the host (or cgroup) ledger build_host_budget gives its report.
d::Verdict with_host_budget(bool memcg) {
  d::Verdict v = test::kernel_oom_victim_not_hog();
  d::HostOomRecord r;
  r.host = "node-3";
  r.memcg = memcg;
  if (memcg) {
    v.verdict = d::verdict::kCgroupOom;
    r.cgroup = "/kubepods/pod1";
    r.limit = 64 * test::kGiB;
    r.usage = r.limit;
  } else {
    r.ram = 64 * test::kGiB;
  }
  r.victim_pid = 5151;
  r.victim_name = "postgres";
  r.tasks = {{4242, "python3", 58 * test::kGiB, 0, "job"}, {5151, "postgres", 6 * test::kGiB, 0, "unknown"}};
  v.budget = d::build_host_budget(r);
  return v;
}

}  // namespace

TEST_CASE("html: a kernel OOM's host ledger is not called GPU memory", "[report][chart]") {
  const d::Verdict v = with_host_budget(false);
  REQUIRE(v.budget);
  REQUIRE(v.budget->domain == "host");
  const std::string html = render(v, Format::html);
  REQUIRE(contains(html, "<section id=\"gpu-memory\">"));  // the ledger is drawn
  CHECK(contains(html, "<h2>Host memory</h2>"));
  CHECK(contains(html, "aria-label=\"Host memory: node-3\""));
  CHECK_FALSE(contains(html, "GPU memory"));
}

TEST_CASE("html: a cgroup OOM's ledger is titled by its memory cgroup", "[report][chart]") {
  const d::Verdict v = with_host_budget(true);
  REQUIRE(v.budget);
  REQUIRE(v.budget->domain == "cgroup");
  const std::string html = render(v, Format::html);
  CHECK(contains(html, "<h2>Memory cgroup</h2>"));
  CHECK(contains(html, "aria-label=\"Memory cgroup: node-3\""));
  CHECK_FALSE(contains(html, "GPU memory"));
}

TEST_CASE("html: a CUDA OOM's chart says GPU memory", "[report][chart]") {
  const d::Verdict v = test::cuda_oom_foreign();
  REQUIRE(v.budget);
  const std::string html = render(v, Format::html);
  CHECK(contains(html, "<h2>GPU memory</h2>"));
  CHECK(contains(html, "aria-label=\"GPU memory: spark-b · GPU 0"));
  CHECK_FALSE(contains(html, "Host memory"));
}

TEST_CASE("memory_label follows the budget's domain", "[report][chart]") {
  d::Budget b;
  CHECK(charts::memory_label(nullptr) == "GPU memory");  // a GPU's snapshots without a ledger
  for (const auto& [domain, label] : {std::pair{"gpu", "GPU memory"}, {"unified", "GPU memory"},
                                      {"host", "Host memory"}, {"cgroup", "Memory cgroup"}}) {
    b.domain = domain;
    CHECK(charts::memory_label(&b) == label);
  }
}

}  // namespace memory_label_tests
