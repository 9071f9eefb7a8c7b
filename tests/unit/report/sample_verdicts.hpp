// Hand-built verdicts for the report tests: a CUDA OOM caused by a foreign vLLM engine on a
// unified-memory GB10 (with echoes on another host), a host kernel OOM whose victim is not the
// hog, and an `unknown` verdict where nothing was found. Log text is byte-for-byte realistic.
#pragma once

#include "culprit/core/time.hpp"
#include "culprit/diagnose/finding.hpp"
#include "unit/test_units.hpp"

namespace culprit::report::test {

namespace d = culprit::diagnose;

using culprit::test::kGiB;
using culprit::test::kMiB;

// 2026-04-09 00:47:13.412 UTC
inline double oom_ts() { return core::civil_to_epoch(2026, 4, 9, 0, 47, 13.412); }

inline d::TimelineEvent event(std::int64_t id, std::optional<double> ts, const char* host, const char* kind,
                              const char* severity, std::optional<std::int64_t> pid, const char* source,
                              std::int64_t line, const char* message, const char* mark = "other") {
  d::TimelineEvent e;
  e.event_id = id;
  e.ts = ts;
  e.ts_kind = ts ? "wall" : "none";
  e.host = host;
  e.kind = kind;
  e.severity = severity;
  e.pid = pid;
  e.source = source;
  e.line = line;
  e.summary = message;
  e.mark = mark;
  return e;
}

/// What add_report_data would read for the CUDA OOM: the events of both hosts, their clocks,
/// and spark-b's GPU 0 seen by three nvidia-smi tables (unified memory: no used/total).
inline void add_cuda_oom_report_data(d::Verdict& v) {
  const double t = oom_ts();
  auto& data = v.data;
  data.timeline = {
      event(2, t - 140.3, "spark-b", "startup_mem_check", "info", 51877, "spark-b/train-rank0.log", 210,
            "Memory profiling takes 4.12 seconds; the current vLLM instance can use total_gpu_memory (119.70GiB) x "
            "gpu_memory_utilization (0.30) = 35.91GiB"),
      event(9, t - 2.1, "spark-a", "nccl_init", "info", 70112, "spark-a/train-rank1.log", 1902,
            "NCCL INFO comm 0x5581c3d0 rank 1 nRanks 2 nNodes 2 localRanks 1 localRank 0 MNNVL 0"),
      event(17, t, "spark-b", "cuda_oom", "error", 51877, "spark-b/train-rank0.log", 1184,
            "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity "
            "of 119.70 GiB of which 1.20 GiB is free.", "root"),
      event(18, t + 0.4, "spark-b", "traceback", "error", 51877, "spark-b/train-rank0.log", 1150,
            "Traceback (most recent call last):"),
      event(21, t + 1.9, "spark-b", "signal_exit", "error", 51860, "spark-b/torchrun.log", 88,
            "torch.distributed.elastic.multiprocessing.api:failed (exitcode: 1) local_rank: 0 (pid: 51877) of "
            "binary: /usr/bin/python3"),
      event(40, t + 600.2, "spark-a", "nccl_timeout", "error", 70112, "spark-a/train-rank1.log", 2210,
            "[Rank 1] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, "
            "NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600085 milliseconds before timing out.",
            "echo"),
      event(44, std::nullopt, "spark-b", "xid", "warning", std::nullopt, "spark-b/dmesg.txt", 3,
            "NVRM: Xid (PCI:000f:01:00): 31, pid=51877, name=python3, Ch 00000008"),
  };
  data.timeline.back().ts_kind = "boot";
  data.timeline.back().ts_value = 93.118204;
  data.timeline.back().ts_raw = "[   93.118204]";
  data.timeline[2].rank = 0;
  data.timeline[5].rank = 1;
  data.timeline_total = static_cast<std::int64_t>(data.timeline.size());

  d::HostClock a;
  a.host = "spark-a";
  a.method = "wall clock stamps (UTC assumed)";
  a.confidence = "medium";
  d::HostClock b;
  b.host = "spark-b";
  b.method = "wall clock stamps (UTC assumed)";
  b.confidence = "medium";
  b.unified_memory = true;
  data.hosts = {a, b};

  d::GpuSeries gpu;
  gpu.host = "spark-b";
  gpu.gpu = 0;
  gpu.model = "NVIDIA GB10";
  gpu.unified = true;
  gpu.pool_total = 119LL * kGiB + 717 * kMiB;
  auto sample = [&](double ts, std::int64_t line, std::int64_t job_bytes) {
    d::GpuSample s;
    s.ts = ts;
    s.source = "spark-b/nvidia-smi.txt";
    s.line = line;
    s.processes.push_back({48211, "VLLM::EngineCore", "foreign", 84 * kGiB});
    if (job_bytes) s.processes.push_back({51877, "python3", "job", job_bytes});
    s.processes.push_back({3094, "/usr/lib/xorg/Xorg", "unknown", 43 * kMiB});
    return s;
  };
  gpu.samples = {sample(t - 300, 19, 0), sample(t - 60, 44, 24 * kGiB), sample(t + 9, 69, 0)};
  data.gpus = {gpu};
}

inline d::Verdict cuda_oom_foreign() {
  d::Verdict v;
  v.verdict = d::verdict::kCudaOom;
  v.confidence = d::Confidence::high;
  v.summary =
      "Rank 0 on spark-b failed to allocate 2.00 GiB on GPU 0: only 1.20 GiB was free because "
      "pid 48211 (VLLM::EngineCore, not part of this job) held 84.00 GiB.";
  d::ProcessRef culprit;
  culprit.host = "spark-b";
  culprit.pid = 48211;
  culprit.name = "VLLM::EngineCore";
  culprit.role = "foreign";
  culprit.why = "vLLM server in container vllm-embeddings, up 2 days; not named by any job log";
  culprit.container = "vllm-embeddings";
  v.culprit = culprit;

  d::Budget b;
  b.host = "spark-b";
  b.gpu = 0;
  b.unified = true;
  b.total = 119LL * kGiB + 717 * kMiB;  // 119.70 GiB
  b.free = 1228LL * kMiB + 819 * 1024;   // ~1.20 GiB
  b.requested = 2 * kGiB;
  b.shortfall = *b.requested - *b.free;
  b.job = 30 * kGiB;
  b.foreign = 84 * kGiB;
  b.unattributed = 0;
  b.unexplained = *b.total - *b.free - *b.job - *b.foreign;
  b.torch_allocated = 28 * kGiB + 102 * kMiB;
  b.torch_reserved = 29 * kGiB + 225 * kMiB;
  b.entries = {
      {"job pid 51877 (python3)", "job", 51877, 30 * kGiB},
      {"foreign pid 48211 (VLLM::EngineCore)", "foreign", 48211, 84 * kGiB},
  };
  b.arithmetic = {
      "119.70 GiB total = 1.20 GiB free + 30.00 GiB job + 84.00 GiB foreign + 4.50 GiB unexplained",
      "shortfall = 2.00 GiB requested - 1.20 GiB free = 819.20 MiB; foreign 84.00 GiB covers it",
  };
  v.budget = b;

  d::Evidence oom;
  oom.source = "spark-b/train-rank0.log";
  oom.line = 1184;
  oom.host = "spark-b";
  oom.ts = oom_ts();
  oom.text =
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total "
      "capacity of 119.70 GiB of which 1.20 GiB is free. Process 48211 has 84.00 GiB memory in use. "
      "Including non-PyTorch memory, this process has 30.00 GiB memory in use. Of the allocated "
      "memory 28.10 GiB is allocated by PyTorch, and 1.12 GiB is reserved by PyTorch but "
      "unallocated. If reserved but unallocated memory is large try setting "
      "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation "
      "for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)";
  oom.event_id = 17;
  d::Evidence smi;
  smi.source = "spark-b/nvidia-smi.txt";
  smi.line = 19;
  smi.host = "spark-b";
  smi.text = "|    0   N/A  N/A           48211      C   VLLM::EngineCore                         N/A      |";
  smi.event_id = 3;
  v.evidence = {oom, smi};

  d::Finding root;
  root.rule = "cuda_oom_foreign_holder";
  root.verdict = d::verdict::kCudaOom;
  root.title = "CUDA out of memory while a foreign process held the GPU";
  root.confidence = d::Confidence::high;
  root.host = "spark-b";
  root.ts = oom_ts();
  root.summary = "rank 0 could not allocate 2.00 GiB; pid 48211 VLLM::EngineCore held 84.00 GiB";
  root.advice = "Stop the vLLM server in container vllm-embeddings or give it a smaller --gpu-memory-utilization.";
  root.culprit = culprit;
  root.evidence = {oom, smi};
  root.event_id = 17;
  root.priority = 100;
  v.root = root;

  d::Finding echo;
  echo.rule = "nccl_watchdog_timeout";
  echo.verdict = d::verdict::kNotOom;
  echo.title = "NCCL watchdog timeout (peer died)";
  echo.confidence = d::Confidence::medium;
  echo.host = "spark-a";
  echo.ts = oom_ts() + 600.2;
  echo.summary = "rank 1 timed out in ALLREDUCE after 600085 ms waiting for rank 0";
  echo.echo = true;
  echo.event_id = 40;
  d::Evidence nccl;
  nccl.source = "spark-a/train-rank1.log";
  nccl.line = 2210;
  nccl.host = "spark-a";
  nccl.ts = echo.ts;
  nccl.text =
      "[rank1]:[E409 00:57:13.614233187 ProcessGroupNCCL.cpp:629] [Rank 1] Watchdog caught collective "
      "operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, "
      "Timeout(ms)=600000) ran for 600085 milliseconds before timing out.";
  echo.evidence = {nccl};
  v.echoes = {echo};
  v.findings = {root, echo};
  v.advice = {root.advice, "Check `nvidia-smi` before starting a job on a shared GPU."};
  v.ruled_out = {"host kernel OOM: no oom-kill line on spark-b between 00:40 and 00:50",
                 "the job itself: 30.00 GiB held by the job is less than its usual 31 GiB"};
  v.sources = {
      {"spark-b/train-rank0.log", "spark-b", "app_log", {"app_log"}, "wall", "wall-clock stamps", 1190, 183402, "folder name"},
      {"spark-b/nvidia-smi.txt", "spark-b", "nvidia_smi_table", {"nvidia_smi_table"}, "none", "wall-clock stamps", 24, 2533,
       "folder name"},
      {"spark-a/train-rank1.log", "spark-a", "app_log", {"app_log"}, "wall", "wall-clock stamps", 2240, 301777, "folder name"},
  };
  v.skipped = {"spark-b/core.48211: binary file"};
  add_cuda_oom_report_data(v);
  return v;
}

inline d::Verdict kernel_oom_victim_not_hog() {
  d::Verdict v;
  v.verdict = d::verdict::kKernelOom;
  v.confidence = d::Confidence::high;
  v.summary =
      "The kernel OOM killer on node-3 killed pid 5151 (postgres), but pid 4242 (python3, the "
      "training job's data loader) held 58.2 GiB of the 62.7 GiB host memory.";
  d::ProcessRef hog;
  hog.host = "node-3";
  hog.pid = 4242;
  hog.name = "python3";
  hog.role = "job";
  hog.why = "named in torchrun's worker table (local_rank 0)";
  v.culprit = hog;
  d::ProcessRef victim;
  victim.host = "node-3";
  victim.pid = 5151;
  victim.name = "postgres";
  v.victim = victim;
  d::Evidence kill;
  kill.source = "node-3/kern.log";
  kill.line = 8812;
  kill.host = "node-3";
  kill.ts = core::civil_to_epoch(2026, 3, 2, 14, 5, 9.0);
  kill.text =
      "Out of memory: Killed process 5151 (postgres) total-vm:9476316kB, anon-rss:6845824kB, "
      "file-rss:444kB, shmem-rss:0kB, UID:113 pgtables:13460kB oom_score_adj:0";
  d::Evidence table;
  table.source = "node-3/kern.log";
  table.line = 8790;
  table.host = "node-3";
  table.ts = kill.ts;
  table.text =
      "[  pid  ]   uid  tgid total_vm      rss rss_anon rss_file rss_shmem pgtables_bytes swapents "
      "oom_score_adj name\n"
      "[   4242]  1000  4242 16090001 15257000 15256000     1000         0 123000000        0             "
      "0 python3\n"
      "[   5151]   113  5151  2369079  1711567  1711456      111         0  13783040        0             "
      "0 postgres\n";
  v.evidence = {kill, table};
  d::Finding root;
  root.rule = "kernel_oom_global";
  root.verdict = d::verdict::kKernelOom;
  root.title = "Host kernel OOM (CONSTRAINT_NONE)";
  root.confidence = d::Confidence::high;
  root.host = "node-3";
  root.ts = kill.ts;
  root.summary = "oom-kill:constraint=CONSTRAINT_NONE killed postgres (pid 5151); largest rss: python3 (pid 4242)";
  root.advice = "Lower the data loader's num_workers or prefetch_factor; it held most of the host memory.";
  root.culprit = hog;
  root.victim = victim;
  root.evidence = {kill, table};
  v.root = root;
  v.findings = {root};
  v.advice = {root.advice};
  v.sources = {{"node-3/kern.log", "node-3", "kernel_log", {"kernel_log"}, "no-year", "syslog stamps, year from the latest dated line",
                9120, 1022334, "folder name"}};
  d::OomTable oom;
  oom.event_id = 301;
  oom.host = "node-3";
  oom.ts = kill.ts;
  oom.constraint = "CONSTRAINT_NONE";
  oom.trigger_pid = 4242;
  oom.trigger_comm = "python3";
  oom.task_count = 214;
  oom.total_rss = 63LL * kGiB;
  auto task = [](std::int64_t pid, const char* name, std::int64_t rss_pages, const char* role) {
    d::OomTaskRow r;
    r.pid = pid;
    r.name = name;
    r.rss = rss_pages * 4096;
    r.role = role;
    return r;
  };
  oom.tasks = {task(4242, "python3", 15257000, "job"), task(5151, "postgres", 1711567, "unknown"),
               task(4301, "python3", 402113, "job"), task(1022, "dockerd", 21340, "unknown")};
  oom.tasks[0].hog = true;
  oom.tasks[1].victim = true;
  v.data.ooms = {oom};
  d::HostClock clock;
  clock.host = "node-3";
  clock.method = "syslog stamps, year from the file time";
  clock.confidence = "medium";
  v.data.hosts = {clock};
  v.data.timeline = {event(301, kill.ts, "node-3", "kernel_oom", "critical", 4242, "node-3/kern.log", 8760,
                           "python3 invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, "
                           "oom_score_adj=0", "root")};
  v.data.timeline_total = 1;
  return v;
}

inline d::Verdict unknown_nothing() {
  d::Verdict v;
  v.verdict = d::verdict::kUnknown;
  v.confidence = d::Confidence::low;
  v.summary = "No OOM, signal exit or failure line was recognised in the inputs.";
  v.sources = {{"<stdin>:1", "", "app_log", {"app_log"}, "none", "", 212, 14880, ""},
               {"<stdin>:213", "", "app_log", {"ps", "app_log"}, "none", "", 40, 1900, ""}};
  v.skipped = {"<stdin>:213: format not recognised (40 lines)"};
  return v;
}

}  // namespace culprit::report::test
