// nvidia-smi table excerpts cut from their top (issue 35): GPU rows without the banner and
// headers, Processes rows without the `Processes:` header, in each driver generation's widths;
// and the look-alikes that must not open a table (Markdown, ps, Rich's box, PyTorch's
// memory_summary, Lightning's model summary).
#include <catch2/catch.hpp>

#include <string>

#include "culprit/ingest/sniff.hpp"
#include "ingest/format_detect.hpp"
#include "ingest/formats/smi_rows.hpp"
#include "unit/ingest/gpu_test_support.hpp"
#include "unit/test_units.hpp"

using culprit::ingest::detect::smi_row_shape;
using culprit::ingest::smi_rows::is_gpu_row;
using culprit::ingest::smi_rows::is_process_row;
using culprit::test::parse_smi;

namespace {
using culprit::test::kMiB;

/// The formats segment_text gives the lines of `text` (one entry per segment).
std::vector<std::string> formats_of(const std::string& text) {
  std::vector<std::string> out;
  for (const auto& s : culprit::ingest::segment_text(text)) out.push_back(s.format);
  return out;
}

bool has_table(const std::string& text) {
  for (const auto& s : culprit::ingest::segment_text(text))
    if (s.format == "nvidia_smi_table") return true;
  return false;
}
}  // namespace

TEST_CASE("GPU row line 1 in every generation's widths is a row by its shape", "[gpu][nvidia_smi]") {
  // ≤ 440 / 450-525 (79 wide), 530-545 (89), 550+ (91), a 4-digit domain (old drivers), GB10's
  // 0000000F domain.
  CHECK(is_gpu_row("|   0  Tesla V100-SXM2...  On   | 00000000:00:05.0 Off |                    0 |"));
  CHECK(is_gpu_row("|   3  GeForce GTX 108...  Off  | 00000000:0A:00.0 Off |                  N/A |"));
  CHECK(is_gpu_row("|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |"));
  CHECK(is_gpu_row("|   0  NVIDIA GeForce RTX 4090        Off |   00000000:2B:00.0  On |                  Off |"));
  CHECK(is_gpu_row("|   7  NVIDIA H100 80GB HBM3          On  |   00000000:DB:00.0 Off |                    0 |"));
  CHECK(is_gpu_row("|   0  Tesla K80           On   | 0000:05:00.0     Off |                    0 |"));
  CHECK(is_gpu_row("|   0  NVIDIA GB10                    On  |   0000000F:01:00.0 Off |                  N/A |"));
  CHECK(is_gpu_row("  |   0  Tesla T4            Off  | 00000000:00:04.0 Off |                    0 |\r"));
  // Line 2 and the MIG M. line carry no index and bus id: they follow a line 1, never open.
  CHECK_FALSE(is_gpu_row("| N/A   57C    P0   221W / 300W |  15873MiB / 16160MiB |     99%      Default |"));
  CHECK_FALSE(is_gpu_row("|                                         |                        |             Disabled |"));
  // Jetson prints N/A for the bus id: with its header only.
  CHECK_FALSE(is_gpu_row("|   0  Orin (nvgpu)                  N/A  | N/A              N/A   |                  N/A |"));
}

TEST_CASE("process rows of every generation are rows by their shape", "[gpu][nvidia_smi]") {
  CHECK(is_process_row("|    0   N/A  N/A      1302      G   /usr/lib/xorg/Xorg                112MiB |"));
  CHECK(is_process_row("|    0      1302      G   /usr/lib/xorg/Xorg   112MiB |"));
  CHECK(is_process_row("|    0      4910      C   /usr/bin/python3                              2203MiB |"));
  CHECK(is_process_row("|    0   N/A  N/A            1801      G   /usr/lib/xorg/Xorg                        9MiB |"));
  CHECK(is_process_row("|    0    1    0      41873      C   python3                         19441MiB |"));  // MIG
  CHECK(is_process_row("|    0   N/A  N/A      3063    C+G   ...ogram Files\\app\\app.exe            N/A      |"));
  CHECK(is_process_row("|    0   N/A  N/A       332      C   /python3.11                               N/A      |"));
  CHECK_FALSE(is_process_row("|  No running processes found                                                 |"));
  CHECK_FALSE(is_process_row("|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |"));
  CHECK_FALSE(is_process_row("|    0   N/A  N/A      1302      X   Xorg                112MiB |"));  // no Type
  CHECK_FALSE(is_process_row("|    0   N/A  N/A      1302      G   Xorg                112 |"));     // no MiB
}

