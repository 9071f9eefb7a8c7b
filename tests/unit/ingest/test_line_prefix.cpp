// Prefix peeling: each layer alone, nested layers, and lines that must NOT be peeled.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "culprit/core/time.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/line_prefix.hpp"

using culprit::core::Severity;
using culprit::core::TsKind;
using culprit::ingest::apply_peeled;
using culprit::ingest::peel_line;

TEST_CASE("vLLM worker prefix with real and pasted ANSI colour", "[gpu][line_prefix]") {
  const auto real = peel_line(
      "\x1b[1;36m(VllmWorker rank=1 pid=3318)\x1b[0;0m ERROR 01-30 11:53:52 "
      "multiproc_executor.py:374] ValueError: bad");
  CHECK(real.message == "ValueError: bad");
  REQUIRE(real.pid);
  CHECK(*real.pid == 3318);
  REQUIRE(real.rank);
  CHECK(*real.rank == 1);
  CHECK(real.severity == Severity::error);
  CHECK(real.time.kind == TsKind::wall_no_year);
  CHECK(real.time.raw == "01-30 11:53:52");
  CHECK(real.logger == "multiproc_executor.py:374");
  CHECK(real.pid_evidence == "vLLM worker prefix");

  const auto pasted = peel_line(
      "^[[1;36m(VllmWorker rank=1 pid=3318)^[[0;0m ERROR 01-30 11:53:52 "
      "multiproc_executor.py:374] ValueError: bad");
  CHECK(pasted.message == real.message);
  CHECK(pasted.key() == real.key());
}

TEST_CASE("vLLM new header, V1 process names", "[gpu][line_prefix]") {
  auto p = peel_line("(EngineCore_DP0 pid=1187) ERROR 08-19 04:02:11 [core.py:1346] EngineCore failed to start.");
  CHECK(p.message == "EngineCore failed to start.");
  CHECK(*p.pid == 1187);
  CHECK(*p.dp_rank == 0);
  CHECK(p.pid_evidence == "vLLM engine-core prefix");
  CHECK(p.logger == "core.py:1346");

  p = peel_line("(Worker_PP0_TP1 pid=3534) INFO 07-11 06:18:32 [kv_cache_utils.py:646] GPU KV cache size: 114,432 tokens");
  CHECK(p.message == "GPU KV cache size: 114,432 tokens");
  CHECK(*p.tp_rank == 1);
  CHECK(*p.pp_rank == 0);
  CHECK(p.proc_name == "Worker_PP0_TP1");
  CHECK_FALSE(p.effective_rank());  // TP rank alone is only the rank without PP/DP

  p = peel_line("(Worker_TP3 pid=3536) WARNING 10-11 22:28:17 [v1/worker/gpu_model_runner.py:2111] x");
  CHECK(*p.effective_rank() == 3);
  CHECK(p.severity == Severity::warning);
  CHECK(p.message == "x");
}

TEST_CASE("Ray worker prefixes and the repeat suffix", "[gpu][line_prefix]") {
  auto p = peel_line("\x1b[36m(RayWorkerWrapper pid=2207, ip=10.0.0.2)\x1b[0m INFO 01-30 11:53:52 "
                     "model_runner.py:1115] Loading model weights took 7.5100 GB "
                     "[repeated 7x across cluster]");
  CHECK(p.message == "Loading model weights took 7.5100 GB");
  CHECK(*p.pid == 2207);
  CHECK(p.ip == "10.0.0.2");
  CHECK(p.repeated == 7);
  CHECK(p.pid_evidence == "Ray worker prefix");

  p = peel_line("(pid=12345) Task failed");
  CHECK(*p.pid == 12345);
  CHECK(p.message == "Task failed");

  p = peel_line("(raylet) [2026-04-09 00:47:13,000 E 77 77] worker_pool.cc:581: Some workers died");
  CHECK_FALSE(p.pid);
  CHECK(p.proc_name == "raylet");
}

