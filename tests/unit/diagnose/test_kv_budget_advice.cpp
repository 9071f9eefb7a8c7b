// A serving engine's own KV-cache budget came up short (signals that provide `kv_cache_budget`):
// the advice points where the engine points — raise its share of the GPU when the GPU has room,
// or lower the context length (to the engine's own estimate where it prints one) — in that
// engine's own knobs, and never says to lower the share. Lines in the engines' wordings (vLLM V1
// kv_cache_utils.py check_enough_kv_cache_memory, V0 worker.py raise_if_cache_size_invalid,
// SGLang model_runner.py init_memory_pool).
#include <catch2/catch.hpp>

#include "unit/diagnose/diagnose_support.hpp"

namespace {

std::string advice_of(const std::string& log) {
  const auto v = culprit::test::diagnose_texts({{"engine.log", "node-1", log}});
  REQUIRE(v.verdict == "cuda_oom");
  REQUIRE_FALSE(v.advice.empty());
  return v.advice.front();
}

}  // namespace

TEST_CASE("KV cache too small for max_model_len: raise the share or lower max_model_len to the estimate",
          "[diagnose][advice]") {
  const std::string a = advice_of(
      "ERROR 05-15 11:03:05 [core.py:396] ValueError: To serve at least one request with the models's max seq len "
      "(131072), (16.00 GiB KV cache is needed, which is larger than the available KV cache memory (3.66 GiB). Based "
      "on the available memory, the estimated maximum model length is 29968. Try increasing `gpu_memory_utilization` "
      "or decreasing `max_model_len` when initializing the engine.\n");
  CHECK_THAT(a, Catch::Contains("raise gpu_memory_utilization"));
  CHECK_THAT(a, Catch::Contains("lower max_model_len (--max-model-len) to at most 29968"));
  CHECK_THAT(a, !Catch::Contains("lower its footprint"));
}

TEST_CASE("no memory for the cache blocks (vLLM V0) and SGLang's pool name their own knobs", "[diagnose][advice]") {
  const std::string v0 = advice_of(
      "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when "
      "initializing the engine.\n");
  CHECK_THAT(v0, Catch::Contains("raise gpu_memory_utilization"));
  CHECK_THAT(v0, !Catch::Contains("to at most"));

  const std::string sglang = advice_of("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.\n");
  CHECK_THAT(sglang, Catch::Contains("raise --mem-fraction-static"));
  CHECK_THAT(sglang, Catch::Contains("lower --context-length"));
}

TEST_CASE("an allocator OOM keeps the footprint advice", "[diagnose][advice]") {
  const std::string a = advice_of(
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.10 GiB "
      "of which 1.00 GiB is free. Including non-PyTorch memory, this process has 78.09 GiB memory in use.\n");
  CHECK_THAT(a, Catch::Contains("lower its footprint"));
  CHECK_THAT(a, !Catch::Contains("KV-cache budget"));
}
