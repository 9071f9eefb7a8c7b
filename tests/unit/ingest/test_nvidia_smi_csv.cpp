// nvidia-smi --query-gpu / --query-compute-apps CSV (formats.md §6.2): the data-driven fixtures
// under fixtures/formats/nvidia_smi_csv plus focused cases for bad input.
#include "unit/ingest/gpu_fixture_runner.hpp"

using culprit::test::GpuRecordingSink;

TEST_CASE("nvidia_smi_csv fixtures", "[gpu][fixtures]") {
  culprit::test::run_parser_fixtures("nvidia_smi_csv", "nvidia_smi_csv",
                                     &culprit::ingest::parse_nvidia_smi_csv);
}

TEST_CASE("nvidia_smi_csv: header only means no processes, garbage never crashes", "[gpu]") {
  GpuRecordingSink sink;
  auto ctx = culprit::test::gpu_context(sink, "nvidia_smi_csv");
  culprit::ingest::parse_nvidia_smi_csv("pid, process_name, used_gpu_memory [MiB]\n", ctx);
  CHECK(sink.processes.empty());
  GpuRecordingSink sink2;
  auto ctx2 = culprit::test::gpu_context(sink2, "nvidia_smi_csv");
  culprit::ingest::parse_nvidia_smi_csv(",,,\n, , ,\n\xff\xfe, x\n12345, , \n", ctx2);
  CHECK(sink2.processes.size() <= 1);
}
