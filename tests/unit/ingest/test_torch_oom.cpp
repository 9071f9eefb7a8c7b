// PyTorch allocator OOM messages of every generation (formats.md §3.1.1) → figures, snapshot,
// process sightings.
#include <catch2/catch.hpp>

#include <cmath>

#include "ingest/formats/torch_oom.hpp"
#include "unit/ingest/gpu_test_support.hpp"
#include "unit/test_units.hpp"

using culprit::ingest::parse_torch_oom;
using culprit::test::field;
using culprit::test::parse_app;

namespace {
using culprit::test::kMiB;
using culprit::test::kGiB;
// A size the message prints in GiB (MiB), in bytes rounded to the nearest byte.
std::int64_t rounded_gib(double v) { return static_cast<std::int64_t>(std::llround(v * kGiB)); }
std::int64_t rounded_mib(double v) { return static_cast<std::int64_t>(std::llround(v * kMiB)); }
}  // namespace

TEST_CASE("1.0 generation with `cached`", "[gpu][torch_oom]") {
  auto oom = parse_torch_oom(
      "RuntimeError: CUDA out of memory. Tried to allocate 12.50 MiB (GPU 0; 10.92 GiB total capacity; "
      "8.57 MiB already allocated; 9.28 GiB free; 4.68 MiB cached)");
  REQUIRE(oom);
  CHECK(oom->device == "CUDA");
  CHECK(*oom->gpu == 0);
  CHECK(*oom->requested == rounded_mib(12.5));
  CHECK(*oom->total == rounded_gib(10.92));
  CHECK(*oom->allocated == rounded_mib(8.57));
  CHECK(*oom->free == rounded_gib(9.28));
  CHECK(*oom->reserved == rounded_mib(4.68));
  CHECK(oom->processes.empty());
}

TEST_CASE("1.4–2.0 generation with `reserved in total` and `allowed`", "[gpu][torch_oom]") {
  auto oom = parse_torch_oom(
      "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 4; 31.75 GiB total capacity; "
      "30.29 GiB already allocated; 3.75 MiB free; 16.00 GiB allowed; 30.40 GiB reserved in total by PyTorch) "
      "If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  "
      "See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF");
  REQUIRE(oom);
  CHECK(*oom->gpu == 4);
  CHECK(*oom->requested == 20 * kMiB);
  CHECK(*oom->total == rounded_gib(31.75));
  CHECK(*oom->allocated == rounded_gib(30.29));
  CHECK(*oom->free == rounded_mib(3.75));
  CHECK(*oom->allowed == 16 * 1024 * kMiB);
  CHECK(*oom->reserved == rounded_gib(30.40));
}

TEST_CASE("2.1 generation with the `capacty` typo and the NVML list", "[gpu][torch_oom]") {
  auto oom = parse_torch_oom(
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 224.00 MiB. GPU 0 has a total "
      "capacty of 14.75 GiB of which 11.06 MiB is free. Process 3258 has 14.73 GiB memory in use. Of the "
      "allocated memory 14.04 GiB is allocated by PyTorch, and 509.85 MiB is reserved by PyTorch but "
      "unallocated. If reserved but unallocated memory is large try setting max_split_size_mb to avoid "
      "fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF");
  REQUIRE(oom);
  CHECK(*oom->gpu == 0);
  CHECK(*oom->total == rounded_gib(14.75));
  CHECK(*oom->free == rounded_mib(11.06));
  REQUIRE(oom->processes.size() == 1);
  CHECK(oom->processes[0].pid == 3258);
  CHECK(*oom->processes[0].bytes == rounded_gib(14.73));
  CHECK(*oom->allocated == rounded_gib(14.04));
  CHECK(*oom->reserved_unallocated == rounded_mib(509.85));
  CHECK(*oom->reserved == rounded_gib(14.04) + rounded_mib(509.85));
  CHECK_FALSE(oom->self_listed);
}

