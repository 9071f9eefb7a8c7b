// The NVIDIA driver's own allocation failure (open-gpu-kernel-modules, nvCheckOkFailedNoLog /
// nvAssertOkFailedNoLog: "Check failed: %s (0x%08x) returned from %s @ %s:%d", with
// nvstatusToString's "Out of memory [NV_ERR_NO_MEMORY]"): alone, a low-confidence device
// allocation failure blamed on the job (no holder is known); beside a process's own CUDA OOM, an
// echo of it; another status is nothing.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "unit/diagnose/diagnose_support.hpp"

namespace {

using culprit::test::diagnose_texts;

constexpr const char* kNoMemory =
    "[ 8123.456789] NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory [NV_ERR_NO_MEMORY] (0x00000051) "
    "returned from _memdescAllocInternal(pMemDesc) @ mem_desc.c:1359\n";

}  // namespace

TEST_CASE("driver-no-memory alone: a low-confidence CUDA OOM of the job", "[diagnose][driver]") {
  const auto v = diagnose_texts({{"dmesg.txt", "spark-1", kNoMemory}});
  CHECK(v.verdict == "cuda_oom");
  CHECK(v.confidence == culprit::diagnose::Confidence::low);
  REQUIRE(v.root);
  CHECK(v.root->rule == "driver-no-memory");
  REQUIRE(v.culprit);
  CHECK(v.culprit->role == "job");
  CHECK(v.summary.find("No process's own CUDA error") != std::string::npos);
  CHECK(v.summary.find(" on spark-1") != std::string::npos);
}

TEST_CASE("driver-no-memory beside the process's own CUDA OOM is its echo", "[diagnose][driver]") {
  const auto v = diagnose_texts(
      {{"dmesg.txt", "spark-1", kNoMemory},
       {"train.log", "spark-1",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "119.70 GiB of which 1.10 GiB is free. Including non-PyTorch memory, this process has 110.02 GiB memory in "
        "use.\n"}});
  CHECK(v.verdict == "cuda_oom");
  REQUIRE(v.root);
  CHECK(v.root->rule == "cuda-oom");
  CHECK(std::any_of(v.echoes.begin(), v.echoes.end(), [](const auto& f) { return f.rule == "driver-no-memory"; }));
}

TEST_CASE("another RM status is not a driver allocation failure", "[diagnose][driver]") {
  const auto v = diagnose_texts(
      {{"dmesg.txt", "spark-1",
        "[ 8123.456789] NVRM: nvAssertOkFailedNoLog: Assertion failed: Invalid argument [NV_ERR_INVALID_ARGUMENT] "
        "(0x0000001F) returned from memdescCreate() @ mem_desc.c:200\n"}});
  CHECK(v.verdict == "unknown");
}
