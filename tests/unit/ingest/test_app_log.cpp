// The app-log parser end to end: signals on peeled messages, torchrun lines and the
// ChildFailedError block, job process sightings, log events, and bad input.
#include <catch2/catch.hpp>

#include <filesystem>

#include "culprit/core/job_evidence.hpp"
#include "culprit/core/time.hpp"
#include "culprit/text/lines.hpp"
#include "unit/ingest/gpu_fixture_runner.hpp"
#include "unit/ingest/gpu_test_support.hpp"

using culprit::test::field;
using culprit::test::parse_app;

TEST_CASE("torchrun agent lines: signal_exit from the signals and job sightings", "[gpu][app_log]") {
  const auto sink = parse_app(
      "E0409 00:47:20.980000 40211 torch/distributed/elastic/multiprocessing/api.py:869] failed "
      "(exitcode: -9) local_rank: 2 (pid: 40287) of binary: /opt/venv/bin/python3\n"
      "W0409 00:47:20.990000 40211 torch/distributed/elastic/multiprocessing/api.py:897] Sending process "
      "40288 closing signal SIGTERM\n",
      "gpu-node-17");
  const auto exits = sink.of_kind("signal_exit");
  REQUIRE(exits.size() == 1);
  CHECK(*exits[0].pid == 40287);  // the captured worker pid, not the agent's
  CHECK(field(exits[0], "exitcode") == "-9");
  CHECK(exits[0].ts_kind == culprit::core::TsKind::wall_no_year);
  CHECK(exits[0].host == "gpu-node-17");

  const auto* agent = sink.sighting(40211, true);
  REQUIRE(agent);
  CHECK(agent->evidence == "torchrun agent log");
  REQUIRE(sink.sighting(40287, true));
  CHECK(sink.sighting(40287, true)->evidence == "torchrun");
  REQUIRE(sink.sighting(40288, true));
  // once per (host, pid)
  int n = 0;
  for (const auto& p : sink.processes) n += p.pid == 40211;
  CHECK(n == 1);
}

TEST_CASE("ChildFailedError block: one signal_exit per failure entry", "[gpu][app_log]") {
  const auto sink = parse_app(R"(torch.distributed.elastic.multiprocessing.errors.ChildFailedError: 
============================================================
train.py FAILED
------------------------------------------------------------
Failures:
[1]:
  time      : 2026-04-09_00:47:22
  host      : gpu-node-17.cluster.local
  rank      : 1 (local_rank: 1)
  exitcode  : -15 (pid: 1246014)
  error_file: <N/A>
  traceback : Signal 15 (SIGTERM) received by PID 1246014
------------------------------------------------------------
Root Cause (first observed failure):
[0]:
  time      : 2026-04-09_00:47:20
  host      : gpu-node-17.cluster.local
  rank      : 6 (local_rank: 6)
  exitcode  : -9 (pid: 1246013)
  error_file: <N/A>
  traceback : Signal 9 (SIGKILL) received by PID 1246013
============================================================
)");
  const auto exits = sink.of_kind("signal_exit");
  REQUIRE(exits.size() == 2);
  const auto& other = exits[0];
  const auto& root = exits[1];
  CHECK(other.line == 6);
  CHECK(other.line_end == 12);
  CHECK(field(other, "root_cause") == "0");
  CHECK(field(other, "exitcode") == "-15");
  CHECK(*other.pid == 1246014);
  CHECK(root.line == 15);
  CHECK(root.line_end == 21);
  CHECK(field(root, "root_cause") == "1");
  CHECK(field(root, "exitcode") == "-9");
  CHECK(field(root, "signal") == "9");
  CHECK(field(root, "signal_name") == "SIGKILL");
  CHECK(field(root, "rank") == "6");
  CHECK(field(root, "local_rank") == "6");
  CHECK(field(root, "entrypoint") == "train.py");
  CHECK(*root.rank == 6);
  CHECK(*root.pid == 1246013);
  CHECK(root.host == "gpu-node-17.cluster.local");
  CHECK(field(root, "host") == "gpu-node-17.cluster.local");
  CHECK(root.ts_raw == "2026-04-09_00:47:20");
  CHECK(*root.ts == Approx(culprit::core::civil_to_epoch(2026, 4, 9, 0, 47, 20)));
  const auto* s = sink.sighting(1246013, true);
  REQUIRE(s);
  CHECK(s->host == "gpu-node-17.cluster.local");
  CHECK(s->evidence == "torchrun");
  // The block's own lines did not become other events.
  CHECK(sink.of_kind("traceback").size() == 0);
  CHECK(sink.events.size() == 2);
}