TEST_CASE("docker stamp, srun label, rank and glog layers nest", "[gpu][line_prefix]") {
  auto p = peel_line("2026-04-09T00:47:13.123456789Z 3: [rank3]:[E0409 00:47:13.207114332 "
                     "ProcessGroupNCCL.cpp:1895] [PG ID 0 PG GUID 0(default_pg) Rank 3] Process "
                     "group watchdog thread terminated with exception");
  CHECK(p.message == "[PG ID 0 PG GUID 0(default_pg) Rank 3] Process group watchdog thread "
                     "terminated with exception");
  CHECK(*p.rank == 3);
  CHECK(*p.srun_task == 3);  // a srun label right after a CI / docker stamp
  CHECK(p.time.kind == TsKind::wall);  // the docker stamp (with a year) beats glog's MMDD
  CHECK(p.time.raw == "2026-04-09T00:47:13.123456789Z");
  CHECK(p.severity == Severity::error);

  p = peel_line("3: [rank3]: torch.OutOfMemoryError: CUDA out of memory.");
  CHECK(*p.srun_task == 3);
  CHECK(*p.rank == 3);
  CHECK(p.message == "torch.OutOfMemoryError: CUDA out of memory.");

  p = peel_line("(VllmWorker rank=1 pid=3318) 3: x");
  CHECK_FALSE(p.srun_task);  // not the outermost layer: message text
  CHECK(p.message == "3: x");

  p = peel_line("[default1]:  File \"/app/train.py\", line 12, in <module>");
  CHECK(*p.local_rank == 1);
  CHECK(p.message == " File \"/app/train.py\", line 12, in <module>");
}

TEST_CASE("rank prefix keeps the traceback indentation", "[gpu][line_prefix]") {
  auto p = peel_line("[rank2]:   File \"/app/train.py\", line 88, in train_step");
  CHECK(p.message == "  File \"/app/train.py\", line 88, in train_step");
  p = peel_line("ERROR 06-05 06:18:13 [multiproc_executor.py:470]     loss.backward()");
  CHECK(p.message == "    loss.backward()");
}

TEST_CASE("torch elastic glog agent line gives the agent pid", "[gpu][line_prefix]") {
  auto p = peel_line("W0813 22:08:39.776000 2585 torch/distributed/elastic/multiprocessing/api.py:898] "
                     "Sending process 2711 closing signal SIGTERM");
  CHECK(p.message == "Sending process 2711 closing signal SIGTERM");
  CHECK(*p.pid == 2585);
  CHECK(p.pid_evidence == "torchrun agent log");
  CHECK(p.severity == Severity::warning);
  CHECK(p.time.kind == TsKind::wall_no_year);
  CHECK(p.time.month == 8);
  CHECK(p.time.day == 13);
  CHECK(p.time.seconds_of_day == Approx(22 * 3600 + 8 * 60 + 39.776));
}

TEST_CASE("old c10 glog without time", "[gpu][line_prefix]") {
  auto p = peel_line("[E ProcessGroupNCCL.cpp:474] [Rank 0] Watchdog caught collective operation timeout");
  CHECK(p.message == "[Rank 0] Watchdog caught collective operation timeout");
  CHECK(p.severity == Severity::error);
  CHECK(p.time.kind == TsKind::none);
}

TEST_CASE("NCCL debug lines, plain, stamped and behind pdsh", "[gpu][line_prefix]") {
  auto p = peel_line("gpu-node-17:12345:12400 [3] NCCL INFO comm 0x55 rank 3 nranks 8");
  CHECK(p.host == "gpu-node-17");
  CHECK(*p.pid == 12345);
  CHECK(*p.cuda_dev == 3);
  CHECK(p.message == "NCCL INFO comm 0x55 rank 3 nranks 8");
  CHECK(p.severity == Severity::info);

  p = peel_line("[2026-04-09 00:47:22] gpu-node-17:12345:12400 [3] include/alloc.h:103 NCCL WARN "
                "Cuda failure 'out of memory'");
  CHECK(p.message == "include/alloc.h:103 NCCL WARN Cuda failure 'out of memory'");
  CHECK(p.severity == Severity::warning);
  CHECK(p.time.kind == TsKind::wall);
  CHECK(*p.pid == 12345);

  p = peel_line("gpu-node-18: gpu-node-18:9911:9911 [0] transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event");
  CHECK(p.host == "gpu-node-18");
  CHECK(*p.pid == 9911);
  CHECK(p.message == "transport/net_ib.cc:93 NCCL WARN NET/IB : Got async event");
}

