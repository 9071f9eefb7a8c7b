// The app-log fast path over a log that interleaves several workers' lines (vLLM's coloured
// `(VllmWorker rank=N pid=P)` prefixes, one per rank): each rank's prefix is remembered once
// sighted, so its routine lines skip peeling; what the parser yields must be exactly what it
// yields with the prefilter off (every line peeled, every signal tried): events, their lines,
// pids and fields, and one sighting per pid, a late new rank's included.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "culprit/ingest/parser.hpp"
#include "culprit/rules/loader.hpp"
#include "culprit/text/literal_set.hpp"
#include "ingest/signal_events.hpp"
#include "unit/ingest/builtin_app_log.hpp"
#include "unit/ingest/gpu_recording_sink.hpp"

namespace {

std::string worker(int rank, int pid) {
  return "\x1b[1;36m(VllmWorker rank=" + std::to_string(rank) + " pid=" + std::to_string(pid) + ")\x1b[0;0m ";
}

std::string interleaved_log() {
  std::string log;
  for (int i = 0; i < 40; ++i) {
    for (int rank = 0; rank < 3; ++rank)
      log += worker(rank, 3300 + rank) + "INFO 04-09 00:00:" + std::to_string(10 + i % 50) +
             " [metrics.py:400] Avg prompt throughput: 351.2 tokens/s, Running: 23 reqs, pid file ok\n";
    if (i == 20) {
      // Rank 2 runs out of memory; rank 1 prints a traceback; a rank first seen now.
      log += worker(2, 3302) +
             "ERROR 04-09 00:00:31 [worker.py:90] torch.OutOfMemoryError: CUDA out of memory. Tried to "
             "allocate 2.00 GiB. GPU 2 has a total capacity of 79.10 GiB of which 1.02 GiB is free.\n";
      log += worker(1, 3301) + "ERROR 04-09 00:00:31 [engine.py:12] Traceback (most recent call last):\n";
      log += worker(1, 3301) + "ERROR 04-09 00:00:31 [engine.py:12]   File \"/app/run.py\", line 7, in <module>\n";
      log += worker(1, 3301) + "ERROR 04-09 00:00:31 [engine.py:12] RuntimeError: CUDA error: out of memory\n";
      log += worker(3, 3303) + "INFO 04-09 00:00:31 [worker.py:1] Worker ready\n";
    }
  }
  return log;
}

culprit::test::GpuRecordingSink parse_worker_log(const std::string& text, bool prefilter) {
  return culprit::test::parse_app_builtin(text, prefilter, "worker.log", "gpu-node-1");
}

/// The events of the fast path are those of peeling every line: kind, line, pid, message, fields.
void require_same_events(const culprit::test::GpuRecordingSink& fast, const culprit::test::GpuRecordingSink& full) {
  REQUIRE(fast.events.size() == full.events.size());
  for (std::size_t i = 0; i < fast.events.size(); ++i) {
    INFO("event " << i << ": " << full.events[i].kind << " at line " << full.events[i].line);
    CHECK(fast.events[i].kind == full.events[i].kind);
    CHECK(fast.events[i].line == full.events[i].line);
    CHECK(fast.events[i].pid == full.events[i].pid);
    CHECK(fast.events[i].message == full.events[i].message);
    CHECK(fast.events[i].fields.size() == full.events[i].fields.size());
  }
}

}  // namespace

TEST_CASE("interleaved workers: the fast path yields what peeling every line yields", "[app_log]") {
  const std::string log = interleaved_log();
  const auto fast = parse_worker_log(log, true), full = parse_worker_log(log, false);
  require_same_events(fast, full);
  REQUIRE(fast.processes.size() == full.processes.size());
  for (std::size_t i = 0; i < fast.processes.size(); ++i) {
    CHECK(fast.processes[i].pid == full.processes[i].pid);
    CHECK(fast.processes[i].ts == full.processes[i].ts);
  }
  // What the log says, found either way: rank 2's CUDA OOM, and every worker's pid.
  bool oom = false;
  for (const auto& e : fast.events) oom = oom || (e.kind == "cuda_oom" && e.pid == 3302);
  CHECK(oom);
  std::set<std::int64_t> pids;
  for (const auto& p : fast.processes) pids.insert(p.pid);
  CHECK(pids == std::set<std::int64_t>{3300, 3301, 3302, 3303});  // rank 3's, first seen late, too
}