TEST_CASE("a source without host takes the torchrun summary's host", "[gpu][app_log]") {
  const std::string text =
      "E0409 00:47:21.332000 40211 torch/distributed/elastic/multiprocessing/api.py:869] failed "
      "(exitcode: -9) local_rank: 2 (pid: 40287) of binary: /opt/venv/bin/python3\n"
      "Root Cause (first observed failure):\n"
      "[0]:\n"
      "  time      : 2026-04-09_00:47:20\n"
      "  host      : gpu-node-17.cluster.local\n"
      "  rank      : 2 (local_rank: 2)\n"
      "  exitcode  : -9 (pid: 40287)\n";
  const auto sink = parse_app(text);
  for (const auto& e : sink.events) CHECK(e.host == "gpu-node-17.cluster.local");
  for (const auto& p : sink.processes) CHECK(p.host == "gpu-node-17.cluster.local");
  CHECK(sink.events.size() == 2);

  // Two agents' summaries in one output (srun over two nodes): no guess.
  const auto two = parse_app(text + "Root Cause (first observed failure):\n[0]:\n  host      : gpu-node-18\n");
  for (const auto& e : two.events)
    if (e.line == 1) CHECK(e.host.empty());
  // A source that has a host keeps it; the summary's FQDN of the same machine does not split it.
  const auto named = parse_app(text, "gpu-node-17");
  for (const auto& e : named.events) CHECK(e.host == "gpu-node-17");
}

TEST_CASE("early torchelastic summary block", "[gpu][app_log]") {
  const auto sink = parse_app(R"(***************************************
            train.py FAILED            
=======================================
Root Cause:
[0]:
  time: 2021-08-04_10:11:12
  rank: 0 (local_rank: 0)
  exitcode: 1 (pid: 5120)
  error_file: <N/A>
  msg: "Process failed with exitcode 1"
=======================================
Other Failures:
  <NO_OTHER_FAILURES>
***************************************
)");
  // exitcode 1 is no death by signal: an error log event, not signal_exit.
  CHECK(sink.of_kind("signal_exit").empty());
  const auto exits = sink.of_kind("log");
  REQUIRE(exits.size() == 1);
  CHECK(exits[0].rule == "torchrun_child_failed");
  CHECK(exits[0].severity == culprit::core::Severity::error);
  CHECK(field(exits[0], "root_cause") == "1");
  CHECK(field(exits[0], "exitcode") == "1");
  CHECK(exits[0].field("signal") == nullptr);
  CHECK(field(exits[0], "traceback") == "Process failed with exitcode 1");
  CHECK(*exits[0].pid == 5120);
  CHECK(exits[0].host.empty());
}

TEST_CASE("every pid a prefix names is a job sighting, once", "[gpu][app_log]") {
  const auto sink = parse_app(
      "(VllmWorker rank=0 pid=3317) INFO 01-30 11:53:52 model_runner.py:1115] Loading model weights took 7.5100 GB\n"
      "(VllmWorker rank=1 pid=3318) INFO 01-30 11:53:52 model_runner.py:1115] Loading model weights took 7.5100 GB\n"
      "(VllmWorker rank=1 pid=3318) INFO 01-30 11:53:53 worker.py:265] Memory profiling takes 2.1 seconds\n"
      "gpu-node-3:5501:5590 [1] NCCL INFO Channel 00/02 : 0 1\n",
      "ctx-host");
  REQUIRE(sink.processes.size() == 3);
  CHECK(sink.sighting(3317, true)->evidence == "vLLM worker prefix");
  CHECK(sink.sighting(3317, true)->host == "ctx-host");
  CHECK(sink.sighting(5501, true)->host == "gpu-node-3");
  CHECK(sink.sighting(5501, true)->evidence == "NCCL debug line");
  CHECK(sink.events.empty());  // INFO lines without signals are not events
}

