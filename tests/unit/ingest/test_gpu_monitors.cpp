// nvitop, rocm-smi and amd-smi: the fixtures (fixtures/formats/{nvitop,rocm_smi,amd_smi},
// written from each tool's printing code), each inside a paste, their look-alikes, and junk.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "culprit/ingest/sniff.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/amd_smi.hpp"
#include "ingest/formats/nvitop.hpp"
#include "ingest/formats/rocm_smi.hpp"
#include "unit/ingest/gpu_fixture_runner.hpp"
#include "unit/test_units.hpp"

namespace {
using culprit::test::kMiB;

culprit::test::GpuRecordingSink run(void (*parse)(std::string_view, culprit::ingest::ParseContext&),
                                    std::string_view format, std::string_view text) {
  culprit::test::GpuRecordingSink sink;
  auto ctx = culprit::test::gpu_context(sink, std::string(format), "node");
  parse(text, ctx);
  return sink;
}

/// The segment of `paste` the sniffer gives `format`: its first line and line count.
std::pair<std::int64_t, std::int64_t> segment_of(const std::string& paste, std::string_view format) {
  for (const auto& s : culprit::ingest::segment_text(paste))
    if (s.format == format) return {s.first_line, s.line_count};
  return {0, 0};
}
}  // namespace

TEST_CASE("nvitop fixtures", "[gpu][fixtures][nvitop]") {
  culprit::test::run_parser_fixtures("nvitop", "nvitop", &culprit::ingest::parse_nvitop);
}

TEST_CASE("rocm_smi fixtures", "[gpu][fixtures][rocm_smi]") {
  culprit::test::run_parser_fixtures("rocm_smi", "rocm_smi", &culprit::ingest::parse_rocm_smi);
}

TEST_CASE("amd_smi fixtures", "[gpu][fixtures][amd_smi]") {
  culprit::test::run_parser_fixtures("amd_smi", "amd_smi", &culprit::ingest::parse_amd_smi);
}

TEST_CASE("nvitop: rows, MIG, look-alikes", "[gpu][nvitop]") {
  using namespace culprit::ingest::nvitop;
  const auto banner = parse_banner("\xE2\x94\x82 NVITOP 1.3.2      Driver Version: 535.154.05      CUDA Driver Version: 12.2 \xE2\x94\x82");
  REQUIRE(banner);
  CHECK(banner->driver == "535.154.05");
  CHECK(banner->cuda == "12.2");
  // nvidia-smi's own banner is not nvitop's.
  CHECK_FALSE(parse_banner("| NVIDIA-SMI 535.154.05             Driver Version: 535.154.05   CUDA Version: 12.2     |"));
  const auto row = parse_process_row(
      "\xE2\x94\x82   2:1   24188 C   alice 23.04GiB  97    41 100.3   2.1  5:41:12  python train.py \xE2\x94\x82");
  REQUIRE(row);
  CHECK(row->gpu == "2:1");
  CHECK(*row->pid == 24188);
  CHECK(row->command == "python");
  // --ascii, and a pid cut to 7 characters: read, without a pid.
  const auto cut = parse_process_row("|   0 12345.. C     bob 236.0MiB   0     0   0.0   0.1     1:02  python |");
  REQUIRE(cut);
  CHECK_FALSE(cut->pid);
  CHECK(*cut->mem == 236 * kMiB);
  CHECK(is_mig_row("\xE2\x94\x82 0:0     1g.10gb @ GI/CI: 7/0  \xE2\x94\x82   3.12GiB / 9.75GiB  \xE2\x94\x82 BAR1:   1.00MiB /   0% \xE2\x94\x82"));
  // An nvidia-smi Processes row and a Markdown table row are not nvitop process rows.
  CHECK_FALSE(parse_process_row("|    0   N/A  N/A      1302      G   /usr/lib/xorg/Xorg                112MiB |"));
  CHECK_FALSE(parse_process_row("| 0 | 1234 | python | 12 GiB |"));
  // nvidia-smi's own table has the same cells: no nvitop block is found in it (the anchors are
  // `NVITOP` and `GPU-MEM`), so nvidia-smi's parser keeps it.
  for (const auto& f : culprit::test::fixtures_in("nvidia_smi")) {
    INFO(f.string());
    CHECK(segment_of(culprit::test::read_file(f.string()), "nvitop").first == 0);
  }
}