TEST_CASE("SGLang headers in every date style", "[gpu][line_prefix]") {
  auto p = peel_line("[2026-04-09 00:47:13 TP1] Load weight begin. avail mem=78.53 GB");
  CHECK(p.message == "Load weight begin. avail mem=78.53 GB");
  CHECK(*p.tp_rank == 1);
  CHECK(*p.effective_rank() == 1);
  CHECK(p.time.kind == TsKind::wall);

  p = peel_line("[2026-04-09 00:47:13 DP1 TP3] Scheduler hit an exception");
  CHECK(*p.dp_rank == 1);
  CHECK(*p.tp_rank == 3);
  CHECK_FALSE(p.effective_rank());

  p = peel_line("[00:47:13] Received sigquit from a child process. It usually means the child failed.");
  CHECK(p.time.kind == TsKind::time_of_day);
  CHECK(p.time.seconds_of_day == Approx(47 * 60 + 13));
  CHECK(p.key().empty());

  p = peel_line("[04-09 00:47:13 TP0] Memory pool end. avail mem=10.2 GB");
  CHECK(p.time.kind == TsKind::wall_no_year);
  CHECK(*p.tp_rank == 0);

  p = peel_line("[2026-04-09 00:47:13] INFO:     127.0.0.1:53456 - \"POST /generate HTTP/1.1\" 200 OK");
  CHECK(p.message == "127.0.0.1:53456 - \"POST /generate HTTP/1.1\" 200 OK");
  CHECK(p.severity == Severity::info);
}

TEST_CASE("Python logging and DeepSpeed headers", "[gpu][line_prefix]") {
  auto p = peel_line("2026-04-09 00:47:13,123 - train - ERROR - step 10 failed");
  CHECK(p.message == "step 10 failed");
  CHECK(p.severity == Severity::error);
  CHECK(p.logger == "train");
  CHECK(p.time.kind == TsKind::wall);

  p = peel_line("ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 "
                "(pid: 1234) of binary: /usr/bin/python3");
  CHECK(p.message == "failed (exitcode: -9) local_rank: 0 (pid: 1234) of binary: /usr/bin/python3");
  CHECK(p.logger == "torch.distributed.elastic.multiprocessing.api");
  CHECK(p.severity == Severity::error);
  CHECK_FALSE(p.pid);

  p = peel_line("[2024-10-01 01:17:14,772] [ERROR] [launch.py:325:sigkill_handler] ['/usr/bin/python', "
                "'-u', 'train.py', '--local_rank=1'] exits with return code = -9");
  CHECK(p.message == "['/usr/bin/python', '-u', 'train.py', '--local_rank=1'] exits with return code = -9");
  CHECK(p.severity == Severity::error);
  CHECK(p.logger == "launch.py:325:sigkill_handler");
  CHECK(p.time.raw == "2024-10-01 01:17:14,772");
}

TEST_CASE("messages that look like prefixes stay whole", "[gpu][line_prefix]") {
  for (const char* line : {"RuntimeError: CUDA error: out of memory",
                           "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
                           "  File \"/x.py\", line 1, in <module>", "[Rank 0] Watchdog caught",
                           "(see above) for details", "Traceback (most recent call last):",
                           "12:34:56 is not a srun label", "exitcode  : -9 (pid: 1246013)"}) {
    const auto p = peel_line(line);
    INFO(line);
    CHECK(p.message == line);
    CHECK(p.layers == 0);
  }
}

TEST_CASE("CR and pasted ^M are removed", "[gpu][line_prefix]") {
  CHECK(peel_line("[rank0]: hello\r").message == "hello");
  CHECK(peel_line("[rank0]: hello^M").message == "hello");
}