TEST_CASE("NCCL WARN out of memory through the signals keeps host and pid", "[gpu][app_log]") {
  const auto sink = parse_app(
      "\n[2026-04-09 00:47:22] gpu-node-17:12345:12400 [3] include/alloc.h:103 NCCL WARN Cuda failure 'out of memory'\n");
  const auto ooms = sink.of_kind("cuda_oom");
  REQUIRE(ooms.size() == 1);
  CHECK(ooms[0].line == 2);
  CHECK(ooms[0].host == "gpu-node-17");
  CHECK(*ooms[0].pid == 12345);
  CHECK(field(ooms[0], "cuda_dev") == "3");
  CHECK(ooms[0].ts_kind == culprit::core::TsKind::wall);
  CHECK(ooms[0].rule == "test_nccl_cuda_oom");
  CHECK(sink.snapshots.empty());
}

TEST_CASE("NCCL watchdog with rank and glog prefixes", "[gpu][app_log]") {
  const auto sink = parse_app(
      "[rank3]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 3] Watchdog caught collective "
      "operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) "
      "ran for 600085 milliseconds before timing out.\n",
      "", 2025);
  const auto t = sink.of_kind("nccl_timeout");
  REQUIRE(t.size() == 1);
  CHECK(*t[0].rank == 3);
  CHECK(field(t[0], "seq") == "12");
  CHECK(field(t[0], "op") == "ALLREDUCE");
  REQUIRE(t[0].ts);
  CHECK(*t[0].ts == Approx(culprit::core::civil_to_epoch(2025, 12, 18, 20, 27, 21.426415540)));
}

TEST_CASE("error lines without a signal are kept as log events", "[gpu][app_log]") {
  const auto sink = parse_app(
      "INFO 01-30 11:53:52 model_runner.py:1115] fine\n"
      "ERROR 01-30 11:53:53 engine.py:12] Engine core initialization failed. See root cause above.\n"
      "[2024-10-01 01:17:14,772] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', '-u', "
      "'train.py', '--local_rank=1'] exits with return code = -9\n"
      "[2024-10-01 01:17:14,554] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 198906\n");
  const auto logs = sink.of_kind("log");
  REQUIRE(logs.size() == 2);
  CHECK(logs[0].line == 2);
  CHECK(logs[0].severity == culprit::core::Severity::error);
  CHECK(logs[0].rule == "app_log");
  CHECK(logs[1].line == 3);
  REQUIRE(sink.sighting(198906, true));
  CHECK(sink.sighting(198906, true)->evidence == "DeepSpeed launcher");
}

TEST_CASE("plain error lines are capped, signal events are not", "[gpu][app_log]") {
  std::string text;
  for (int i = 0; i < 20005; ++i) text += "2026-04-09 00:47:13,123 - data - ERROR - bad sample\n";
  text += "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 0 has a total capacity of 8.00 GiB of which 0 bytes is free.\n";
  culprit::test::GpuRecordingSink sink;
  culprit::core::Diagnostics diags;
  auto ctx = culprit::test::gpu_context(sink, "app_log", "h", 0, &diags);
  culprit::ingest::parse_app_log(text, ctx);
  CHECK(sink.of_kind("log").size() == 20000);
  CHECK(sink.of_kind("cuda_oom").size() == 1);
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].code == "log-events-capped");
  CHECK(diags[0].where == "test.log:20001");
}

TEST_CASE("DataLoader worker pids are job sightings", "[gpu][app_log]") {
  const auto sink = parse_app(
      "RuntimeError: DataLoader worker (pid(s) 48213, 48214) exited unexpectedly\n"
      "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).\n"
      "RuntimeError: DataLoader worker (pid 48215) is killed by signal: Killed. \n");
  CHECK(sink.sighting(48213, true));
  CHECK(sink.sighting(48214, true));
  CHECK(sink.sighting(48215, true));
  CHECK(sink.sighting(48215, true)->evidence == "DataLoader worker");
  const auto agent = parse_app("torch.distributed.elastic.multiprocessing.api.SignalException: Process 40211 got signal: 15\n");
  CHECK(agent.sighting(40211, true));
}