TEST_CASE("nvitop: MIG instances mark the report, a screen inside a paste", "[gpu][nvitop][sniff]") {
  std::string text = culprit::test::read_file(std::string(CULPRIT_SOURCE_DIR) + "/fixtures/formats/nvitop/v1-ascii.txt");
  // The block sits between log lines; the sniffer gives it to the nvitop parser whole.
  const std::string paste = "torch.OutOfMemoryError: CUDA out of memory.\nthen I ran nvitop -1:\n" + text + "any idea?\n";
  const auto [first, count] = segment_of(paste, "nvitop");
  CHECK(first == 3);
  CHECK(count == 17);
  const std::string mig =
      "\xE2\x94\x82   0  A100-SXM4-80GB        On \xE2\x94\x82 00000000:07:00.0 Off \xE2\x94\x82                  On \xE2\x94\x82\n"
      "\xE2\x94\x82 N/A   41C   P0     88W / 400W \xE2\x94\x82  10.20GiB / 80.00GiB \xE2\x94\x82      0%      Default \xE2\x94\x82\n"
      "\xE2\x94\x82 0:0     1g.10gb @ GI/CI: 7/0  \xE2\x94\x82   9.12GiB / 9.75GiB  \xE2\x94\x82 BAR1:   1.00MiB /   0% \xE2\x94\x82\n";
  const auto sink = run(&culprit::ingest::parse_nvitop, "nvitop", mig);
  REQUIRE(sink.events.size() == 1);
  CHECK(sink.events[0].field_or("mig_devices") == "1");
  REQUIRE(sink.snapshots.size() == 1);
  CHECK(sink.snapshots[0].gpu == 0);
}

TEST_CASE("rocm_smi: lines and look-alikes", "[gpu][rocm_smi]") {
  using namespace culprit::ingest::rocm_smi;
  const auto m = parse_mem_line("GPU[3]\t\t: VRAM Total Used Memory (B): 10960896");
  REQUIRE(m);
  CHECK(m->gpu == 3);
  CHECK(m->used);
  CHECK(m->bytes == 10960896);
  CHECK_FALSE(parse_mem_line("GPU[0]\t\t: GTT Total Used Memory (B): 10960896"));        // not VRAM
  CHECK_FALSE(parse_mem_line("GPU[0] XCP[1]\t: VRAM Total Used Memory (B): 10960896"));  // a partition
  CHECK_FALSE(parse_mem_line("GPU[0]\t\t: GPU Memory Allocated (VRAM%): 95"));           // a percent
  CHECK(spacer_title("================================== End of ROCm SMI Log ===================================") ==
        std::string_view("End of ROCm SMI Log"));
  CHECK_FALSE(spacer_title("== not a spacer"));
  const auto row = parse_pid_row("48211\tpython3     \t1     \t16777216000\t0        \tUNKNOWN     \t");
  REQUIRE(row);
  CHECK(row->pid == 48211);
  CHECK(*row->vram == 16777216000);
  CHECK_FALSE(parse_pid_row("PID  \tPROCESS NAME\tGPU(s)\tVRAM USED  \tSDMA USED\tCU OCCUPANCY\t"));
  // A full GPU with a KFD process listed: the process cannot be placed, so no figures.
  const std::string both =
      "GPU[0]\t\t: VRAM Total Memory (B): 100\nGPU[0]\t\t: VRAM Total Used Memory (B): 99\n"
      "=============== KFD Processes ================\n12\tpython\t1\t99\t0\t0\t\n";
  const auto sink = run(&culprit::ingest::parse_rocm_smi, "rocm_smi", both);
  REQUIRE(sink.snapshots.size() == 1);
  CHECK_FALSE(sink.snapshots[0].mem_used);
}

