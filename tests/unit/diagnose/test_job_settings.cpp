// When the job itself is the culprit of a CUDA OOM, the advice names the memory settings its own
// logs show (bash -x traces, vLLM's non-default args), with what each does; a foreign culprit's
// advice does not blame the job's settings.
#include <catch2/catch.hpp>

#include "unit/diagnose/diagnose_support.hpp"

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
  std::size_t n = 0;
  for (auto at = a.find("XLA_PYTHON_CLIENT_MEM_FRACTION=0.95"); at != std::string::npos;
       at = a.find("XLA_PYTHON_CLIENT_MEM_FRACTION=0.95", at + 1))
    ++n;
  CHECK(n == 1);
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