TEST_CASE("2.2+ with several processes, this process, private pools and allowed", "[gpu][torch_oom]") {
  auto oom = parse_torch_oom(
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 546.00 MiB. GPU 0 has a total capacity "
      "of 15.77 GiB of which 514.19 MiB is free. Process 608946 has 1.91 GiB memory in use. Including "
      "non-PyTorch memory, this process has 13.33 GiB memory in use. 12.00 GiB allowed; Of the allocated "
      "memory 11.73 GiB is allocated by PyTorch, with 46.00 MiB allocated in private pools (e.g., CUDA "
      "Graphs), and 736.86 MiB is reserved by PyTorch but unallocated. If reserved but unallocated memory "
      "is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
      "documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)");
  REQUIRE(oom);
  REQUIRE(oom->processes.size() == 1);
  CHECK(oom->processes[0].pid == 608946);
  CHECK(oom->self_listed);
  CHECK(*oom->self == rounded_gib(13.33));
  CHECK(*oom->allowed == rounded_gib(12.0));
  CHECK(*oom->private_pools == 46 * kMiB);
  CHECK(*oom->reserved_unallocated == rounded_mib(736.86));
}

TEST_CASE("HIP, a cut-short message, and NVML's not-available value", "[gpu][torch_oom]") {
  auto hip = parse_torch_oom("torch.OutOfMemoryError: HIP out of memory. Tried to allocate 2.00 GiB. GPU 1 "
                             "has a total capacity of 191.98 GiB of which 1.23 GiB is free.");
  REQUIRE(hip);
  CHECK(hip->device == "HIP");
  CHECK(*hip->gpu == 1);

  auto cut = parse_torch_oom("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3725.29 GiB. GPU");
  REQUIRE(cut);
  CHECK(*cut->requested == rounded_gib(3725.29));
  CHECK_FALSE(cut->gpu);
  CHECK_FALSE(cut->total);

  auto nvml = parse_torch_oom("CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of "
                              "8.00 GiB of which 0 bytes is free. Process 4242 has 17179869184.00 GiB memory in "
                              "use. Including non-PyTorch memory, this process has 17179869184.00 GiB memory in "
                              "use. Of the allocated memory 7.10 GiB is allocated by PyTorch");
  REQUIRE(nvml);
  CHECK(*nvml->free == 0);
  REQUIRE(nvml->processes.size() == 1);
  CHECK_FALSE(nvml->processes[0].bytes);
  CHECK(nvml->self_listed);
  CHECK_FALSE(nvml->self);
  CHECK(*nvml->allocated == rounded_gib(7.10));
  CHECK_FALSE(nvml->reserved_unallocated);

  CHECK_FALSE(parse_torch_oom("RuntimeError: CUDA error: out of memory"));
  CHECK_FALSE(parse_torch_oom("CUDA out of memory. Tried to allocate"));  // the anchor needs a size after it
}

TEST_CASE("an OOM line becomes a cuda_oom event with fields, a snapshot and sightings", "[gpu][torch_oom]") {
  const auto sink = parse_app(
      "(VllmWorker rank=0 pid=562167) ERROR 08-19 04:02:11 [core.py:1346] torch.OutOfMemoryError: CUDA out "
      "of memory. Tried to allocate 546.00 MiB. GPU 0 has a total capacity of 15.77 GiB of which 514.19 MiB "
      "is free. Process 562167 has 13.25 GiB memory in use. Process 99120 has 2.00 GiB memory in use. Of "
      "the allocated memory 13.73 GiB is allocated by PyTorch, and 736.86 MiB is reserved by PyTorch but "
      "unallocated.\n",
      "node-a");
  const auto ooms = sink.of_kind("cuda_oom");
  REQUIRE(ooms.size() == 1);
  const auto& e = ooms[0];
  CHECK(e.rule == "test_cuda_oom");
  CHECK(*e.pid == 562167);
  CHECK(field(e, "requested_bytes") == std::to_string(546 * kMiB));
  CHECK(field(e, "total_bytes") == std::to_string(rounded_gib(15.77)));
  CHECK(field(e, "free_bytes") == std::to_string(rounded_mib(514.19)));
  CHECK(field(e, "used_bytes") == std::to_string(rounded_gib(15.77) - rounded_mib(514.19)));
  CHECK(field(e, "proc_99120_bytes") == std::to_string(2 * 1024 * kMiB));
  CHECK(field(e, "processes") == "2");
  CHECK(e.field("requested_bytes")->numeric);

  REQUIRE(sink.snapshots.size() == 1);
  const auto& s = sink.snapshots[0];
  CHECK(s.gpu == 0);
  CHECK(s.host == "node-a");
  CHECK(s.line == 1);
  CHECK(*s.mem_total == rounded_gib(15.77));
  CHECK(*s.mem_used == rounded_gib(15.77) - rounded_mib(514.19));
  REQUIRE(s.processes.size() == 2);
  CHECK(s.processes[1].pid == 99120);
  CHECK(s.processes[1].type.empty());

  REQUIRE(sink.sighting(562167, true));
  CHECK(sink.sighting(99120, true) == nullptr);
  REQUIRE(sink.sighting(99120, false));
  CHECK(sink.sighting(99120, false)->host == "node-a");
}