TEST_CASE("rocm_smi concise table: headers of every version, rows, look-alikes", "[gpu][rocm_smi]") {
  using namespace culprit::ingest::rocm_smi;
  CHECK(is_concise_header("GPU  Temp   AvgPwr  SCLK    MCLK    Fan  Perf  PwrCap  VRAM%  GPU%  "));
  CHECK(is_concise_header("GPU  Temp (DieEdge)  AvgPwr  SCLK     MCLK     Fan  Perf  PwrCap  VRAM%  GPU%  "));
  CHECK(is_concise_header("GPU  [Model : Revision]    Temp    AvgPwr  Partitions      SCLK  MCLK  Fan  Perf  PwrCap  VRAM%  GPU%"));
  CHECK(is_concise_header("Device  Node  IDs              Temp        Power     Partitions          SCLK    MCLK    Fan  Perf  PwrCap  VRAM%  GPU%  "));
  CHECK_FALSE(is_concise_header("GPU  NODE  DID     GUID   GFX VER  GFX RAS  SDMA RAS  UMC RAS  VBIOS  BUS  PARTITION ID"));
  auto row = parse_concise_row("0    41.0c           212.0W  1700Mhz  1600Mhz  0%   auto  560.0W   98%   0%    ");
  REQUIRE(row);
  CHECK(row->gpu == 0);
  CHECK(row->vram_percent == 98);
  row = parse_concise_row("3       5     0x74a1,   28851  N/A         N/A       N/A                 None    None    0%   auto  750.0W  N/A    Unsupported");
  REQUIRE(row);
  CHECK(row->gpu == 3);
  CHECK_FALSE(row->vram_percent);
  CHECK_FALSE(parse_concise_row("0    2     0x74a1  28851  gfx942   ENABLED  ENABLED   ENABLED  113-M3000100-102  0000:05:00.0  0"));
  CHECK_FALSE(parse_concise_row("step 12  loss 0.31  lr 0.001  97%  3%"));  // a log line ending in percents
  CHECK_FALSE(parse_concise_row("0  x  140%  0%"));
  // --showmemuse: the allocated share, not the controller's activity (older `GPU memory use (%)`).
  const auto a = parse_allocated_percent("GPU[2]\t\t: GPU Memory Allocated (VRAM%): 97");
  REQUIRE(a);
  CHECK(a->gpu == 2);
  CHECK(a->percent == 97);
  CHECK_FALSE(parse_allocated_percent("GPU[0]\t\t: GPU memory use (%): 97"));
  CHECK_FALSE(parse_allocated_percent("GPU[0]\t\t: GPU Memory Read/Write Activity (%): 97"));
  CHECK_FALSE(parse_allocated_percent("GPU[0] XCP[1]\t: GPU Memory Allocated (VRAM%): 97"));
  CHECK_FALSE(parse_allocated_percent("GPU[0]\t\t: GPU Memory Allocated (VRAM%): 101"));
}

