// Repeats of one failure fold into one finding: an error logged with a stamp and printed again
// without one (vLLM's logged traceback, then multiprocessing's stderr copy of the same
// exception) is one failure, not a root and its own echo.
#include <catch2/catch.hpp>

#include "unit/diagnose/diagnose_support.hpp"

namespace {

const char* kVllmLog =
    "(EngineCore_DP0 pid=5298) ERROR 04-12 09:14:23 [core.py:708] EngineCore failed to start.\n"
    "(EngineCore_DP0 pid=5298) ERROR 04-12 09:14:23 [core.py:708] Traceback (most recent call last):\n"
    "(EngineCore_DP0 pid=5298) ERROR 04-12 09:14:23 [core.py:708]   File \"/x/vllm/v1/worker/gpu_worker.py\", line 201, in init_device\n"
    "(EngineCore_DP0 pid=5298) ERROR 04-12 09:14:23 [core.py:708]     raise ValueError(\n"
    "(EngineCore_DP0 pid=5298) ERROR 04-12 09:14:23 [core.py:708] ValueError: Free memory on device cuda:0 "
    "(69.42/121.63 GiB) on startup is less than desired GPU memory utilization (0.8, 97.3 GiB). Decrease GPU "
    "memory utilization or reduce GPU memory used by other processes.\n"
    "(EngineCore_DP0 pid=5298) Process EngineCore_DP0:\n"
    "(EngineCore_DP0 pid=5298) Traceback (most recent call last):\n"
    "(EngineCore_DP0 pid=5298)   File \"/x/vllm/v1/worker/gpu_worker.py\", line 201, in init_device\n"
    "(EngineCore_DP0 pid=5298)     raise ValueError(\n"
    "(EngineCore_DP0 pid=5298) ValueError: Free memory on device cuda:0 (69.42/121.63 GiB) on startup is less "
    "than desired GPU memory utilization (0.8, 97.3 GiB). Decrease GPU memory utilization or reduce GPU memory "
    "used by other processes.\n";

}  // namespace

TEST_CASE("a stamped error and its unstamped reprint are one finding", "[diagnose][repeats]") {
  const auto v = culprit::test::diagnose_texts({{"vllm.log", "spark-1", kVllmLog}});
  CHECK(v.verdict == "cuda_oom");
  REQUIRE(v.root);
  CHECK(v.root->ts);  // the stamped copy leads
  CHECK(v.echoes.empty());
  int startup = 0;
  for (const auto& f : v.findings) startup += f.rule == "startup-memory-check";
  CHECK(startup == 1);
  // The vLLM figures in GiB reach the ledger as bytes.
  REQUIRE(v.budget);
  REQUIRE(v.budget->free);
  CHECK(*v.budget->free == 74539157422);
  REQUIRE(v.budget->total);
  CHECK(*v.budget->total == 130599218053);
  REQUIRE(v.budget->shortfall);
  CHECK(*v.budget->shortfall == 104475079475 - 74539157422);
}

TEST_CASE("two different unstamped-and-stamped errors stay two findings", "[diagnose][repeats]") {
  const auto v = culprit::test::diagnose_texts(
      {{"a.log", "spark-1",
        "ERROR 04-12 09:14:23 [core.py:708] ValueError: Free memory on device cuda:0 (69.42/121.63 GiB) on "
        "startup is less than desired GPU memory utilization (0.8, 97.3 GiB).\n"
        "ValueError: Free memory on device cuda:1 (9.42/121.63 GiB) on startup is less than desired GPU memory "
        "utilization (0.8, 97.3 GiB).\n"}});
  int startup = 0;
  for (const auto& f : v.findings) startup += f.rule == "startup-memory-check";
  CHECK(startup == 2);
}

// The same error quoted twice: a line that only repeats it (a note above the paste) and the
// runner's own output, whose ggml trailer names the first CUDA use (cudaMemGetInfo at start-up;
// ggml_cuda_error's format "  current device: %d, in function %s at %s:%d" then the call). The
// copy whose ledger knows more speaks for the failure: another process held the GPU.
TEST_CASE("a repeat whose ledger knows more decides the culprit of the merged failure", "[diagnose][repeats]") {
  const auto v = culprit::test::diagnose_texts(
      {{"a-note.txt", "box", "Error: llama runner process has terminated: CUDA error: out of memory\n"},
       {"terminal.txt", "box",
        "Error: llama runner process has terminated: CUDA error: out of memory\n"
        "  current device: 0, in function ggml_backend_cuda_device_get_memory at "
        "/ml/backend/ggml/ggml/src/ggml-cuda/ggml-cuda.cu:2898\n"
        "  cudaMemGetInfo(free, total)\n"}});
  CHECK(v.verdict == "cuda_oom");
  REQUIRE(v.culprit);
  CHECK(v.culprit->role == "foreign");
  REQUIRE(v.root);
  CHECK_FALSE(v.root->culprit_by_default);
  CHECK(v.echoes.empty());
}

// Without the trailer neither copy knows more: the job itself, by default.
TEST_CASE("repeats that know nothing more keep the job by default", "[diagnose][repeats]") {
  const auto v = culprit::test::diagnose_texts(
      {{"a-note.txt", "box", "Error: llama runner process has terminated: CUDA error: out of memory\n"},
       {"terminal.txt", "box", "Error: llama runner process has terminated: CUDA error: out of memory\n"}});
  REQUIRE(v.culprit);
  CHECK(v.culprit->role == "job");
  REQUIRE(v.root);
  CHECK(v.root->culprit_by_default);
}