TEST_CASE("without rules the parser still records the OOM", "[gpu][torch_oom]") {
  culprit::test::GpuRecordingSink sink;
  culprit::ingest::ParseContext ctx;
  ctx.sink = &sink;
  ctx.format = "app_log";
  culprit::ingest::parse_app_log(
      "RuntimeError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 4; 31.75 GiB total capacity; "
      "30.29 GiB already allocated; 3.75 MiB free; 30.40 GiB reserved in total by PyTorch)\n",
      ctx);
  const auto ooms = sink.of_kind("cuda_oom");
  REQUIRE(ooms.size() == 1);
  CHECK(ooms[0].rule == "torch_oom");
  CHECK(field(ooms[0], "gpu") == "4");
  REQUIRE(sink.snapshots.size() == 1);
  CHECK(sink.snapshots[0].gpu == 4);
  CHECK(sink.snapshots[0].processes.empty());
}

// Issue 35's fragments: the 2.1+ message quoted without its head ("CUDA out of memory."), as an
// indented excerpt with elision marks, still carries its figures (c10/cuda/CUDACachingAllocator.cpp
// 2.1+: "Tried to allocate %s. GPU %d has a total capacity of %s of which %s is free. …").
// Look-alikes: prose about allocating, the words not at the line's start, the 1.x layout (its own
// headless signal reads it).
TEST_CASE("a 2.1+ OOM body without its head, elided and indented", "[gpu][torch_oom]") {
  auto body = parse_torch_oom("    ... Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which "
                              "1.20 GiB is free. Process 48211 has 60.00 GiB memory in use. ...");
  REQUIRE(body);
  CHECK(body->device.empty());
  CHECK(*body->requested == rounded_gib(2.0));
  CHECK(*body->gpu == 0);
  CHECK(*body->total == rounded_gib(79.15));
  CHECK(*body->free == rounded_gib(1.20));
  REQUIRE(body->processes.size() == 1);
  CHECK(body->processes[0].pid == 48211);

  auto ellipsis = parse_torch_oom("\u2026 Tried to allocate 20.00 MiB. GPU 3 has a total capacty of 14.75 GiB of which 0 "
                                  "bytes is free.");
  REQUIRE(ellipsis);
  CHECK(*ellipsis->gpu == 3);
  CHECK(*ellipsis->total == rounded_gib(14.75));

  CHECK_FALSE(parse_torch_oom("Tried to allocate 2.00 GiB for the KV cache; retrying with a smaller batch"));
  CHECK_FALSE(parse_torch_oom("We tried to allocate 2.00 GiB. GPU 0 has a total capacity of 80.00 GiB of which 1 GiB is free."));
  CHECK_FALSE(parse_torch_oom("Tried to allocate 2.00 GiB. GPU memory is shared with the display"));
  CHECK_FALSE(parse_torch_oom("Tried to allocate 64.00 MiB (GPU 1; 10.76 GiB total capacity; 9.81 GiB already allocated)"));

  // In a log, the excerpt is a cuda_oom event with its figures and the GPU reading.
  const auto sink = parse_app(
      "    ... Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.20 GiB is free. "
      "Process 48211 has 60.00 GiB memory in use. ...\n",
      "node-a");
  const auto ooms = sink.of_kind("cuda_oom");
  REQUIRE(ooms.size() == 1);
  CHECK(field(ooms[0], "requested_bytes") == std::to_string(rounded_gib(2.0)));
  CHECK(field(ooms[0], "proc_48211_bytes") == std::to_string(rounded_gib(60.0)));
  REQUIRE(sink.snapshots.size() == 1);
  CHECK(*sink.snapshots[0].mem_total == rounded_gib(79.15));
}