TEST_CASE("amd_smi monitor: headers, cells with units, look-alikes", "[gpu][amd_smi]") {
  using namespace culprit::ingest::amd_smi;
  CHECK(monitor_header("GPU  VRAM_USED  VRAM_TOTAL").size() == 3);
  CHECK(monitor_header(" TIMESTAMP  GPU  POWER  GPU_TEMP  VRAM_USED  VRAM_TOTAL").size() == 6);
  CHECK(monitor_header("GPU                  NAME      PID   GTT_MEM   CPU_MEM  VRAM_MEM  MEM_USAGE     GFX     ENC").size() == 9);
  CHECK(monitor_header("GPU  POWER  GPU_TEMP  MEM_TEMP").empty());  // `monitor -p -t`: no memory
  CHECK(monitor_header("GPU  Name  VRAM_USED  VRAM_TOTAL").empty());  // not the tool's upper-case names
  CHECK(monitor_header("STEP  GPU  VRAM_USED  VRAM_TOTAL").empty());
  const auto c = monitor_cells("  0  712 W     61 \xC2\xB0" "C     0 %  N/A  191862 MB   196592 MB");
  REQUIRE(c.size() == 7);
  CHECK(c[1] == "712 W");
  CHECK(c[2] == "61 \xC2\xB0" "C");
  CHECK(c[3] == "0 %");
  CHECK(c[4] == "N/A");
  CHECK(c[6] == "196592 MB");
  // A unit after a word is no value's unit: the name `vllm B` stays two cells.
  CHECK(monitor_cells("1  vllm B  77").size() == 4);
  // ROCm 6.1's columns (THROTTLE, PCIE_TX / PCIE_RX in Mb/s), laid out as that release's
  // _convert_json_to_tabular does: the VRAM cells are found by the header all the same.
  const std::string v61 =
      "GPU  POWER  GPU_TEMP  MEM_TEMP  GFX_UTIL  GFX_CLOCK  MEM_UTIL  MEM_CLOCK  ENC_UTIL  ENC_CLOCK  DEC_UTIL  "
      "DEC_CLOCK     THROTTLE  SINGLE_ECC  DOUBLE_ECC  PCIE_REPLAY  VRAM_USED  VRAM_TOTAL   PCIE_TX   PCIE_RX\n"
      "  0  544 W     55 \xC2\xB0" "C     44 \xC2\xB0" "C      99 %   2100 MHz      37 %   1300 MHz       N/A        N/A       N/A"
      "        N/A  UNTHROTTLED           0           0            0  190001 MB   196592 MB   12 Mb/s   41 Mb/s\n";
  const auto sink61 = run(&culprit::ingest::parse_amd_smi, "amd_smi", v61);
  REQUIRE(sink61.snapshots.size() == 1);
  CHECK(*sink61.snapshots[0].mem_used == 190001 * kMiB);
  CHECK(*sink61.snapshots[0].mem_total == 196592 * kMiB);
  // The monitor table inside a paste is its own segment.
  const std::string paste = "$ amd-smi monitor -v\nGPU  VRAM_USED  VRAM_TOTAL\n  0  191862 MB   196592 MB\n$ echo done\n";
  const auto [first, count] = segment_of(paste, "amd_smi");
  CHECK(first == 2);
  CHECK(count == 2);
}

TEST_CASE("amd_smi: sizes, look-alikes, a listing inside a paste", "[gpu][amd_smi][sniff]") {
  using namespace culprit::ingest::amd_smi;
  CHECK(*size_value("196592 MB") == 196592 * kMiB);
  CHECK(*size_value("42.5 GB") == 45634027520);
  CHECK(*size_value("0.0 B") == 0);
  CHECK_FALSE(size_value("N/A"));
  CHECK_FALSE(size_value("12 ns"));
  CHECK_FALSE(parse_key_line("  name: value"));     // YAML with lower-case keys is not amd-smi's
  CHECK_FALSE(parse_key_line("http://host:8080"));
  std::string text =
      culprit::test::read_file(std::string(CULPRIT_SOURCE_DIR) + "/fixtures/formats/amd_smi/v6-metric-mem-usage.txt");
  const std::string paste = "HIP out of memory. Tried to allocate 2.00 GiB\n$ amd-smi metric --mem-usage\n" + text;
  const auto [first, count] = segment_of(paste, "amd_smi");
  CHECK(first == 3);
  CHECK(count >= 23);
  // A `GPU: 0` line with no amd-smi section under it is no listing.
  CHECK(segment_of("GPU: 0\n  loss: 1.0\nstep: 3\n", "amd_smi").first == 0);
}