TEST_CASE("c10's glog headers at error level are failure markers: a logger named engine.py is not", "[app_log]") {
  // vLLM names its logger's file in brackets (`[engine.py:212]`); markers compare case-folded,
  // so a bare `[E` marker made every such line take the slow path (3x slower on a vLLM log).
  const culprit::text::LiteralSet markers(culprit::ingest::fast_path_markers());
  CHECK_FALSE(markers.any("INFO 04-09 00:00:01 [engine.py:212] Added request cmpl-1."));
  CHECK_FALSE(markers.any("INFO 04-09 00:00:01 [executor_base.py:104] # cuda blocks: 2048"));
  CHECK(markers.any("[E0412 11:02:51.207114332 ProcessGroupNCCL.cpp:1895] [Rank 1] Watchdog caught"));
  CHECK(markers.any("[C409 11:02:51.207114 init.cpp:12] cache is full, stopping"));
  // The error-level lines give their log events whether or not the fast path skips routine lines.
  std::string log;
  for (int i = 0; i < 30; ++i) log += "INFO 04-09 00:00:01 [engine.py:212] Added request cmpl-" + std::to_string(i) + ".\n";
  log += "[E0412 11:02:51.207114332 ProcessGroupNCCL.cpp:1895] [Rank 1] Watchdog caught collective timeout\n";
  log += "[C409 11:02:51.207114 init.cpp:12] cache is full, stopping\n";  // no other marker
  log += "[F ProcessGroupNCCL.cpp:474] Some NCCL operations have failed\n";
  log += "[W0412 11:02:52.000000000 Utils.hpp:110] Warning: a routine warning\n";
  const auto fast = parse_worker_log(log, true), full = parse_worker_log(log, false);
  require_same_events(fast, full);
  std::set<std::int64_t> lines;
  for (const auto& e : fast.events) lines.insert(e.line);
  CHECK(lines.count(31) == 1);  // [E0412 …]
  CHECK(lines.count(32) == 1);  // [C409 …]: critical, as glog's C
  CHECK(lines.count(33) == 1);  // [F …]
}

TEST_CASE("NCCL_DEBUG lines: each writer's tag is a prefix sighted once: the fast path yields what peeling does",
          "[app_log]") {
  // formats.md, NCCL: `host:pid:tid [dev] NCCL INFO …`, behind a pdsh label or a stamp too.
  std::string log;
  for (int i = 0; i < 40; ++i) {
    log += "gpu-node-17:12345:" + std::to_string(12400 + i % 3) + " [" + std::to_string(i % 3) +
           "] NCCL INFO Channel " + std::to_string(i % 32) + "/0 : 0[0] -> 1[1] via P2P/IPC\n";
    if (i == 10) log += "gpu-node-18: gpu-node-18:22410:22468 [3] NCCL INFO Channel 00/0 : 3[3] -> 4[4] via P2P/IPC\n";
    if (i == 20) log += "[2026-04-09 00:47:22] gpu-node-19:7001:7002 [1] NCCL INFO comm 0x5581 rank 1 nranks 8 - Init COMPLETE\n";
    if (i == 30)
      log += "[2026-04-09 00:47:22] gpu-node-17:12345:12400 [3] include/alloc.h:103 NCCL WARN Cuda failure 'out of memory'\n";
  }
  const auto fast = parse_worker_log(log, true), full = parse_worker_log(log, false);
  require_same_events(fast, full);
  REQUIRE(fast.processes.size() == full.processes.size());
  std::set<std::int64_t> pids;
  for (std::size_t i = 0; i < fast.processes.size(); ++i) {
    CHECK(fast.processes[i].pid == full.processes[i].pid);
    CHECK(fast.processes[i].host == full.processes[i].host);
    pids.insert(fast.processes[i].pid);
  }
  CHECK(pids == std::set<std::int64_t>{12345, 22410, 7001});
  bool oom = false;
  for (const auto& e : fast.events) oom = oom || e.kind == "nccl_error" || e.kind == "cuda_oom";
  CHECK(oom);
}

TEST_CASE("worker lines: colour codes after a sighted prefix never hide a signal from the fast path", "[app_log]") {
  // The fast path lets one colour code follow a sighted prefix, up to its `m`: a short reset, a
  // long 24-bit colour, a code cut off at the line's end; and never one inside the message that
  // splits the words a signal looks for (at INFO level: no failure marker sends the line down
  // the slow path anyway).
  const std::string prefix = "\x1b[1;36m(VllmWorker rank=0 pid=3300)";
  std::string log;
  for (int i = 0; i < 30; ++i) log += prefix + "\x1b[0;0m INFO 04-09 00:00:10 [metrics.py:400] Running: 23 reqs\n";
  log += prefix + "\x1b[0m INFO 04-09 00:00:11 [worker.py:90] CUDA out of \x1b[1mmemory\n";
  log += prefix + "\x1b[38;2;255;255;255;48;2;0;0;0m INFO 04-09 00:00:12 [x.py:1] routine\n";
  log += prefix + "\x1b[38;2;255;255;255;48;2;0;0;0m INFO 04-09 00:00:13 [x.py:2] CUDA out of \x1b[0mmemory\n";
  log += prefix + "\x1b[38;2;255;255;255;48;2;0;0";
  const auto fast = parse_worker_log(log, true), full = parse_worker_log(log, false);
  require_same_events(fast, full);
  std::set<std::int64_t> oom_lines;
  for (const auto& e : fast.events)
    if (e.kind == "cuda_oom") oom_lines.insert(e.line);
  CHECK(oom_lines == std::set<std::int64_t>{31, 33});
}
