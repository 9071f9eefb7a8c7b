// The default nvidia-smi table under a `watch` header (formats.md §6.1): the header gives the
// snapshot its time and host in every watch version (with or without the host, with newer
// watch's `in 0.052s (0)` tail), also inside a paste where a blank line follows the header; and
// a Processes box pasted alone still yields GPU-process rows.
#include "culprit/core/time.hpp"
#include "culprit/ingest/sniff.hpp"
#include "unit/ingest/gpu_fixture_runner.hpp"

using culprit::test::GpuRecordingSink;

namespace {

const char* kSmiTable =
    "+---------------------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 535.129.03             Driver Version: 535.129.03   CUDA Version: 12.2     |\n"
    "|-----------------------------------------+----------------------+----------------------+\n"
    "| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |\n"
    "|                                         |                      |               MIG M. |\n"
    "|=========================================+======================+======================|\n"
    "|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |\n"
    "| N/A   33C    P0              87W / 400W |  74012MiB / 81920MiB |     41%      Default |\n"
    "|                                         |                      |             Disabled |\n"
    "+-----------------------------------------+----------------------+----------------------+\n"
    "                                                                                         \n"
    "+---------------------------------------------------------------------------------------+\n"
    "| Processes:                                                                            |\n"
    "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |\n"
    "|        ID   ID                                                             Usage      |\n"
    "|=======================================================================================|\n"
    "|    0   N/A  N/A     48213      C   /opt/venv/bin/python3                     73990MiB |\n"
    "+---------------------------------------------------------------------------------------+\n";

void parse_table(const std::string& text, GpuRecordingSink& sink, const std::string& host = "") {
  auto ctx = culprit::test::gpu_context(sink, "nvidia_smi_table", host);
  culprit::ingest::parse_nvidia_smi_table(text, ctx);
}

}  // namespace

TEST_CASE("nvidia-smi under watch: time and host from the header in each watch version", "[gpu][watch]") {
  const double t = culprit::core::civil_to_epoch(2026, 4, 9, 0, 47, 5);
  SECTION("procps-ng 3.3 / 4.0: host before the time") {
    GpuRecordingSink sink;
    parse_table(std::string("Every 2.0s: nvidia-smi                          gpu-node-17: Thu Apr  9 00:47:05 2026\n\n") + kSmiTable,
                sink, "paste-host");
    REQUIRE(sink.snapshots.size() == 1);
    CHECK(sink.snapshots[0].host == "gpu-node-17");
    CHECK(sink.snapshots[0].ts == t);
  }
  SECTION("newer watch: a run-time tail after the time") {
    GpuRecordingSink sink;
    parse_table(std::string("Every 1.0s: nvidia-smi               dgx-a: Thu Apr  9 00:47:05 2026 in 0.052s (0)\n\n") + kSmiTable, sink);
    REQUIRE(sink.snapshots.size() == 1);
    CHECK(sink.snapshots[0].host == "dgx-a");
    CHECK(sink.snapshots[0].ts == t);
  }
  SECTION("old procps watch: no host, the source's host stays") {
    GpuRecordingSink sink;
    parse_table(std::string("Every 2.0s: nvidia-smi                                    Thu Apr  9 00:47:05 2026\n\n") + kSmiTable,
                sink, "node-b");
    REQUIRE(sink.snapshots.size() == 1);
    CHECK(sink.snapshots[0].host == "node-b");
    CHECK(sink.snapshots[0].ts == t);
  }
}

TEST_CASE("nvidia-smi under watch inside a paste: the header joins the table's segment", "[gpu][watch][sniff]") {
  const std::string paste = std::string("some earlier output\n") +
                            "Every 2.0s: nvidia-smi                          gpu-node-17: Thu Apr  9 00:47:05 2026\n\n" + kSmiTable +
                            "[rank0]: torch.OutOfMemoryError: CUDA out of memory.\n";
  bool found = false;
  for (const auto& s : culprit::ingest::segment_text(paste)) {
    if (s.format != "nvidia_smi_table") continue;
    found = true;
    CHECK(s.first_line == 2);
    GpuRecordingSink sink;
    parse_table(std::string(s.text), sink);
    REQUIRE(sink.snapshots.size() == 1);
    CHECK(sink.snapshots[0].host == "gpu-node-17");
    CHECK(sink.snapshots[0].ts.has_value());
  }
  CHECK(found);
}

TEST_CASE("a Processes block pasted alone inside other text yields GPU-process rows", "[gpu][watch][sniff]") {
  const std::string table(kSmiTable);
  const std::string procs = table.substr(table.find("+-----------------------------------------------------------"
                                                    "----------------------------+\n| Processes:"));
  const std::string paste = "[rank1]: waiting\n" + procs + "[rank1]: done\n";
  bool found = false;
  for (const auto& s : culprit::ingest::segment_text(paste)) {
    if (s.format != "nvidia_smi_table") continue;
    found = true;
    GpuRecordingSink sink;
    parse_table(std::string(s.text), sink);
    REQUIRE(sink.snapshots.size() == 1);
    REQUIRE(sink.snapshots[0].processes.size() == 1);
    CHECK(sink.snapshots[0].processes[0].pid == 48213);
    CHECK(sink.snapshots[0].processes[0].mem_used == std::int64_t{73990} * 1024 * 1024);
  }
  CHECK(found);
}