TEST_CASE("gpu monitors: junk never crashes the parsers", "[gpu][nvitop][rocm_smi][amd_smi]") {
  std::string junk;
  for (int i = 0; i < 400; ++i) {
    junk += "\xE2\x94\x82" + std::string(i % 5, ' ') + std::to_string(i % 9) + ":" + std::string(i % 3, '.') +
            " NVITOP x Driver Version: \xE2\x94\x82\n";
    junk += "|" + std::to_string(i) + " " + std::string(i % 4, '.') + " C u 1GiB / N/A |\n";
    junk += "GPU[" + std::to_string(i) + "]\t: VRAM Total Memory (B): " + std::string(i % 30, '9') + "\n";
    junk += std::string(i % 6, ' ') + "PID: " + std::string(i % 25, '7') + "\n";
    junk += std::string(i % 9, ' ') + "VRAM_MEM: " + std::to_string(i) + "." + std::string(i % 20, '9') + " GB\n";
    junk += (i % 2) ? "GPU: 1\n" : "=== KFD Processes ===\n";
  }
  for (auto* parse : {&culprit::ingest::parse_nvitop, &culprit::ingest::parse_rocm_smi, &culprit::ingest::parse_amd_smi}) {
    CHECK_NOTHROW(run(parse, "x", junk));
    for (const char* s : {"", "\xE2\x94\x82", "|", "||", "GPU[", "GPU: ", "=", "\xE2\x94\x82\xE2\x94\x82"})
      CHECK_NOTHROW(run(parse, "x", s));
  }
}

TEST_CASE("amd_smi: the anchor-line test never turns away a line the block detector takes", "[gpu][amd_smi][sniff]") {
  using namespace culprit::ingest::amd_smi;
  // What amd_smi_block anchors at: a monitor header, or an indented MEM_USAGE / PROCESS_INFO key.
  const auto anchors = [](std::string_view line) {
    const auto k = parse_key_line(line);
    return !monitor_header(line).empty() ||
           (k && k->indent > 0 && (k->key == "MEM_USAGE" || k->key == "PROCESS_INFO"));
  };
  const std::string vllm =
      "INFO 04-09 00:47:22 [scheduler.py:84] Memory profiling takes 0.37 seconds; the current vLLM instance can "
      "use total_gpu_memory (79.19GiB) x gpu_memory_utilization (0.90) = 71.27GiB";
  std::vector<std::string> lines = {vllm,
      "GPU  VRAM_USED  VRAM_TOTAL", "\tGPU\tVRAM_USED\tVRAM_TOTAL\r", " TIMESTAMP  GPU  VRAM_USED  VRAM_TOTAL",
      "GPU  NAME  PID  VRAM_MEM", "    MEM_USAGE:", "  PROCESS_INFO: No running processes detected",
      "    MEM_USAGE:\r", "        MEM_USAGE: 42.5 GB",
      // look-alikes: each is turned away by both
      "MEM_USAGE:", "\tMEM_USAGE:", "  MEM_USAGE :", "  mem_usage:", "GPUS  VRAM_USED  VRAM_TOTAL",
      "GPU KV cache usage: 7.4%, VRAM_TOTAL", "  VRAM_MEM: 1 GB", ""};
  for (const auto& f : culprit::test::fixtures_in("amd_smi")) {
    const std::string text = culprit::test::read_file(f.string());
    for (std::string_view line : culprit::text::split_lines(text)) lines.emplace_back(line);
  }
  int anchored = 0;
  for (const std::string& line : lines) {
    INFO(line);
    if (!anchors(line)) continue;
    ++anchored;
    CHECK(may_anchor_block(line));
  }
  CHECK(anchored >= 10);  // the fixtures' headers and sections, and the lines above
  CHECK_FALSE(may_anchor_block(vllm));  // a `total` anchors it for other tables: turned away at once
  CHECK_FALSE(may_anchor_block("MEM_USAGE:"));
  CHECK_FALSE(may_anchor_block("  MEM_USAGE :"));
}