TEST_CASE("apply_peeled fills pid, rank, host and time", "[gpu][line_prefix]") {
  culprit::core::Event e;
  e.host = "from-ctx";
  apply_peeled(peel_line("2026-04-09T00:47:13.5Z [rank4]: boom"), e, 0);
  CHECK(*e.rank == 4);
  CHECK(e.host == "from-ctx");
  CHECK(e.ts_kind == TsKind::wall);
  CHECK(*e.ts == Approx(culprit::core::civil_to_epoch(2026, 4, 9, 0, 47, 13.5)));

  culprit::core::Event g;
  apply_peeled(peel_line("E0409 00:47:13.000000 40211 torch/distributed/elastic/agent/server/api.py:793] x"), g, 0);
  CHECK(g.ts_kind == TsKind::wall_no_year);
  CHECK_FALSE(g.ts);
  // Leap-year day count (core::Event::ts_value contract): Apr 9 is day 31+29+31+8.
  CHECK(*g.ts_value == Approx((31 + 29 + 31 + 8) * 86400.0 + 47 * 60 + 13));
  CHECK(*g.pid == 40211);

  culprit::core::Event h;
  apply_peeled(peel_line("INFO 04-09 00:47:13 model_runner.py:1115] x"), h, 2026);
  REQUIRE(h.ts);
  CHECK(*h.ts == Approx(culprit::core::civil_to_epoch(2026, 4, 9, 0, 47, 13)));

  culprit::core::Event s;
  apply_peeled(peel_line("[2026-04-09 00:47:13 TP1] x"), s, 0);
  CHECK(s.field_or("tp_rank") == "1");
  CHECK(*s.rank == 1);

  culprit::core::Event n;
  apply_peeled(peel_line("gpu-node-17:12345:12400 [3] NCCL INFO x"), n, 0);
  CHECK(n.host == "gpu-node-17");
  CHECK(n.field_or("cuda_dev") == "3");

  culprit::core::Event z;
  apply_peeled(peel_line("2026-04-09T02:47:13+02:00 x"), z, 0);
  CHECK(*z.ts == Approx(culprit::core::civil_to_epoch(2026, 4, 9, 0, 47, 13)));
}

TEST_CASE("peeling survives junk", "[gpu][line_prefix]") {
  std::string junk = "[rank";
  junk += std::string(5000, '9');
  junk += "\xff\xfe(pid=";
  CHECK_NOTHROW(peel_line(junk));
  CHECK_NOTHROW(peel_line("(pid=99999999999999999999999) x"));
  CHECK_NOTHROW(peel_line("["));
  CHECK_NOTHROW(peel_line("(VllmWorker rank=1 pid=3318"));
  CHECK(peel_line("").message.empty());
}

TEST_CASE("TensorFlow / XLA, transformers and absl headers", "[gpu][line_prefix]") {
  auto p = peel_line("2024-01-30 11:53:52.123456: W external/xla/xla/tsl/framework/bfc_allocator.cc:485] "
                     "Allocator (GPU_0_bfc) ran out of memory trying to allocate 16.00GiB (rounded to "
                     "17179869184)requested by op");
  CHECK(p.message.substr(0, 24) == "Allocator (GPU_0_bfc) ra");
  CHECK(p.severity == Severity::warning);
  CHECK(p.logger == "external/xla/xla/tsl/framework/bfc_allocator.cc:485");
  CHECK(p.time.kind == TsKind::wall);

  p = peel_line("[INFO|trainer.py:2134] 2024-01-30 11:53:52,123 >> ***** Running training *****");
  CHECK(p.message == "***** Running training *****");
  CHECK(p.severity == Severity::info);
  CHECK(p.logger == "trainer.py:2134");
  CHECK(p.time.raw == "2024-01-30 11:53:52,123");

  p = peel_line("01/30/2024 11:53:52 - ERROR - __main__ - step failed");
  CHECK(p.message == "step failed");
  CHECK(p.severity == Severity::error);
  CHECK(p.time.kind == TsKind::wall);
  CHECK(p.time.year == 2024);
  CHECK(peel_line("01/30/2024 was a Tuesday").layers == 0);

  // absl / glog print a thread id: no pid from it (torch's formatter prints the pid).
  p = peel_line("I0130 11:53:52.123456 140234567 xla_bridge.py:884] Unable to initialize backend 'tpu'");
  CHECK(p.message == "Unable to initialize backend 'tpu'");
  CHECK_FALSE(p.pid);
  CHECK(p.severity == Severity::info);
}

