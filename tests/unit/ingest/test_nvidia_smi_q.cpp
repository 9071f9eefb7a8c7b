// nvidia-smi -q text (formats.md §6.3): the fixtures under fixtures/formats/nvidia_smi_q, loop
// output (two reports), sniffing inside a paste and a bug report, and bad input.
#include "culprit/ingest/sniff.hpp"
#include "culprit/text/lines.hpp"
#include "unit/ingest/gpu_fixture_runner.hpp"

using culprit::test::GpuRecordingSink;

TEST_CASE("nvidia_smi_q fixtures", "[gpu][fixtures][smi_q]") {
  culprit::test::run_parser_fixtures("nvidia_smi_q", "nvidia_smi_q", &culprit::ingest::parse_nvidia_smi_q);
}

namespace {
const char* kQueryReport =
    "==============NVSMI LOG==============\n"
    "\n"
    "Timestamp                                 : Thu Apr  9 00:47:22 2026\n"
    "Driver Version                            : 550.54.15\n"
    "CUDA Version                              : 12.4\n"
    "\n"
    "Attached GPUs                             : 1\n"
    "GPU 00000000:18:00.0\n"
    "    Product Name                          : NVIDIA H100 80GB HBM3\n"
    "    FB Memory Usage\n"
    "        Total                             : 81559 MiB\n"
    "        Reserved                          : 551 MiB\n"
    "        Used                              : 74012 MiB\n"
    "        Free                              : 6995 MiB\n"
    "    Processes\n"
    "        GPU instance ID                   : N/A\n"
    "        Compute instance ID               : N/A\n"
    "        Process ID                        : 48213\n"
    "            Type                          : C\n"
    "            Name                          : /opt/venv/bin/python3\n"
    "            Used GPU Memory               : 73990 MiB\n"
    "\n";
}  // namespace

TEST_CASE("nvidia_smi_q: -l loop output gives one report per banner", "[gpu][smi_q]") {
  GpuRecordingSink sink;
  auto ctx = culprit::test::gpu_context(sink, "nvidia_smi_q");
  const std::string two = std::string(kQueryReport) + kQueryReport;
  culprit::ingest::parse_nvidia_smi_q(two, ctx);
  CHECK(sink.events.size() == 2);
  REQUIRE(sink.snapshots.size() == 2);
  CHECK(sink.snapshots[1].line == 22 + 8);
  CHECK(sink.snapshots[1].processes.size() == 1);
}

TEST_CASE("nvidia_smi_q: found in a paste and in a bug report section", "[gpu][smi_q][sniff]") {
  const std::string paste = std::string("root@gpu-node-3:~# nvidia-smi -q -d MEMORY,PIDS\n") + kQueryReport +
                            "root@gpu-node-3:~# echo done\ndone\n";
  const auto segs = culprit::ingest::segment_text(paste);
  int found = 0;
  for (const auto& s : segs) {
    if (s.format != "nvidia_smi_q") continue;
    ++found;
    CHECK(s.first_line == 2);
    CHECK(s.host == "gpu-node-3");
    CHECK(culprit::text::starts_with(s.text, "=============="));
  }
  CHECK(found == 1);
  // A bug report's `nvidia-smi --query` section: its own segment, on the report's host.
  const std::string report = std::string(
      "____________________________________________\n"
      "Start of NVIDIA bug report log file.  Please include this file, along\n"
      "____________________________________________\n\n"
      "uname: Linux dgx-07 5.15.0-105-generic #115-Ubuntu SMP x86_64 x86_64 x86_64 GNU/Linux\n\n"
      "____________________________________________\n\n"
      "/usr/bin/nvidia-smi --query\n\n") + kQueryReport +
      "____________________________________________\n\nEnd of NVIDIA bug report log file.\n";
  bool in_report = false;
  for (const auto& s : culprit::ingest::segment_text(report))
    if (s.format == "nvidia_smi_q") in_report = s.host == "dgx-07";
  CHECK(in_report);
  CHECK(culprit::ingest::sniff_format(kQueryReport) == "nvidia_smi_q");
}

TEST_CASE("nvidia_smi_q: bad input never crashes", "[gpu][smi_q]") {
  GpuRecordingSink sink;
  auto ctx = culprit::test::gpu_context(sink, "nvidia_smi_q");
  const std::string huge(300000, ':');
  culprit::ingest::parse_nvidia_smi_q(
      "==============NVSMI LOG==============\n"
      "GPU 00000000:18:00.0\n"
      "        Process ID                        : 99999999999999999999\n"
      "    Processes\n"
      "        Process ID                        : 12\n"
      "            Used GPU Memory               : 99999999999999999999 MiB\n"
      "    FB Memory Usage\n"
      "        Total : \xff\xfe\n" +
          huge + "\n : \n GPU zz:zz\n",
      ctx);
  REQUIRE(sink.snapshots.size() == 1);
  REQUIRE(sink.snapshots[0].processes.size() == 1);
  CHECK(sink.snapshots[0].processes[0].pid == 12);
  CHECK_FALSE(sink.snapshots[0].mem_total);
  GpuRecordingSink none;
  auto ctx2 = culprit::test::gpu_context(none, "nvidia_smi_q");
  culprit::ingest::parse_nvidia_smi_q("", ctx2);
  culprit::ingest::parse_nvidia_smi_q("Processes : None\n", ctx2);
  CHECK(none.snapshots.empty());
}

TEST_CASE("nvidia_smi_q: grep-cut -q output after its command is still read", "[gpu][smi_q][sniff]") {
  const std::string paste =
      "alice@gpu-node-3:~$ nvidia-smi -q | grep -A4 \"FB Memory Usage\"\n"
      "    FB Memory Usage\n"
      "        Total                             : 81559 MiB\n"
      "        Reserved                          : 551 MiB\n"
      "        Used                              : 74012 MiB\n"
      "        Free                              : 6995 MiB\n"
      "alice@gpu-node-3:~$ python train.py\n"
      "Traceback (most recent call last):\n";
  std::vector<culprit::ingest::Segment> q;
  for (const auto& s : culprit::ingest::segment_text(paste))
    if (s.format == "nvidia_smi_q") q.push_back(s);
  REQUIRE(q.size() == 1);
  CHECK(q[0].first_line == 2);
  GpuRecordingSink sink;
  auto ctx = culprit::test::gpu_context(sink, "nvidia_smi_q", "gpu-node-3");
  culprit::ingest::parse_nvidia_smi_q(q[0].text, ctx);
  REQUIRE(sink.snapshots.size() == 1);
  CHECK(sink.snapshots[0].gpu == 0);
  CHECK(sink.snapshots[0].mem_total == std::int64_t{81559} * 1024 * 1024);
  CHECK(sink.snapshots[0].mem_used == std::int64_t{74012} * 1024 * 1024);
}