TEST_CASE("line numbers follow first_line and CRLF", "[gpu][app_log]") {
  culprit::test::GpuRecordingSink sink;
  auto ctx = culprit::test::gpu_context(sink, "app_log", "h");
  ctx.first_line = 40;
  culprit::ingest::parse_app_log(
      "ok\r\n[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB. GPU 1 has a "
      "total capacity of 79.14 GiB of which 3.75 MiB is free.\r\n",
      ctx);
  const auto ooms = sink.of_kind("cuda_oom");
  REQUIRE(ooms.size() == 1);
  CHECK(ooms[0].line == 41);
  CHECK(ooms[0].line_end == 41);
  CHECK(ooms[0].source_id == 1);
  REQUIRE(sink.snapshots.size() == 1);
  CHECK(sink.snapshots[0].line == 41);
  CHECK(sink.snapshots[0].gpu == 1);
}

// Python's logger.exception prints its message stamped and the traceback bare after it: the
// traceback takes the stamp of the line right before it, whether the parser read that line or
// the fast path skipped it (a routine line holding no literal, peeled only when a traceback
// opens after it), and none where that line has no stamp.
TEST_CASE("a bare traceback takes the stamp of the line before it (read or skipped)", "[gpu][app_log]") {
  const auto sink = parse_app(
      "2026-04-09 00:47:19,100 INFO worker started\n"
      "2026-04-09 00:47:22,511 INFO step 10 done\n"
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 3, in <module>\n"
      "    main()\n"
      "ValueError: bad shape\n"
      "step 11 done\n"
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 3, in <module>\n"
      "ValueError: bad shape again\n",
      "h");
  const auto tracebacks = sink.of_kind("traceback");
  REQUIRE(tracebacks.size() == 2);
  CHECK(tracebacks[0].line == 3);
  CHECK(tracebacks[0].ts_kind == culprit::core::TsKind::wall);
  CHECK(tracebacks[0].ts_raw == "2026-04-09 00:47:22,511");
  CHECK(tracebacks[1].line == 8);
  CHECK(tracebacks[1].ts_kind == culprit::core::TsKind::none);  // `step 11 done` has no stamp
}

TEST_CASE("huge lines and binary junk do not crash", "[gpu][app_log]") {
  culprit::test::GpuRecordingSink sink;
  culprit::core::Diagnostics diags;
  auto ctx = culprit::test::gpu_context(sink, "app_log", "h", 0, &diags);
  std::string big(300 * 1024, 'x');
  big += "\n";
  static constexpr char kJunk[] = "\x00\x01\xff\xfe garbage (pid=1 [rank";
  big += std::string(kJunk, sizeof kJunk - 1);
  big += "\nTraceback (most recent call last):";
  CHECK_NOTHROW(culprit::ingest::parse_app_log(big, ctx));
  REQUIRE(diags.size() == 2);
  CHECK(diags[0].code == "long-line");
  CHECK(diags[1].code == "traceback_truncated");  // the traceback ends with the text
  CHECK(sink.of_kind("traceback").size() == 1);
}

