// Log stamps of C++ loggers as they really print: absl before logging is initialised (XLA / JAX /
// TensorFlow since 2024: date and time read 0000 00:00, the seconds field is Unix time, a full
// UTC stamp), and c10's own logger, whose date is the unpadded integer month*100+day.
#include <catch2/catch.hpp>

#include "culprit/core/event.hpp"
#include "culprit/core/time.hpp"
#include "ingest/formats/line_prefix.hpp"

using culprit::core::Severity;
using culprit::core::TsKind;
using culprit::ingest::apply_peeled;
using culprit::ingest::peel_line;

TEST_CASE("absl epoch stamp: I0000 00:00:<unix time>", "[gpu][line_prefix]") {
  const auto p = peel_line(
      "I0000 00:00:1775695621.447112    2211 service.cc:152] XLA service 0x5581f0a3c2d0 initialized for platform "
      "CUDA (this does not guarantee that XLA will be used). Devices:");
  CHECK(p.message.rfind("XLA service 0x5581f0a3c2d0", 0) == 0);
  CHECK(p.severity == Severity::info);
  CHECK(p.time.kind == TsKind::wall);
  CHECK(p.logger == "service.cc:152");
  CHECK_FALSE(p.pid);  // absl prints a thread id there
  culprit::core::Event e;
  apply_peeled(p, e, 0);
  REQUIRE(e.ts);
  CHECK(*e.ts == Approx(1775695621.447112).margin(1e-5));
  CHECK(culprit::core::format_iso(*e.ts).rfind("2026-04-09T00:47:01", 0) == 0);

  const auto f = peel_line(
      "F0000 00:00:1775695678.903377    1874 client.h:77] Terminating process because the JAX distributed service "
      "detected fatal errors.");
  CHECK(f.severity == Severity::critical);
  CHECK(f.message.rfind("Terminating process", 0) == 0);
  CHECK(f.time.kind == TsKind::wall);
  CHECK(f.time.year == 2026);
  CHECK(f.time.month == 4);
  CHECK(f.time.day == 9);
}

TEST_CASE("absl epoch look-alikes are not stamps", "[gpu][line_prefix]") {
  // A month of 00 with an ordinary time, and a too-short seconds field, stay unpeeled.
  CHECK(peel_line("I0000 00:00:00.000000 2211 service.cc:152] x").time.kind == TsKind::none);
  CHECK(peel_line("I0000 00:00:17756 2211 service.cc:152] x").time.kind == TsKind::none);
  // Leap-year end of February and the turn of a year convert to the right civil date.
  CHECK(peel_line("W0000 00:00:1709164800.5 7 a.cc:1] x").time.day == 29);  // 2024-02-29T00:00:00.5Z
  const auto ny = peel_line("E0000 00:00:1767225599.999 7 a.cc:1] x");      // 2025-12-31T23:59:59.999Z
  CHECK(ny.time.year == 2025);
  CHECK(ny.time.month == 12);
  CHECK(ny.time.day == 31);
  CHECK(ny.time.seconds_of_day == Approx(86399.999));
}

TEST_CASE("c10 stamp with an unpadded month: [W409 …] is April 9", "[gpu][line_prefix]") {
  const auto p = peel_line(
      "[rank3]:[W409 00:47:10.016259147 ProcessGroupNCCL.cpp:1250] Warning: WARNING: process group has NOT been "
      "destroyed before we destruct ProcessGroupNCCL.");
  CHECK(p.message.rfind("Warning: WARNING: process group", 0) == 0);
  REQUIRE(p.rank);
  CHECK(*p.rank == 3);
  CHECK(p.severity == Severity::warning);
  CHECK(p.time.kind == TsKind::wall_no_year);
  CHECK(p.time.month == 4);
  CHECK(p.time.day == 9);
  CHECK(p.time.seconds_of_day == Approx(47 * 60 + 10.016259147));
  CHECK(p.time.raw == "409 00:47:10.016259147");
  CHECK(p.logger == "ProcessGroupNCCL.cpp:1250");

  const auto dec = peel_line("[rank0]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught");
  CHECK(dec.time.month == 12);
  CHECK(dec.time.day == 18);
  CHECK(dec.message == "[Rank 0] Watchdog caught");
  // Not a stamp: a day of 00, or a leading 0 with three digits.
  CHECK(peel_line("[E400 00:47:10.016259147 x.cpp:1] m").time.kind == TsKind::none);
  CHECK(peel_line("[E040 00:47:10.016259147 x.cpp:1] m").time.kind == TsKind::none);
}

// trantor (drogon's logger, used by llama.cpp servers such as cortex.cpp): `%Y%m%d %H:%M:%S.%06d
// UTC <tid> <LEVEL> <msg> - <file>:<line>` (trantor/utils/Logger.cc formatTime + the level names).
TEST_CASE("trantor header: stamp, thread id as the pid, level", "[line_prefix]") {
  const auto p = peel_line(
      "20250430 21:55:01.443740 UTC 8354 ERROR ggml_backend_cuda_buffer_type_alloc_buffer: allocating 7203.17 MiB "
      "on device 0: cudaMalloc failed: out of memory - ggml-cuda.cu:412");
  CHECK(p.message.rfind("ggml_backend_cuda_buffer_type_alloc_buffer:", 0) == 0);
  CHECK(p.pid == 8354);
  CHECK(p.severity == Severity::error);
  CHECK(p.time.kind == TsKind::wall);
  CHECK(p.time.year == 2025);
  CHECK(p.time.month == 4);
  CHECK(p.time.day == 30);
  // Look-alikes: no ` UTC <n> LEVEL` after the stamp, or a word that is not a level.
  CHECK_FALSE(peel_line("20250430 21:55:01.443740 8354 ERROR x").pid);
  CHECK_FALSE(peel_line("20250430 21:55:01.443740 UTC 8354 loading model weights").pid);
  CHECK_FALSE(peel_line("20251330 21:55:01.443740 UTC 8354 ERROR bad month").pid);
}

// vLLM / Ray's `(Name pid=N)` tag after a stamp and a tab (klog / CI viewers nest the worker's
// line), or indented by hand in a paste: the blanks belong to the prefix.
TEST_CASE("process tag after blanks", "[line_prefix]") {
  const auto p = peel_line(
      "2026-09-03T19:49:04.3497440Z \t(EngineCore_DP0 pid=1371) ERROR 09-03 19:44:07 [core.py:1330] ValueError: "
      "Free memory on device cuda:0");
  CHECK(p.pid == 1371);
  CHECK(p.proc_name == "EngineCore_DP0");
  CHECK(p.message.rfind("ValueError: Free memory", 0) == 0);
  const auto q = peel_line("    (VllmWorker rank=1 pid=4321) ERROR 05-01 10:00:31 worker.py:1] torch.OutOfMemoryError");
  CHECK(q.pid == 4321);
  CHECK(q.rank == 1);
  // Not a tag: a pid quoted in the message, a malformed pid, an indented traceback frame.
  CHECK_FALSE(peel_line("RuntimeError: failed (pid=12)").pid);
  CHECK_FALSE(peel_line("\t(Worker pid=12abc) text").pid);
  const auto frame = peel_line("    (most recent call last) File \"x.py\"");
  CHECK_FALSE(frame.pid);
  CHECK(frame.message == "    (most recent call last) File \"x.py\"");
}