TEST_CASE("look-alike tables open no nvidia-smi table", "[gpu][nvidia_smi]") {
  // A Markdown table of the same facts: each in a cell of its own.
  for (const char* l : {"| GPU | PID | Type | Process name | Memory |", "|---|---|---|---|---|",
                        "| 0 | 1302 | G | /usr/lib/xorg/Xorg | 112MiB |",
                        "| 0 | Tesla V100 | On | 00000000:00:05.0 | Off |",
                        // PyTorch's torch.cuda.memory_summary() box.
                        "|===========================================================================|",
                        "|                  PyTorch CUDA memory summary, device ID 0                 |",
                        "|            CUDA OOMs: 1            |        cudaMalloc retries: 1         |",
                        "| Allocated memory      |  10565 MiB |  10565 MiB |  145993 MiB |  135428 MiB |",
                        "|       from large pool |  10560 MiB |  10560 MiB |  145021 MiB |  134461 MiB |",
                        // Lightning's model summary, a ps row, Rich's box-drawn traceback.
                        "  | Name  | Type   | Params", "0 | model | ResNet | 11.2 M",
                        "root      1302  0.0  0.1 123456  7890 tty7     Ssl+ Apr08   1:23 /usr/lib/xorg/Xorg",
                        "\xe2\x95\xad\xe2\x94\x80\xe2\x94\x80 Traceback (most recent call last) \xe2\x94\x80\xe2\x94\x80\xe2\x95\xae",
                        "\xe2\x94\x82 /home/u/train.py:42 in <module>                                  \xe2\x94\x82",
                        "\xe2\x94\x82    0      1302      G   /usr/lib/xorg/Xorg   112MiB \xe2\x94\x82"}) {
    INFO(l);
    CHECK_FALSE(smi_row_shape(l));
  }
  const std::string markdown =
      "Here is what I see:\n\n| GPU | PID | Type | Process name | Memory |\n|---|---|---|---|---|\n"
      "| 0 | 1302 | G | /usr/lib/xorg/Xorg | 112MiB |\n| 0 | 27211 | C | python | 10821MiB |\n";
  CHECK_FALSE(has_table(markdown));
  CHECK(parse_smi(markdown).snapshots.empty());
  const std::string summary =
      "|===========================================================================|\n"
      "|                  PyTorch CUDA memory summary, device ID 0                 |\n"
      "|---------------------------------------------------------------------------|\n"
      "|        Metric         | Cur Usage  | Peak Usage | Tot Alloc  | Tot Freed  |\n"
      "|---------------------------------------------------------------------------|\n"
      "| Allocated memory      |  10565 MiB |  10565 MiB |  145993 MiB |  135428 MiB |\n"
      "|===========================================================================|\n";
  CHECK_FALSE(has_table(summary));
}

