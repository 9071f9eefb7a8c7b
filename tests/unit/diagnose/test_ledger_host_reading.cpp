// Unified memory with no capacity from the GPU (GB10's nvidia-smi says `Not Supported`): the
// pool is the host's memory, read from the host-memory reading nearest the failure — `culprit
// run` samples /proc/meminfo through the run, and an early sample is not the failure's.
// The inputs are fixtures, byte for byte: meminfo is fixtures/formats/meminfo/
// culprit-sample-6x.txt (a `culprit run` sample) restamped, the GB10 table is fixtures/formats/
// nvidia_smi/r580-gb10-not-supported.txt (nvidia-smi 580, formats.md §3.1.2).
#include "unit/diagnose/diagnose_support.hpp"
#include "unit/ingest/fixture_files.hpp"

namespace {

/// The meminfo fixture (a `culprit run` sample: fs/proc/meminfo.c's rows under a `date -u` stamp),
/// stamped `stamp`, with MemAvailable (8 digits, the kernel's column width kept) set.
std::string meminfo(const std::string& stamp, const std::string& available_kb) {
  std::string text = culprit::test::read_fixture(std::filesystem::path(CULPRIT_SOURCE_DIR) /
                                                 "fixtures/formats/meminfo/culprit-sample-6x.txt");
  text.replace(0, text.find('\n'), stamp);
  const std::string key = "MemAvailable:   ";
  const std::size_t at = text.find(key);
  REQUIRE(at != std::string::npos);
  REQUIRE(available_kb.size() == 8);
  text.replace(at + key.size(), 8, available_kb);
  return text;
}

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
      {"spark-b/nvidia-smi.txt", "spark-b",
       culprit::test::read_fixture(std::filesystem::path(CULPRIT_SOURCE_DIR) /
                                   "fixtures/formats/nvidia_smi/r580-gb10-not-supported.txt")},
      {"spark-b/a-sample-meminfo.txt", "spark-b", meminfo("2026-04-09T00:46:20.000000000Z", "90000000")},
      {"spark-b/z-meminfo.txt", "spark-b", meminfo("2026-04-09T00:47:20.100000000Z", "10000000")},
  });
  REQUIRE(v.budget);
  CHECK(v.budget->unified);
  REQUIRE(v.budget->total);
  CHECK(*v.budget->total == std::int64_t{527958024} * 1024);
  REQUIRE(v.budget->free);
  CHECK(*v.budget->free == std::int64_t{10000000} * 1024);
}
