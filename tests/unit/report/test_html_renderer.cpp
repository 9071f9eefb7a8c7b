// The self-contained HTML report: well-formed, nothing loaded from outside, the verdict and
// the pictures present with finite coordinates, and log text unable to inject markup.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "culprit/report/renderer.hpp"
#include "unit/report/html_check.hpp"
#include "unit/report/sample_verdicts.hpp"
#include "unit/test_text.hpp"

namespace html_renderer_tests {

using namespace culprit::report;
namespace d = culprit::diagnose;

namespace {

using culprit::test::contains;

void require_clean(const std::string& html) {
  const auto problems = test::check_html(html);
  for (const auto& p : problems.list) INFO(p);
  CAPTURE(problems.list);
  REQUIRE(problems.ok());
  CHECK(html.rfind("<!DOCTYPE html>\n", 0) == 0);
  CHECK(contains(html, "<meta charset=\"utf-8\">"));
  CHECK_FALSE(contains(html, "<script"));
  CHECK(html.back() == '\n');
}

}  // namespace

TEST_CASE("html: CUDA OOM report is well-formed, offline, and shows the verdict", "[report]") {
  const std::string html = render(test::cuda_oom_foreign(), Format::html);
  require_clean(html);
  CHECK(contains(html, "<main id=\"culprit-report\" data-verdict=\"cuda_oom\" data-confidence=\"high\">"));
  CHECK(contains(html, "<h1 id=\"verdict\">CUDA OOM on spark-b GPU 0 at 2026-04-09 00:47:13Z — pid 48211 "
                       "VLLM::EngineCore (foreign)</h1>"));
  CHECK(contains(html, "<title>culprit: CUDA OOM on spark-b GPU 0"));
  // The only URL is the one PyTorch printed, as escaped text inside the evidence block.
  CHECK(test::count_of(html, "https://") == 1);
  CHECK(contains(html, "<pre><code>torch.OutOfMemoryError: CUDA out of memory."));
}

TEST_CASE("html: the timeline has a lane per host, the root failure and its echo marked", "[report]") {
  const std::string html = render(test::cuda_oom_foreign(), Format::html);
  REQUIRE(contains(html, "<section id=\"timeline\">"));
  CHECK(contains(html, "class=\"lane-label\" text-anchor=\"end\">spark-b</text>"));
  CHECK(contains(html, "class=\"lane-label\" text-anchor=\"end\">spark-a</text>"));
  CHECK(test::count_of(html, "class=\"ev root\"") == 1);
  CHECK(test::count_of(html, "class=\"ev echo\"") == 1);
  CHECK(contains(html, ">root failure: cuda_oom on spark-b</text>"));
  // The boot-stamped Xid could not be placed: it is counted, not drawn.
  CHECK(contains(html, "1 event could not be placed in time"));
  // Hover text carries source:line and the message.
  CHECK(contains(html, "<title>2026-04-09T00:47:13.412Z  spark-b  cuda_oom  pid 51877, rank 0  [root]\n"
                       "spark-b/train-rank0.log:1184\ntorch.OutOfMemoryError"));
  CHECK(contains(html, "<strong>spark-b</strong>: wall clock stamps (UTC assumed) (medium)"));
}

TEST_CASE("html: GPU memory is stacked by role with the failed request against the free memory", "[report]") {
  const std::string html = render(test::cuda_oom_foreign(), Format::html);
  REQUIRE(contains(html, "<section id=\"gpu-memory\">"));
  CHECK(contains(html, "spark-b · GPU 0 · NVIDIA GB10 · unified memory: the GPU uses the host&#39;s 119.70 GiB"));
  // Three snapshots plus the ledger bar: the foreign engine in each, the job where it ran.
  CHECK(test::count_of(html, "class=\"seg foreign s0\"") == 4);
  CHECK(test::count_of(html, "class=\"seg job s0\"") == 2);
  CHECK(contains(html, "class=\"seg rest\""));
  CHECK(contains(html, "class=\"seg free\""));
  CHECK(contains(html, "class=\"seg unreported\""));  // nvidia-smi: "Not Supported" on GB10
  CHECK(contains(html, "class=\"seg request\""));
  CHECK(contains(html, "class=\"seg shortfall\""));
  CHECK(contains(html, ">short by</text>"));
  CHECK(contains(html, ">819.20 MiB</text>"));
  CHECK(contains(html, ">foreign: VLLM::EngineCore 84.00 GiB</text>"));
  CHECK(contains(html, ">job: python3 30.00 GiB</text>"));
  CHECK(contains(html, "At the failure the job asked for 2.00 GiB with 1.20 GiB free: short by 819.20 MiB."));
  CHECK_FALSE(contains(html, "<section id=\"oom-tasks\">"));
}

TEST_CASE("html: a kernel OOM shows the task table by rss with victim and hog marked", "[report]") {
  const std::string html = render(test::kernel_oom_victim_not_hog(), Format::html);
  require_clean(html);
  REQUIRE(contains(html, "<section id=\"oom-tasks\">"));
  CHECK(contains(html, "node-3 · kernel OOM at 2026-03-02T14:05:09.000Z · CONSTRAINT_NONE · triggered by pid 4242 python3"));
  CHECK(test::count_of(html, "class=\"seg job s0 hog\"") == 1);
  CHECK(test::count_of(html, "class=\"seg unknown s0 victim\"") == 1);
  CHECK(contains(html, ">58.20 GiB (92%)  ◀ hog (largest rss)</text>"));
  CHECK(contains(html, ">6.53 GiB (10%)  ◀ victim (killed)</text>"));
  CHECK(contains(html, "The 4 largest of the 214 tasks"));
  CHECK_FALSE(contains(html, "<section id=\"gpu-memory\">"));
}

TEST_CASE("html: an unknown verdict has no pictures and still reads", "[report]") {
  const std::string html = render(test::unknown_nothing(), Format::html);
  require_clean(html);
  CHECK(contains(html, "data-verdict=\"unknown\""));
  CHECK(contains(html, "<h1 id=\"verdict\">Unknown — no failure recognised in 2 sources (252 lines)</h1>"));
  CHECK_FALSE(contains(html, "<svg"));
  CHECK(contains(html, "<h2>Sources</h2>"));
}

TEST_CASE("html: the Markdown report below the pictures is the same text as HTML", "[report]") {
  const std::string html = render(test::cuda_oom_foreign(), Format::html);
  CHECK(contains(html, "<h2>Memory budget (spark-b, GPU 0, unified memory)</h2>"));
  CHECK(contains(html, "<th>Entry</th><th>Role</th><th class=\"num\">PID</th>"));
  CHECK(contains(html, "<td>foreign pid 48211 (VLLM::EngineCore)</td>"));
  CHECK(contains(html, "<li>Check <code>nvidia-smi</code> before starting a job on a shared GPU.</li>"));
  CHECK(contains(html, "<h2>Events across hosts</h2>"));
  CHECK(contains(html, "<h2>Hosts and clocks</h2>"));
  // The title and summary are in the page header only once.
  CHECK(test::count_of(html, "Rank 0 on spark-b failed to allocate 2.00 GiB") == 1);
  CHECK_FALSE(contains(html, "# Incident"));
}

TEST_CASE("html: hostile log text cannot inject markup or break the page", "[report]") {
  auto v = test::cuda_oom_foreign();
  const std::string evil = "</pre><script src=\"https://evil.example/x.js\"></script><img src=x onerror=alert(1)>"
                           "\" onmouseover=\"alert(2)\x1b[31m\x01 & '";
  v.summary = evil;
  v.culprit->name = evil;
  v.culprit->host = evil;
  v.root->title = evil;
  v.evidence[0].text = evil + "\n" + evil;
  v.evidence[0].source = evil;
  v.advice.push_back(evil);
  v.data.timeline[0].summary = evil;
  v.data.timeline[0].host = evil;
  v.data.timeline[0].kind = evil;
  v.data.hosts[0].method = evil;
  v.data.gpus[0].model = evil;
  v.data.gpus[0].samples[0].processes[0].name = evil;
  v.budget->entries[0].label = evil;
  const std::string html = render(v, Format::html);
  require_clean(html);
  CHECK_FALSE(contains(html, "<img"));
  CHECK_FALSE(contains(html, "\x1b"));
  CHECK_FALSE(contains(html, "\x01"));
  CHECK(contains(html, "&lt;script src=&quot;https://evil.example/x.js&quot;&gt;"));
}

TEST_CASE("html: absurd numbers still give finite coordinates", "[report]") {
  auto v = test::cuda_oom_foreign();
  v.data.timeline[0].ts = 1e300;
  v.data.timeline[1].ts = -1e300;
  v.data.gpus[0].samples[0].processes[0].bytes = INT64_MAX / 2;
  v.data.gpus[0].samples[1].used = 0;
  v.data.gpus[0].samples[1].total = 0;
  v.budget->requested = INT64_MAX / 4;
  v.budget->free = 0;
  const std::string html = render(v, Format::html);
  require_clean(html);
  CHECK_FALSE(contains(html, "nan"));
  CHECK_FALSE(contains(html, "inf\""));
}

TEST_CASE("html: a thousand snapshots and events stay bounded", "[report]") {
  auto v = test::cuda_oom_foreign();
  const auto base_event = v.data.timeline[0];
  const auto base_sample = v.data.gpus[0].samples[1];
  for (int i = 0; i < 1000; ++i) {
    auto e = base_event;
    e.ts = *e.ts + i;
    e.event_id = 1000 + i;
    v.data.timeline.push_back(e);
    auto s = base_sample;
    s.ts = *s.ts + i;
    v.data.gpus[0].samples.push_back(s);
  }
  const std::string html = render(v, Format::html);
  require_clean(html);
  CHECK(html.size() < 3'000'000);
}

TEST_CASE("html: host and cgroup memory over time carry their readings", "[report]") {
  d::Verdict v = test::unknown_nothing();
  const double t0 = culprit::core::civil_to_epoch(2026, 4, 9, 0, 47, 10);
  d::MemorySeries host{"gpu-7", "host", "", false, {}};
  d::MemorySeries cgroup{"gpu-7", "cgroup", "/job", true, {}};
  for (int i = 0; i < 3; ++i) {
    host.readings.push_back({t0 + i * 0.5, "gpu-7/sample-000" + std::to_string(i) + "-meminfo.txt", 2,
                             (10 + i) * test::kGiB, 64 * test::kGiB, (54 - i) * test::kGiB});
    cgroup.readings.push_back({t0 + i * 0.5, "gpu-7/sample-000" + std::to_string(i) + "-cgroup.txt", 1,
                               (2 + i) * test::kGiB, std::nullopt, std::nullopt});
  }
  v.data.memory = {host, cgroup};
  const std::string html = render(v, Format::html);
  require_clean(html);
  CHECK(contains(html, "<h2>Host and cgroup memory over time</h2>"));
  CHECK(contains(html, "data-kind=\"host\" data-host=\"gpu-7\" data-readings=\"[[1775695630.000000,10737418240,68719476736],"));
  CHECK(contains(html, "data-kind=\"cgroup\""));
  CHECK(contains(html, "gpu-7 · cgroup /job · no limit (max)"));
  CHECK(contains(html, "2026-04-09T00:47:11.000Z: used 12.00 GiB of 64.00 GiB, available 52.00 GiB"));
  CHECK_FALSE(contains(html, "limit: memory.max"));  // no limit: none drawn, none in the legend
  // Each second labelled once on a run shorter than the ticks.
  std::size_t labels = 0;
  for (std::size_t at = html.find(">00:47:10<"); at != std::string::npos; at = html.find(">00:47:10<", at + 1)) ++labels;
  CHECK(labels == 2);  // once per chart
}

namespace {

/// The x of the first SVG `<text>` whose content is `content` (NaN when there is none).
double text_x(const std::string& html, const std::string& content) {
  const auto end = html.find(">" + content + "</text>");
  if (end == std::string::npos) return std::nan("");
  const auto open = html.rfind("<text x=\"", end);
  if (open == std::string::npos) return std::nan("");
  return std::stod(html.substr(open + 9));
}

}  // namespace

TEST_CASE("html: the memory chart is chronological, the ledger at the failure standing between the snapshots",
          "[report]") {
  // Snapshots at 00:42:13 and 00:46:13 before the failure (00:47:13), one at 00:47:22 after it.
  const std::string html = render(test::cuda_oom_foreign(), Format::html);
  const double before = text_x(html, "00:46:13");
  const double ledger = text_x(html, "failure 00:47:13");
  const double after = text_x(html, "00:47:22");
  CHECK(text_x(html, "00:42:13") < before);
  CHECK(before < ledger);
  CHECK(ledger < after);
  // The holders' labels stay left of the later snapshot, inside the ledger block.
  CHECK(text_x(html, "foreign: VLLM::EngineCore 84.00 GiB") < after);
  CHECK(test::count_of(html, ">snapshots in time order (UTC)</text>") == 2);  // one per side
}

TEST_CASE("html: snapshots all taken before the failure stand left of the ledger", "[report]") {
  auto v = test::cuda_oom_foreign();
  v.data.gpus[0].samples.pop_back();  // drop the one taken after the failure
  const std::string html = render(v, Format::html);
  CHECK(text_x(html, "00:46:13") < text_x(html, "failure 00:47:13"));
  CHECK(test::count_of(html, ">snapshots in time order (UTC)</text>") == 1);
}

TEST_CASE("html: the chart names each holder with the ledger's word, holders without a pid apart", "[report]") {
  auto v = test::cuda_oom_foreign();
  auto& b = *v.budget;
  b.entries.push_back({"unattributed: pid 3094 /usr/lib/xorg/Xorg", "unknown", 3094, 43 * test::kMiB});
  b.entries.push_back({"kernel: page cache (buff/cache)", "kernel", std::nullopt, 2 * test::kGiB});
  b.entries.push_back({"kernel: slab, unreclaimable", "kernel", std::nullopt, 300 * test::kMiB});
  const std::string html = render(v, Format::html);
  // The legend and the callouts say what the ledger's table says; each size is its own holder's.
  CHECK(contains(html, "unattributed: pid 3094 /usr/lib/xorg/Xorg &middot; up to 43.00 MiB</li>"));
  CHECK(contains(html, "kernel: page cache (buff/cache) &middot; up to 2.00 GiB</li>"));
  CHECK(contains(html, "kernel: slab, unreclaimable &middot; up to 300.00 MiB</li>"));
  CHECK_FALSE(contains(html, "role unknown: page cache"));
  // A snapshot's process the ledger does not name keeps its role's words.
  CHECK(contains(html, "foreign: pid 48211 VLLM::EngineCore &middot; up to 84.00 GiB</li>"));
}

}  // namespace html_renderer_tests
