// gpustat (wookayin/gpustat): the fixtures (fixtures/formats/gpustat, written from its printing
// code), each flag's process form, colour, the header, and look-alikes.
#include <catch2/catch.hpp>

#include <string>

#include "culprit/ingest/sniff.hpp"
#include "ingest/format_detect.hpp"
#include "ingest/formats/gpustat.hpp"
#include "unit/ingest/gpu_fixture_runner.hpp"
#include "unit/test_units.hpp"

using culprit::ingest::detect::gpustat_shape;
using culprit::ingest::gpustat::parse_gpu_line;
using culprit::ingest::gpustat::parse_header;

namespace {
using culprit::test::kMiB;

culprit::test::GpuRecordingSink parse_gpustat(std::string_view text, std::string host = {}) {
  culprit::test::GpuRecordingSink sink;
  auto ctx = culprit::test::gpu_context(sink, "gpustat", std::move(host));
  culprit::ingest::parse_gpustat(text, ctx);
  return sink;
}
}  // namespace

TEST_CASE("gpustat fixtures", "[gpu][fixtures][gpustat]") {
  culprit::test::run_parser_fixtures("gpustat", "gpustat", &culprit::ingest::parse_gpustat);
}

TEST_CASE("gpustat: each flag's process form", "[gpu][gpustat]") {
  // print_to's process_repr: user (default), command (-c), user:command (-cu), /pid (-p).
  const auto g = parse_gpu_line(
      "[0] NVIDIA GeForce RTX 3090 | 45\xC2\xB0" "C,  98 % | 23871 / 24576 MB | alice(100M) python/12345(15228M) "
      "bob:torchrun/23456(?M) carol/34567(8M)");
  REQUIRE(g);
  CHECK(g->index == 0);
  CHECK(g->name == "NVIDIA GeForce RTX 3090");
  CHECK(*g->used == 23871 * kMiB);
  CHECK(*g->total == 24576 * kMiB);
  REQUIRE(g->processes.size() == 4);
  CHECK(g->processes[0].user == "alice");
  CHECK_FALSE(g->processes[0].pid);
  CHECK(g->processes[1].command == "python");
  CHECK(*g->processes[1].pid == 12345);
  CHECK(*g->processes[1].mem == 15228 * kMiB);
  CHECK(g->processes[2].user == "bob");
  CHECK(g->processes[2].command == "torchrun");
  CHECK_FALSE(g->processes[2].mem);
  CHECK(*g->processes[3].pid == 34567);
}

TEST_CASE("gpustat: fan, codec, power columns, no name, unknown figures", "[gpu][gpustat]") {
  // gpustat's own test expectations' shapes (gpustat/test_gpustat.py).
  const auto wide = parse_gpu_line(
      "[1] GeForce GTX TITAN 1 | 36\xC2\xB0" "C,  53 %,   0 % (E:   0 %  D:   0 %),   ?? / 250 W |  9000 / 12189 MB | "
      "user1:torch/192453(3000M) user3:caffe/194826(6000M)");
  REQUIRE(wide);
  CHECK(wide->name == "GeForce GTX TITAN 1");
  CHECK(*wide->used == 9000 * kMiB);
  CHECK(wide->processes.size() == 2);
  const auto nameless = parse_gpu_line("[0]  80\xC2\xB0" "C,  76 % |  8000 / 12287 MB");
  REQUIRE(nameless);
  CHECK(nameless->name.empty());
  CHECK(nameless->processes.empty());
  const auto unknown = parse_gpu_line("[2] GeForce RTX 2       | ??\xC2\xB0" "C,  ?? % |    ?? /    ?? MB | (Not Supported)");
  REQUIRE(unknown);
  CHECK_FALSE(unknown->used);
  CHECK(unknown->processes_not_supported);
}

