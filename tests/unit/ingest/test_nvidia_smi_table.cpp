// nvidia-smi default table: focused cases the era fixtures do not cover (pastes around the
// table, cut tables, colour, CRLF, old banners, junk).
#include <catch2/catch.hpp>

#include "unit/ingest/gpu_test_support.hpp"
#include "unit/test_units.hpp"

using culprit::test::parse_smi;

namespace {
using culprit::test::kMiB;

// A 418-era table: 79 wide, no CUDA Version in the banner (drivers <= 410 print none).
constexpr const char* kR410 =
    "Mon Jan  7 10:12:44 2019       \n"
    "+-----------------------------------------------------------------------------+\n"
    "| NVIDIA-SMI 410.79       Driver Version: 410.79                              |\n"
    "|-------------------------------+----------------------+----------------------+\n"
    "| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
    "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
    "|===============================+======================+======================|\n"
    "|   0  GeForce GTX 108...  Off  | 00000000:0A:00.0 Off |                  N/A |\n"
    "| 23%   34C    P8     9W / 250W |  10851MiB / 11178MiB |      0%      Default |\n"
    "+-------------------------------+----------------------+----------------------+\n"
    "                                                                               \n"
    "+-----------------------------------------------------------------------------+\n"
    "| Processes:                                                       GPU Memory |\n"
    "|  GPU       PID   Type   Process name                             Usage      |\n"
    "|=============================================================================|\n"
    "|    0      1411      G   /usr/lib/xorg/Xorg                            18MiB |\n"
    "|    0     27211      C   python                                     10821MiB |\n"
    "+-----------------------------------------------------------------------------+\n";
}  // namespace

TEST_CASE("an old table without CUDA Version in the banner", "[gpu][nvidia_smi]") {
  const auto sink = parse_smi(kR410, "dl-box");
  REQUIRE(sink.snapshots.size() == 1);
  const auto& s = sink.snapshots[0];
  CHECK(s.bus_id == "0000:0a:00");
  CHECK(s.model == "GeForce GTX 108...");
  CHECK(*s.mem_used == 10851 * kMiB);
  CHECK(*s.mem_total == 11178 * kMiB);
  CHECK(s.host == "dl-box");
  REQUIRE(s.processes.size() == 2);
  CHECK(s.processes[1].pid == 27211);
  CHECK(s.processes[1].name == "python");
  CHECK(*s.processes[1].mem_used == 10821 * kMiB);
  REQUIRE(sink.events.size() == 1);
  CHECK(sink.events[0].field_or("driver_version") == "410.79");
  CHECK(sink.events[0].field("cuda_version") == nullptr);
  REQUIRE(sink.processes.size() == 2);
  for (const auto& p : sink.processes) {
    CHECK_FALSE(p.job);
    CHECK(p.evidence == "nvidia-smi");
  }
}

TEST_CASE("line numbers follow the segment's first line: CRLF and colour are fine", "[gpu][nvidia_smi]") {
  std::string crlf;
  for (const char* p = kR410; *p; ++p) {
    if (*p == '\n') crlf += "\r\n";
    else crlf += *p;
  }
  crlf = "\x1b[1m" + crlf;  // `watch --color` / terminal capture
  culprit::test::GpuRecordingSink sink;
  auto ctx = culprit::test::gpu_context(sink, "nvidia_smi_table");
  ctx.first_line = 100;
  culprit::ingest::parse_nvidia_smi_table(crlf, ctx);
  REQUIRE(sink.snapshots.size() == 1);
  CHECK(sink.snapshots[0].line == 107);
  REQUIRE(sink.events.size() == 1);
  CHECK(sink.events[0].line == 100);
  CHECK(sink.events[0].line_end == 117);
  CHECK(sink.events[0].message == "Mon Jan  7 10:12:44 2019");
}

TEST_CASE("a table cut short keeps the GPUs read so far", "[gpu][nvidia_smi]") {
  std::string cut(kR410);
  cut = cut.substr(0, cut.find("| 23%"));  // ends after GPU row line 1
  const auto sink = parse_smi(cut);
  REQUIRE(sink.snapshots.size() == 1);
  CHECK(sink.snapshots[0].gpu == 0);
  CHECK_FALSE(sink.snapshots[0].mem_used);
  CHECK(sink.snapshots[0].processes.empty());
  CHECK(sink.events.size() == 1);
}

TEST_CASE("text around the table is ignored", "[gpu][nvidia_smi]") {
  std::string text = "user@gpu-node-3:~$ nvidia-smi\n";
  text += kR410;
  text += "user@gpu-node-3:~$ echo done\ndone\n| not | a | table |\n";
  const auto sink = parse_smi(text);
  CHECK(sink.snapshots.size() == 1);
  CHECK(sink.events.size() == 1);
}

TEST_CASE("Jetson: no bus id, memory Not Supported", "[gpu][nvidia_smi]") {
  const auto sink = parse_smi(
      "+-----------------------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 540.3.0                Driver Version: 540.3.0        CUDA Version: 12.6     |\n"
      "|-----------------------------------------+------------------------+----------------------+\n"
      "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
      "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
      "|                                         |                        |               MIG M. |\n"
      "|=========================================+========================+======================|\n"
      "|   0  Orin (nvgpu)                  N/A  | N/A              N/A   |                  N/A |\n"
      "| N/A   N/A  N/A               N/A /  N/A | Not Supported          |     N/A          N/A |\n"
      "|                                         |                        |                  N/A |\n"
      "+-----------------------------------------+------------------------+----------------------+\n");
  REQUIRE(sink.snapshots.size() == 1);
  const auto& s = sink.snapshots[0];
  CHECK(s.gpu == 0);
  CHECK(s.model == "Orin (nvgpu)");
  CHECK(s.bus_id.empty());
  CHECK(s.unified);
  CHECK_FALSE(s.mem_used);
  REQUIRE(sink.events.size() == 1);
  CHECK(sink.events[0].field_or("gpus") == "1");
  CHECK(sink.events[0].field_or("unified") == "1");
}

TEST_CASE("junk never crashes the table parser", "[gpu][nvidia_smi]") {
  std::string junk;
  for (int i = 0; i < 2000; ++i) {
    junk += (i % 3 == 0) ? "|===|\n" : (i % 3 == 1) ? "| Processes: |\n" : "|   7 x 0000:zz:00.0 | 1MiB / |\n";
    junk += "|    0   N/A  N/A  99999999999999999999  C  x  N/A |\n";
    junk += std::string(i % 17, '|') + "\xff\xfe\n";
  }
  CHECK_NOTHROW(parse_smi(junk));
  CHECK_NOTHROW(parse_smi("Every 2.0s: nvidia-smi"));
  CHECK_NOTHROW(parse_smi("Thu Apr  9 00:47:22 2026"));
  CHECK_NOTHROW(parse_smi("|"));
  CHECK_NOTHROW(parse_smi(""));
}