TEST_CASE("GPU rows cut from their header read as a snapshot, inside a paste", "[gpu][nvidia_smi][sniff]") {
  const std::string rows =
      "Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |\n"
      "| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |\n"
      "|===============================+======================+======================|\n"
      "|   0  Tesla P40           On   | 00000000:3B:00.0 Off |                    0 |\n"
      "| N/A   48C    P0   180W / 250W |  22801MiB / 22919MiB |     99%      Default |\n"
      "+-------------------------------+----------------------+----------------------+\n"
      "|   1  Tesla P40           On   | 00000000:AF:00.0 Off |                    0 |\n"
      "| N/A   27C    P8    10W / 250W |      0MiB / 22919MiB |      0%      Default |\n"
      "+-------------------------------+----------------------+----------------------+\n";
  const std::string paste = "$ python main.py --gpu 0\n\n" + rows + "\nRuntimeError: CUDA error: out of memory\n";
  bool found = false;
  for (const auto& s : culprit::ingest::segment_text(paste)) {
    if (s.format != "nvidia_smi_table") continue;
    found = true;
    CHECK(s.first_line == 3);  // the header's cut tail comes along
    const auto sink = parse_smi(s.text);
    REQUIRE(sink.snapshots.size() == 2);
    CHECK(sink.snapshots[0].gpu == 0);
    CHECK(sink.snapshots[0].model == "Tesla P40");
    CHECK(sink.snapshots[0].bus_id == "0000:3b:00");
    CHECK(*sink.snapshots[0].mem_used == 22801 * kMiB);
    CHECK(*sink.snapshots[0].mem_total == 22919 * kMiB);
    CHECK(*sink.snapshots[1].mem_used == 0);
  }
  CHECK(found);
  // The error line stays the application log's.
  CHECK(formats_of(paste).back() == "app_log");
}

TEST_CASE("Processes rows without their header read as holders, each era", "[gpu][nvidia_smi][sniff]") {
  const std::string r535 =
      "|    0   N/A  N/A      1302      G   /usr/lib/xorg/Xorg                          112MiB |\n"
      "|    0   N/A  N/A      2210      G   /usr/bin/gnome-shell                         61MiB |\n"
      "|    0   N/A  N/A     30112      C   python                                    20972MiB |\n";
  const std::string paste = "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB\n\n" + r535;
  bool found = false;
  for (const auto& s : culprit::ingest::segment_text(paste)) {
    if (s.format != "nvidia_smi_table") continue;
    found = true;
    const auto sink = parse_smi(s.text);
    REQUIRE(sink.snapshots.size() == 1);
    const auto& p = sink.snapshots[0].processes;
    REQUIRE(p.size() == 3);
    CHECK(p[0].type == "G");
    CHECK(p[2].pid == 30112);
    CHECK(p[2].name == "python");
    CHECK(*p[2].mem_used == 20972 * kMiB);
    CHECK(sink.processes.size() == 3);
  }
  CHECK(found);
  // ≤ 440's rows (no GI / CI) too, and a GPU row after a finished Processes box starts a table.
  const auto old = parse_smi(
      "|    0      1302      G   /usr/lib/xorg/Xorg   112MiB |\n"
      "|    1     27211      C   python             10821MiB |\n"
      "+-----------------------------------------------------+\n"
      "|   0  Tesla V100-SXM2...  On   | 00000000:00:05.0 Off |                    0 |\n"
      "| N/A   57C    P0   221W / 300W |  15873MiB / 16160MiB |     99%      Default |\n");
  REQUIRE(old.events.size() == 2);
  REQUIRE(old.snapshots.size() == 3);
  CHECK(old.snapshots[0].processes.size() == 1);
  CHECK(old.snapshots[1].gpu == 1);
  CHECK(old.snapshots[2].bus_id == "0000:00:05");
  CHECK(*old.snapshots[2].mem_used == 15873 * kMiB);
}

TEST_CASE("GPU rows then Processes rows, neither with a header, are one table", "[gpu][nvidia_smi]") {
  const auto sink = parse_smi(
      "|   0  NVIDIA GeForce RTX 3080 Ti     Off |   00000000:01:00.0  On |                  N/A |\n"
      "| 30%   52C    P2            176W /  350W |   11790MiB /  12288MiB |     96%      Default |\n"
      "|                                         |                        |                  N/A |\n"
      "+-----------------------------------------+------------------------+----------------------+\n"
      "|    0   N/A  N/A      2291      G   /usr/lib/xorg/Xorg                            412MiB |\n"
      "|    0   N/A  N/A     81211      C   python3                                     11310MiB |\n");
  REQUIRE(sink.events.size() == 1);
  REQUIRE(sink.snapshots.size() == 1);
  CHECK(*sink.snapshots[0].mem_total == 12288 * kMiB);
  REQUIRE(sink.snapshots[0].processes.size() == 2);
  CHECK(sink.snapshots[0].processes[1].pid == 81211);
}
