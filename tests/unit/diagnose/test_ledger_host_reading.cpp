// Unified memory with no capacity from the GPU (GB10's nvidia-smi says `Not Supported`): the
// pool is the host's memory, read from the host-memory reading nearest the failure — `culprit
// run` samples /proc/meminfo through the run, and an early sample is not the failure's.
// meminfo in the shape `culprit run` writes it (a `date -u` stamp line, then fs/proc/meminfo.c's
// `Name:   N kB` rows); the GB10 table as in test_ledger.cpp (nvidia-smi 580, formats.md §3.1.2).
#include "unit/diagnose/diagnose_support.hpp"

namespace {

std::string meminfo(const char* stamp, const char* free_kb, const char* available_kb) {
  return std::string(stamp) + "\nMemTotal:       125536256 kB\nMemFree:        " + free_kb +
         " kB\nMemAvailable:   " + available_kb + " kB\nBuffers:          204800 kB\nCached:         10240000 kB\n";
}

constexpr const char* kGb10Table =
    "+-----------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 580.95.05              Driver Version: 580.95.05      CUDA Version: 13.0     |\n"
    "+-----------------------------------------+------------------------+----------------------+\n"
    "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
    "|                                         |                        |               MIG M. |\n"
    "|=========================================+========================+======================|\n"
    "|   0  NVIDIA GB10                    On  |   0000000F:01:00.0 Off |                  N/A |\n"
    "| N/A   39C    P8              3W /  N/A  | Not Supported          |      0%      Default |\n"
    "|                                         |                        |                  N/A |\n"
    "+-----------------------------------------+------------------------+----------------------+\n";

}  // namespace

TEST_CASE("unified memory: the pool's free memory is the host reading nearest the failure", "[diagnose][ledger][unified]") {
  using culprit::test::TextInput;
  // llama.cpp's ggml-cuda allocation failure (ggml_backend_cuda_buffer_type_alloc_buffer's format).
  const std::string oom =
      "2026-04-09T00:47:20.000Z ggml_backend_cuda_buffer_type_alloc_buffer: allocating 38912.00 MiB on device 0: "
      "cudaMalloc failed: out of memory\n";
  // The early sample comes first in every order a listing gives (name, line): only time tells.
  const auto v = culprit::test::diagnose_texts({
      {"spark-b/app.log", "spark-b", oom},
      {"spark-b/nvidia-smi.txt", "spark-b", kGb10Table},
      {"spark-b/a-sample-meminfo.txt", "spark-b", meminfo("2026-04-09T00:46:20.000000000Z", "100000000", "110000000")},
      {"spark-b/z-meminfo.txt", "spark-b", meminfo("2026-04-09T00:47:20.100000000Z", "500000", "1000000")},
  });
  REQUIRE(v.budget);
  CHECK(v.budget->unified);
  REQUIRE(v.budget->total);
  CHECK(*v.budget->total == std::int64_t{125536256} * 1024);
  REQUIRE(v.budget->free);
  CHECK(*v.budget->free == std::int64_t{1000000} * 1024);
}