TEST_CASE("mutated fixtures: no crash, events stay inside the text", "[gpu][app_log][fuzz]") {
  std::vector<std::string> texts;
  for (const char* folder : {"app_log", "traceback", "torch_oom", "nvidia_smi"}) {
    for (const auto& f : culprit::test::fixtures_in(folder)) texts.push_back(culprit::test::read_file(f.string()));
  }
  REQUIRE(texts.size() > 20);
  std::uint64_t seed = 0x9e3779b97f4a7c15ULL;
  auto next = [&seed] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  for (int round = 0; round < 400; ++round) {
    std::string t = texts[next() % texts.size()];
    switch (next() % 4) {
      case 0: t.resize(next() % (t.size() + 1)); break;  // cut anywhere
      case 1:
        for (int k = 0; k < 20 && !t.empty(); ++k) t[next() % t.size()] = static_cast<char>(next());
        break;
      case 2: t += texts[next() % texts.size()]; break;  // two sources glued
      default: {
        const std::size_t a = next() % (t.size() + 1);
        t.insert(a, texts[next() % texts.size()].substr(0, next() % 400));
      }
    }
    const auto lines = static_cast<std::int64_t>(culprit::text::split_lines(t).size());
    for (bool smi : {false, true}) {
      culprit::test::GpuRecordingSink sink;
      auto ctx = culprit::test::gpu_context(sink, smi ? "nvidia_smi_table" : "app_log");
      if (smi) culprit::ingest::parse_nvidia_smi_table(t, ctx);
      else culprit::ingest::parse_app_log(t, ctx);
      for (const auto& e : sink.events) {
        INFO("round " << round << " kind " << e.kind << " line " << e.line);
        CHECK(e.line >= 1);
        CHECK(e.line_end >= e.line);
        CHECK(e.line_end <= lines);
      }
      for (const auto& s : sink.snapshots) CHECK((s.line >= 1 && s.line <= lines));
    }
  }
}

// A traceback's body is quoted code: only frame-scope signals (formats = ["traceback_frame"])
// read it, once per traceback; a source line that quotes an error message is not that error.
// CPython's frame format: `  File "%U", line %d, in %U`, then the source line indented.
TEST_CASE("frame-scope signals read a traceback's body once: other signals never do", "[gpu][app_log]") {
  const auto sink = parse_app(
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 97, in train\n"
      "    raise RuntimeError(\"CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 7.79 GiB total capacity)\")\n"
      "  File \"/usr/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 900, in _apply\n"
      "    module._apply(fn)\n"
      "  File \"/usr/lib/python3.10/site-packages/torch/nn/modules/module.py\", line 927, in _apply\n"
      "    param_applied = fn(param)\n"
      "RuntimeError: CUDA error: out of memory\n",
      "node-1");
  const auto first = sink.of_kind("cuda_first_use");
  REQUIRE(first.size() == 1);  // one per traceback, at its outermost such frame
  CHECK(first[0].line == 4);
  CHECK(field(first[0], "frame") == "_apply");
  // The quoted raise (line 3) is code; the exception line (8) is the one error.
  const auto ooms = sink.of_kind("cuda_oom");
  REQUIRE(ooms.size() == 1);
  CHECK(ooms[0].line == 8);
}

// vLLM V0's API server (api_server.py, 0.6-0.8: `logger.info("Started engine process with PID %d",
// engine_pid)`) records the engine process it spawned: a job sighting of that pid.
TEST_CASE("vLLM V0's API server record of its engine process is a job sighting", "[gpu][app_log]") {
  const auto sink = parse_app("INFO 11-18 18:07:17 api_server.py:194] Started engine process with PID 76\n", "srv");
  REQUIRE(sink.sighting(76, true));
  CHECK(sink.sighting(76, true)->evidence == culprit::core::job_evidence::kVllmEngineProcess);
}

// Issue 37, finding 6: c10's glog stamp (`[E515 …]`, no year) after a dated line of the same log
// takes that line's year (Dec 31 → Jan 1 rolls over), and says which line gave it.
TEST_CASE("app log: a year-less stamp takes the year of the log's own dated line", "[gpu][app_log]") {
  const auto sink = parse_app(
      "[2024-05-15 10:20:00,001] [INFO] [rank0] step 1200 loss 1.87\n"
      "[rank0]:[E515 10:32:14.183712 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
      "timeout: WorkNCCL(SeqNum=88213, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran "
      "for 600047 milliseconds before timing out.\n"
      "[2024-12-31 23:59:58,001] [INFO] [rank0] step 9000 loss 1.20\n"
      "[rank0]:[E101 00:00:03.000001 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
      "timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600002 "
      "milliseconds before timing out.\n");
  const auto t = sink.of_kind("nccl_timeout");
  REQUIRE(t.size() == 2);
  CHECK(t[0].ts_kind == culprit::core::TsKind::wall_no_year);
  REQUIRE(t[0].ts);
  CHECK(culprit::core::format_iso(*t[0].ts) == "2024-05-15T10:32:14.184Z");
  CHECK(field(t[0], "year_from_line") == "1");
  REQUIRE(t[1].ts);
  CHECK(culprit::core::format_iso(*t[1].ts) == "2025-01-01T00:00:03.000Z");
  CHECK(field(t[1], "year_from_line") == "3");
  // No dated line before it: no year (clock alignment decides).
  const auto alone = parse_app(
      "[rank0]:[E515 10:32:14.183712 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation "
      "timeout: WorkNCCL(SeqNum=1, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600047 "
      "milliseconds before timing out.\n");
  REQUIRE(alone.of_kind("nccl_timeout").size() == 1);
  CHECK_FALSE(alone.of_kind("nccl_timeout")[0].ts);
}

