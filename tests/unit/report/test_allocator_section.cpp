// The allocator section (src/report/allocator_wording.cpp) in the text and Markdown reports (the
// HTML shows the Markdown): beside the ledger, its figures, what they say (fragmentation, a
// request larger than the cache, a block that could hold it), the sites, and log text made safe.
#include <catch2/catch.hpp>

#include <string>

#include "culprit/diagnose/finding.hpp"
#include "culprit/report/redact.hpp"
#include "culprit/report/renderer.hpp"
#include "unit/report/sample_verdicts.hpp"

namespace allocator_section_tests {

using namespace culprit::report;
namespace d = culprit::diagnose;

namespace {

/// The line of `text` holding `needle` ('' none).
std::string line_with(const std::string& text, const std::string& needle) {
  const auto at = text.find(needle);
  if (at == std::string::npos) return {};
  const auto start = text.rfind('\n', at);
  const auto end = text.find('\n', at);
  return text.substr(start == std::string::npos ? 0 : start + 1, end == std::string::npos ? std::string::npos : end - (start == std::string::npos ? 0 : start + 1));
}

/// The allocator section of a text report: from its title to the next section.
std::string allocator_part(const std::string& text) {
  const auto at = text.find("Allocator at the OOM");
  if (at == std::string::npos) return {};
  return text.substr(at, text.find("Root failure", at) - at);
}

d::AllocatorView fragmented_view() {
  d::AllocatorView a;
  a.host = "spark-b";
  a.gpu = 0;
  a.torch_version = "2.1.2";
  a.reserved = 52 * test::kGiB;
  a.allocated = 49 * test::kGiB;
  a.unallocated = 3 * test::kGiB;
  a.largest_free = test::kGiB + test::kGiB / 2;
  a.requested = 2 * test::kGiB;
  a.live_blocks = 7;
  a.site_count = 12;
  a.sites.push_back({"/srv/job/model.py", 88, "attention", 22 * test::kGiB, 2, 12 * test::kGiB});
  a.sites.push_back({"/srv/job/train.py", 18, "build\x1b[2Jmodel", 20 * test::kGiB, 1, 20 * test::kGiB});
  return a;
}

}  // namespace

TEST_CASE("allocator section: text report, beside the ledger", "[report][allocator]") {
  auto v = test::cuda_oom_foreign();
  v.data.allocator = fragmented_view();
  RenderOptions o;
  o.width = 100;
  const std::string text = render(v, Format::text, o);
  INFO(text);
  const auto at = text.find("Allocator at the OOM — spark-b GPU 0 (PyTorch 2.1.2 snapshot)");
  REQUIRE(at != std::string::npos);
  CHECK(text.find("Memory budget") < at);
  CHECK(at < text.find("Root failure"));
  CHECK(line_with(text, "reserved − allocated").find(" 3.00 GiB") != std::string::npos);
  CHECK(line_with(text, "largest free block").find(" 1.50 GiB") != std::string::npos);
  CHECK(line_with(allocator_part(text), "requested").find(" 2.00 GiB") != std::string::npos);
  CHECK(text.find("Fragmentation:") != std::string::npos);
  CHECK(text.find("22.00 GiB     2 blocks  model.py:88 in attention") != std::string::npos);
  CHECK(text.find("… and 10 more sites") != std::string::npos);
  CHECK(text.find('\x1b') == std::string::npos);  // a function name's escape never reaches the terminal
}

TEST_CASE("allocator section: what the figures say", "[report][allocator]") {
  RenderOptions unwrapped;
  unwrapped.width = 0;  // sentences on one line each
  auto v = test::cuda_oom_foreign();
  auto a = fragmented_view();
  a.requested = 4 * test::kGiB;  // more than all the cache held
  v.data.allocator = a;
  std::string text = render(v, Format::text, unwrapped);
  CHECK(text.find("Fragmentation:") == std::string::npos);
  CHECK(text.find("is larger than all the allocator held unallocated") != std::string::npos);
  a.requested = test::kGiB;  // a free block could hold it
  v.data.allocator = a;
  text = render(v, Format::text, unwrapped);
  CHECK(text.find("does not show the allocator short of a block") != std::string::npos);
  a.requested.reset();
  a.sites.clear();
  a.site_count = 0;
  v.data.allocator = a;
  text = render(v, Format::text, unwrapped);
  CHECK(allocator_part(text).find("requested") == std::string::npos);  // no request known: no row
  CHECK(text.find("No Python frame was recorded") != std::string::npos);
  v.data.allocator.reset();
  CHECK(render(v, Format::text, unwrapped).find("Allocator at the OOM") == std::string::npos);
}

TEST_CASE("allocator section: Markdown and HTML", "[report][allocator]") {
  auto v = test::cuda_oom_foreign();
  v.data.allocator = fragmented_view();
  const std::string md = render(v, Format::markdown);
  INFO(md);
  CHECK(md.find("## Allocator at the OOM") != std::string::npos);
  CHECK(md.find("| reserved − allocated | 3.00 GiB | 3221225472 |") != std::string::npos);
  CHECK(md.find("| `model.py:88 in attention` | 22.00 GiB | 2 | 12.00 GiB | `/srv/job/model.py` |") != std::string::npos);
  CHECK(md.find('\x1b') == std::string::npos);
  const std::string html = render(v, Format::html);
  CHECK(html.find("Allocator at the OOM") != std::string::npos);
  CHECK(html.find("model.py:88 in attention") != std::string::npos);
}

TEST_CASE("allocator section: --redact hides its host and the user in its paths", "[report][allocator][redact]") {
  auto v = test::cuda_oom_foreign();
  auto a = fragmented_view();
  a.sites[0].file = "/home/alice/job/model.py";
  a.source = "spark-b/culprit-memory-spark-b-51877.json";
  v.data.allocator = a;
  const auto r = redact(v);
  REQUIRE(r.data.allocator);
  CHECK(r.data.allocator->host != "spark-b");
  for (const auto format : {Format::markdown, Format::json, Format::text}) {
    const std::string out = render(r, format);
    CHECK((out.find("Allocator at the OOM") != std::string::npos || format == Format::json));
    CHECK(out.find("spark-b") == std::string::npos);
    CHECK(out.find("alice") == std::string::npos);
  }
}

}  // namespace allocator_section_tests