TEST_CASE("pdsh labels only for hosts the text uses as labels", "[gpu][line_prefix]") {
  const std::string text =
      "worker-0: [2024-10-01 01:17:14,554] [INFO] [launch.py:319:sigkill_handler] Killing subprocess 198905\n"
      "worker-1: [rank8]: Traceback (most recent call last):\n"
      "worker-0: step 10\nworker-1: step 10\nworker-0: step 11\nworker-1: step 11\n"
      "step-12: not a host\n";
  const auto hosts = culprit::ingest::pdsh_hosts(culprit::text::split_lines(text));
  REQUIRE(hosts.size() == 2);
  culprit::ingest::PeelOptions options;
  options.pdsh_hosts = &hosts;
  auto p = peel_line("worker-1: [rank8]: Traceback (most recent call last):", options);
  CHECK(p.host == "worker-1");
  CHECK(*p.rank == 8);
  CHECK(p.message == "Traceback (most recent call last):");
  CHECK(peel_line("step-12: not a host", options).layers == 0);
  CHECK(peel_line("worker-1: [rank8]: x").host.empty());  // no options: no guess
  CHECK(peel_line("error: x", options).layers == 0);
  // A label on one line in a hundred is message text.
  std::string sparse = "step-10: loss 1.0\nstep-10: loss 1.0\nstep-10: loss 1.0\n";
  for (int i = 0; i < 100; ++i) sparse += "plain line\n";
  CHECK(culprit::ingest::pdsh_hosts(culprit::text::split_lines(sparse)).empty());
  // A label, by its bytes: lower case with a digit, hyphen or dot; not all digits (srun's); not
  // opening or ending with a hyphen or dot; at most 64 bytes.
  const std::string longest = std::string(63, 'a') + "1", too_long = std::string(64, 'a') + "1";
  std::string labels;
  for (int i = 0; i < 5; ++i)
    labels += "node-7: a\n1234: srun's label\nworker: no mark\nnode-: a hyphen last\n.node1: a dot first\n" +
              longest + ": at the bound\n" + too_long + ": past it\ngpu.local: dotted\n";
  const std::set<std::string, std::less<>> expected{"gpu.local", longest, "node-7"};
  CHECK(culprit::ingest::pdsh_hosts(culprit::text::split_lines(labels)) == expected);
}

TEST_CASE("kubectl --prefix names the pod", "[gpu][line_prefix]") {
  auto p = peel_line("[pod/trainer-worker-0/pytorch] [rank0]: torch.OutOfMemoryError: CUDA out of memory.");
  CHECK(p.pod == "trainer-worker-0/pytorch");
  CHECK(*p.rank == 0);
  CHECK(p.message == "torch.OutOfMemoryError: CUDA out of memory.");
  CHECK(p.key() != peel_line("[pod/trainer-worker-1/pytorch] [rank0]: x").key());
}

TEST_CASE("logfmt stamp and level (Go slog: Ollama, containerd)", "[gpu][line_prefix]") {
  const auto p = peel_line(
      "time=2024-05-01T10:00:09.789Z level=ERROR source=sched.go:443 msg=\"error loading llama server\" "
      "error=\"llama runner process has terminated: signal: killed\"");
  CHECK(p.time.kind == TsKind::wall);
  CHECK(p.time.raw == "2024-05-01T10:00:09.789Z");
  CHECK(p.severity == Severity::error);
  CHECK(p.message == "error loading llama server error=\"llama runner process has terminated: signal: killed\"");
  CHECK(p.logger == "sched.go:443");

  const auto q = peel_line("time=\"2024-05-01T10:00:09+02:00\" level=warning msg=\"cleaning up\"");
  CHECK(q.time.kind == TsKind::wall);
  CHECK(q.severity == Severity::warning);
  CHECK(q.message == "cleaning up");

  // Not logfmt: a key that merely starts like one, or no stamp after it.
  CHECK(peel_line("timeout=30 level=ERROR x").time.kind == TsKind::none);
  CHECK(peel_line("time=soon level=ERROR x").message == "time=soon level=ERROR x");
}