// Issue 37, findings 6 and 16: the first stamped line after an unstamped `[rank12]:` traceback
// that is no event itself is kept as a clock mark (kind log, rule clock_mark); the stamped lines
// before it and far from any unstamped failure are not.
TEST_CASE("app log: stamped lines around an unstamped failure become clock marks", "[gpu][app_log]") {
  std::string text = "[2024-05-15 10:10:00,001] [INFO] [rank8] step 1100 loss 1.90\n";
  for (int i = 0; i < 60; ++i) text += "[2024-05-15 10:1" + std::to_string(i / 10 % 6) + ":00,001] [INFO] [rank8] step\n";
  text +=
      "[rank12]: Traceback (most recent call last):\n"
      "[rank12]:   File \"/workspace/train.py\", line 187, in main\n"
      "[rank12]:     loss = model(batch).loss\n"
      "[rank12]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB. GPU 4 has a total capacity of "
      "79.14 GiB of which 2.11 GiB is free. Including non-PyTorch memory, this process has 77.00 GiB memory in use. Of "
      "the allocated memory 71.10 GiB is allocated by PyTorch, and 4.77 GiB is reserved by PyTorch but unallocated.\n"
      "[2024-05-15 10:20:40,551] [INFO] [rank8] waiting on barrier\n"
      "[2024-05-15 10:20:41,551] [INFO] [rank8] waiting on barrier\n";
  const auto sink = parse_app(text);
  std::vector<std::int64_t> marks;
  for (const auto& e : sink.events)
    if (e.rule == "clock_mark") {
      CHECK(e.kind == "log");
      CHECK(e.ts);
      marks.push_back(e.line);
    }
  CHECK(marks == std::vector<std::int64_t>{66});  // the first stamped line after the traceback
  const auto oom = sink.of_kind("cuda_oom");
  REQUIRE(oom.size() == 1);
  CHECK_FALSE(oom[0].ts);  // its own line has no stamp; clock alignment dates it from the marks
}

// Issue 37, finding 16: Ray's logging header puts a tab after the stamp
// (ray_constants.LOGGER_FORMAT `%(asctime)s\t%(levelname)s %(filename)s:%(lineno)s -- %(message)s`).
TEST_CASE("app log: Ray's tab-separated header is a stamp, a level and a logger", "[gpu][app_log]") {
  const auto sink = parse_app(
      "2024-05-15 10:22:31,112\tERROR worker.py:406 -- Unhandled error (suppress with "
      "'RAY_IGNORE_UNHANDLED_ERRORS=1'): ray::shard() (pid=40211, ip=10.0.3.21)\n"
      "Traceback (most recent call last):\n"
      "  File \"/home/ray/anaconda3/lib/python3.10/site-packages/ray/_private/worker.py\", line 2623, in get\n"
      "    raise value\n"
      "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\n");
  const auto tb = sink.of_kind("traceback");
  REQUIRE(tb.size() == 1);
  REQUIRE(tb[0].ts);
  CHECK(culprit::core::format_iso(*tb[0].ts) == "2024-05-15T10:22:31.112Z");
  // A tab after a stamp but no level word: not a header.
  const auto plain = parse_app("2024-05-15 10:22:31,112\tsomething happened: CUDA out of memory\n");
  for (const auto& e : plain.events) CHECK_FALSE(e.ts);
}
