// nvidia-smi --query-gpu / --query-compute-apps CSV (formats.md §6.2): the data-driven fixtures
// under fixtures/formats/nvidia_smi_csv plus focused cases for bad input.
#include <algorithm>

#include "culprit/ingest/sniff.hpp"
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

TEST_CASE("nvidia_smi_csv: found in a file, in a paste by its header, and after its command", "[gpu][sniff]") {
  CHECK(culprit::ingest::sniff_format("index, name, memory.total [MiB], memory.used [MiB]\n"
                                      "0, NVIDIA H100 80GB HBM3, 81559 MiB, 74012 MiB\n") == "nvidia_smi_csv");
  CHECK(culprit::ingest::sniff_format("0, NVIDIA A100-SXM4-40GB, 40960 MiB, 39012 MiB, 1948 MiB\n"
                                      "1, NVIDIA A100-SXM4-40GB, 40960 MiB, 3 MiB, 40957 MiB\n") == "nvidia_smi_csv");
  const std::string paste =
      "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
      "pid, process_name, used_gpu_memory [MiB]\n"
      "48213, /opt/venv/bin/python3, 73990 MiB\n"
      "39077, /home/bob/miniconda3/envs/exp/bin/python, 18900 MiB\n"
      "[rank0]: more\n"
      "alice@gpu-node-3:~$ nvidia-smi --query-gpu=index,memory.used,memory.total --format=csv,noheader,nounits\n"
      "0, 74012, 81559\n"
      "1, 61034, 81559\n";
  std::vector<culprit::ingest::Segment> csv;
  for (const auto& s : culprit::ingest::segment_text(paste))
    if (s.format == "nvidia_smi_csv") csv.push_back(s);
  REQUIRE(csv.size() == 2);
  CHECK(csv[0].first_line == 2);
  CHECK(std::count(csv[0].text.begin(), csv[0].text.end(), '\n') == 2);
  CHECK(csv[1].first_line == 7);
  CHECK(csv[1].host == "gpu-node-3");
}
