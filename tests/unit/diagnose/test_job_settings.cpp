// When the job itself is the culprit of a CUDA OOM, the advice names the memory settings its own
// logs show (bash -x traces, vLLM's non-default args), with what each does; a foreign culprit's
// advice does not blame the job's settings.
#include <catch2/catch.hpp>

#include "unit/diagnose/diagnose_support.hpp"

namespace {

/// How many times `part` occurs in `text`.
std::size_t count_of(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_CASE("a job-caused OOM names the job's XLA preallocation setting", "[diagnose][settings]") {
  const auto v = culprit::test::diagnose_texts(
      {{"train.log", "a3-node-2",
        "+ export XLA_PYTHON_CLIENT_MEM_FRACTION=0.95\n"
        "+ XLA_PYTHON_CLIENT_MEM_FRACTION=0.95\n"
        "+ python3 -u train_jax.py\n"
        "\n[2026-04-09 00:47:22] a3-node-2:2211:2530 [5] include/alloc.h:125 NCCL WARN Cuda failure 'out of memory'\n"}});
  CHECK(v.verdict == "cuda_oom");
  REQUIRE(v.culprit);
  CHECK(v.culprit->role == "job");
  REQUIRE_FALSE(v.advice.empty());
  const auto& a = v.advice.front();
  CHECK(a.find("XLA_PYTHON_CLIENT_MEM_FRACTION=0.95 (train.log:1)") != std::string::npos);
  CHECK(a.find("XLA_PYTHON_CLIENT_PREALLOCATE=false") != std::string::npos);
  // Named once although the trace echoes it twice.
  CHECK(count_of(a, "XLA_PYTHON_CLIENT_MEM_FRACTION=0.95") == 1);
}

TEST_CASE("settings on another host are not this job's", "[diagnose][settings]") {
  const auto v = culprit::test::diagnose_texts(
      {{"a.log", "node-a", "+ export XLA_PYTHON_CLIENT_MEM_FRACTION=0.95\n"},
       {"b.log", "node-b",
        "\n[2026-04-09 00:47:22] node-b:2211:2530 [5] include/alloc.h:125 NCCL WARN Cuda failure 'out of memory'\n"}});
  REQUIRE_FALSE(v.advice.empty());
  CHECK(v.advice.front().find("XLA_PYTHON_CLIENT_MEM_FRACTION") == std::string::npos);
}

TEST_CASE("a job-caused OOM's advice speaks the failing framework's knobs", "[diagnose][settings]") {
  const auto llama = culprit::test::diagnose_texts(
      {{"ollama.log", "",
        "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 38912.00 MiB on device 0: cudaMalloc failed: out of memory\n"}});
  REQUIRE(llama.verdict == "cuda_oom");
  REQUIRE_FALSE(llama.advice.empty());
  CHECK(llama.advice.front().find("--n-gpu-layers") != std::string::npos);
  CHECK(llama.advice.front().find("PYTORCH_CUDA_ALLOC_CONF") == std::string::npos);

  const auto torch = culprit::test::diagnose_texts(
      {{"train.log", "",
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "23.64 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 22.50 GiB memory in use.\n"}});
  REQUIRE(torch.verdict == "cuda_oom");
  REQUIRE_FALSE(torch.advice.empty());
  CHECK(torch.advice.front().find("PYTORCH_CUDA_ALLOC_CONF") != std::string::npos);
}

namespace {

// vLLM V1's start-up memory report, as its gpu_worker.py prints it (≈0.11; the form in
// ../shared/reference/messages-gpu.md), then an OOM of the same engine core.
constexpr const char* kV1Report =
    "(EngineCore_DP0 pid=1187) INFO 10-14 09:12:41 [gpu_worker.py:298] Free memory on device (78.54/79.19 GiB) on "
    "startup. Desired GPU memory utilization is (0.9, 71.27 GiB). Actual usage is 15.27 GiB for weight, 2.11 GiB for "
    "peak activation, 0.21 GiB for non-torch memory, and 0.62 GiB for CUDAGraph memory. Replace gpu_memory_utilization "
    "config with `--kv-cache-memory=56829906534` to fit into requested memory, or `--kv-cache-memory=63798251929` to "
    "fully utilize gpu memory. Current kv cache memory in use is 57400000000 bytes.\n";
constexpr const char* kV1Oom =
    "(EngineCore_DP0 pid=1187) torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a "
    "total capacity of 79.19 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 78.05 GiB "
    "memory in use.\n";

}  // namespace

TEST_CASE("vLLM V1's start-up report names the share the engine ran with", "[diagnose][settings]") {
  const auto v = culprit::test::diagnose_texts({{"serve.log", "", std::string(kV1Report) + kV1Oom}});
  REQUIRE(v.verdict == "cuda_oom");
  REQUIRE_FALSE(v.advice.empty());
  CHECK(v.advice.front().find("gpu_memory_utilization=0.9 (serve.log:1): vLLM claims") != std::string::npos);
}

TEST_CASE("a setting the command line and the engine name apart is one setting", "[diagnose][settings]") {
  // `--gpu-memory-utilization 0.9` on the command line is the engine's gpu_memory_utilization,
  // named once, as its first line spells it.
  const auto v = culprit::test::diagnose_texts(
      {{"serve.log", "",
        std::string("+ vllm serve Qwen/Qwen3-30B-A3B --gpu-memory-utilization 0.9 --max-model-len 32768\n") + kV1Report +
            kV1Oom}});
  REQUIRE(v.verdict == "cuda_oom");
  REQUIRE_FALSE(v.advice.empty());
  const auto& a = v.advice.front();
  CHECK(a.find("gpu-memory-utilization=0.9 (serve.log:1): vLLM claims") != std::string::npos);
  CHECK(count_of(a, "memory-utilization=0.9") + count_of(a, "memory_utilization=0.9") == 1);
}