TEST_CASE("gpustat: the header, a block inside a paste, colour", "[gpu][gpustat][sniff]") {
  const auto h = parse_header("gpu-node-7                  Thu Apr  9 00:47:22 2026  535.104.05");
  REQUIRE(h);
  CHECK(h->host == "gpu-node-7");
  CHECK(h->time == "Thu Apr  9 00:47:22 2026");
  CHECK(h->driver == "535.104.05");
  CHECK(parse_header("lab-box  Fri Jan 11 09:30:01 2019"));         // 0.5: no driver
  CHECK(parse_header("WIN-PC  2026-04-09 00:47:22  560.94"));        // Windows: ISO time
  CHECK(parse_header("srv3  Mon 09 Apr 2026 12:47:22 AM UTC  535.104.05"));  // another locale
  CHECK_FALSE(parse_header("INFO  something happened"));
  CHECK_FALSE(parse_header("[0] NVIDIA GeForce RTX 3090 | 45\xC2\xB0" "C,  98 % | 23871 / 24576 MB |"));
  // --color (force_color): blessed's codes around each field, `\x1b[0;10m` as the reset.
  const std::string coloured =
      "\x1b[1m\x1b[37mgpu-node-7\x1b[0;10m  Thu Apr  9 00:47:22 2026  \x1b[1m\x1b[30m535.104.05\x1b[0;10m\n"
      "\x1b[36m[0]\x1b[0;10m \x1b[34mNVIDIA GeForce RTX 3090\x1b[0;10m |\x1b[31m 45\xC2\xB0" "C\x1b[0;10m, "
      "\x1b[32m 98 %\x1b[0;10m | \x1b[1m\x1b[33m23871\x1b[0;10m / \x1b[33m24576\x1b[0;10m MB | "
      "\x1b[36mpython\x1b[0;10m/4242(\x1b[33m23862M\x1b[0;10m)\n";
  const auto sink = parse_gpustat(coloured, "node");
  REQUIRE(sink.snapshots.size() == 1);
  CHECK(*sink.snapshots[0].mem_used == 23871 * kMiB);
  REQUIRE(sink.snapshots[0].processes.size() == 1);
  CHECK(sink.snapshots[0].processes[0].pid == 4242);
  REQUIRE(sink.events.size() == 1);
  CHECK(sink.events[0].field_or("driver_version") == "535.104.05");
  CHECK(sink.events[0].ts_raw == "Thu Apr  9 00:47:22 2026");
  // Inside a paste (no colour): the header above the GPU lines joins their segment.
  const std::string paste =
      "RuntimeError: CUDA error: out of memory\n\n"
      "gpu-node-7                  Thu Apr  9 00:47:22 2026  535.104.05\n"
      "[0] NVIDIA GeForce RTX 3090 | 45\xC2\xB0" "C,  98 % | 23871 / 24576 MB | python/4242(23862M)\n"
      "[1] NVIDIA GeForce RTX 3090 | 30\xC2\xB0" "C,   0 % |     3 / 24576 MB |\n"
      "Traceback (most recent call last):\n";
  bool found = false;
  for (const auto& s : culprit::ingest::segment_text(paste)) {
    if (s.format != "gpustat") continue;
    found = true;
    CHECK(s.first_line == 3);
    CHECK(s.line_count == 3);
    CHECK(parse_gpustat(s.text).snapshots.size() == 2);
  }
  CHECK(found);
}

TEST_CASE("gpustat: look-alikes are not GPU lines", "[gpu][gpustat]") {
  for (const char* l : {"[0] loss 0.123 | acc 0.98 | 1024 / 2048 MB",              // no temperature
                        "[rank0]: RuntimeError: CUDA out of memory | 23871 / 24576 MB",
                        "[ 1478.687080] nvidia 0000:3b:00.0: 45'C, 0 % | 1 / 2 MB",  // dmesg
                        "[0] NVIDIA GeForce RTX 3090 | 45\xC2\xB0" "C,  98 % | 23871 MB",
                        "[2026-04-09 00:47:22] GPU 0 | 45'C, 0 % | 23871 / 24576 MB",
                        "| 0 | 45C | 23871 / 24576 MB |"}) {
    INFO(l);
    CHECK_FALSE(gpustat_shape(l));
  }
  CHECK(parse_gpustat("[0] loss 0.123 | acc 0.98 | 1024 / 2048 MB\n").snapshots.empty());
}

TEST_CASE("gpustat: junk never crashes the parser", "[gpu][gpustat]") {
  std::string junk;
  for (int i = 0; i < 500; ++i) {
    junk += "[" + std::to_string(i % 11) + "]" + std::string(i % 5, '|') + "'C,%| ?? / " + std::to_string(i) + " MB |";
    junk += (i % 2) ? " (M) a(M) /(1M) :(?M) ((((M) x/--(3M) y/99999999999999999(1M)\n" : " (Not Supported)\n";
    junk += (i % 3) ? "h  Thu Apr  9 00:47:22 2026  1.2.3\n" : "h  x:y:z\n";
    junk += "[0]  45\xC2\xB0" "C, " + std::string(i % 7, '%') + "|" + std::string(i % 4, ' ') + "1 / 2 MB\n";
  }
  CHECK_NOTHROW(parse_gpustat(junk));
  for (const char* s : {"", "[", "[0]", "[0] |", "[0] x | 1'C, 1 % |", "h  12:", "h  1:23:45", "\xe2\x94\x9c"})
    CHECK_NOTHROW(parse_gpustat(s));
}
