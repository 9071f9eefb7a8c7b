// AMD monitors in the GPU ledger: a bare HIP out-of-memory error beside rocm-smi's concise table
// (VRAM% only) or amd-smi monitor (bytes) that shows the GPU full with no process listed reaches
// the invisible-holder row, as nvidia-smi, gpustat and nvitop tables do. Look-alikes: the GPU
// not full, and a monitor that lists the holder. The monitor texts are the fixtures of
// fixtures/formats/{rocm_smi,amd_smi}, written from the tools' printing code.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "unit/diagnose/diagnose_support.hpp"

namespace {

std::string monitor_fixture(const char* path) {
  std::ifstream in(std::filesystem::path(CULPRIT_SOURCE_DIR) / "fixtures/formats" / path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  REQUIRE_FALSE(ss.str().empty());
  return ss.str();
}

const char* kError = "RuntimeError: HIP error: out of memory\n";

}  // namespace

TEST_CASE("amd monitors: rocm-smi's concise VRAM% of a full GPU, no process: invisible holder", "[diagnose][ledger][rocm_smi]") {
  const auto v = culprit::test::diagnose_texts(
      {{"train.log", "mi-1", kError}, {"rocm-smi.txt", "mi-1", monitor_fixture("rocm_smi/v5-concise-full-gpu.txt")}});
  CHECK(v.verdict == "cuda_oom");
  // A share and no bytes: the budget holds no sizes, its arithmetic says the share.
  REQUIRE(v.budget);
  CHECK(v.budget->rule == "invisible-holder");
  CHECK_FALSE(v.budget->total);
  REQUIRE_FALSE(v.budget->arithmetic.empty());
  CHECK(v.budget->arithmetic.front() == "GPU 0: 98% of its memory in use, as the monitor gives it (a share, no bytes)");
  REQUIRE(v.culprit);
  CHECK(v.culprit->role == "foreign");
  CHECK_FALSE(v.culprit->pid);
  CHECK(v.culprit->why == "GPU 0 was 98% used with no process listed");
  // The advice names AMD's process listings, not nvidia-smi's.
  CHECK(v.summary.find("amd-smi process") != std::string::npos);
  CHECK(v.summary.find("nvidia-smi") == std::string::npos);
}

TEST_CASE("amd monitors: amd-smi monitor's full GPU, no process table: invisible holder", "[diagnose][ledger][amd_smi]") {
  const auto v = culprit::test::diagnose_texts(
      {{"train.log", "mi-2", kError}, {"amd-smi.txt", "mi-2", monitor_fixture("amd_smi/v6-monitor-full-gpu.txt")}});
  REQUIRE(v.budget);
  CHECK(v.budget->rule == "invisible-holder");
  REQUIRE(v.budget->total);
  CHECK(*v.budget->total == 196592LL * 1024 * 1024);
}

TEST_CASE("amd monitors: amd-smi monitor -q's row of N/A under a full GPU: invisible holder", "[diagnose][ledger][amd_smi]") {
  const auto v = culprit::test::diagnose_texts(
      {{"train.log", "mi-2", kError},
       {"amd-smi.txt", "mi-2", monitor_fixture("amd_smi/v6-monitor-vram-processes.txt")}});
  REQUIRE(v.budget);
  CHECK(v.budget->rule == "invisible-holder");
}

TEST_CASE("amd monitors look-alikes: a GPU not full, a holder listed", "[diagnose][ledger][amd_smi]") {
  // The concise table with GPU 0 at 50 % (the same column widths).
  std::string half = monitor_fixture("rocm_smi/v5-concise-full-gpu.txt");
  const auto at = half.find(" 98%");
  REQUIRE(at != std::string::npos);
  half.replace(at, 4, " 50%");
  const auto idle = culprit::test::diagnose_texts({{"train.log", "mi-1", kError}, {"rocm-smi.txt", "mi-1", half}});
  CHECK((!idle.budget || idle.budget->rule != "invisible-holder"));
  // amd-smi monitor -q listing a process on the full GPU 0: a holder is listed.
  std::string listed = monitor_fixture("amd_smi/v6-monitor-vram-processes.txt");
  const std::string none = "  0                   N/A      N/A       N/A       N/A       N/A        N/A     N/A     N/A";
  const auto row = listed.find(none);
  REQUIRE(row != std::string::npos);
  listed.replace(row, none.size(), "  0               vllm      7001    2.0 MB    1.1 GB  187.0 GB   188.0 GB    0 ns    0 ns");
  const auto v = culprit::test::diagnose_texts({{"train.log", "mi-2", kError}, {"amd-smi.txt", "mi-2", listed}});
  CHECK((!v.budget || v.budget->rule != "invisible-holder"));
}

TEST_CASE("amd monitors: amd-smi monitor -w, the interval nearest the failure decides", "[diagnose][ledger][amd_smi]") {
  // GPU 0 at 120334 MB (61 %) at 00:47:00Z, at 191862 MB (97.6 %) at 00:47:02Z.
  const std::string watch = monitor_fixture("amd_smi/v6-monitor-watch.txt");
  const auto late = culprit::test::diagnose_texts(
      {{"train.log", "mi-3", "2026-04-09 00:47:02,900 ERROR RuntimeError: HIP error: out of memory\n"},
       {"amd-smi.txt", "mi-3", watch}});
  REQUIRE(late.budget);
  CHECK(late.budget->rule == "invisible-holder");
  const auto early = culprit::test::diagnose_texts(
      {{"train.log", "mi-3", "2026-04-09 00:47:00,100 ERROR RuntimeError: HIP error: out of memory\n"},
       {"amd-smi.txt", "mi-3", watch}});
  REQUIRE(early.budget);
  CHECK(early.budget->rule != "invisible-holder");
  REQUIRE(early.budget->free);
  CHECK(*early.budget->free == (196592LL - 120334) * 1024 * 1024);
}
