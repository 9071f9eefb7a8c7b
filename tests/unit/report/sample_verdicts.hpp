// Hand-built verdicts for the report tests: a CUDA OOM caused by a foreign vLLM engine on a
// unified-memory GB10 (with echoes on another host), a host kernel OOM whose victim is not the
// hog, and an `unknown` verdict where nothing was found. Log text is byte-for-byte realistic.
#pragma once

#include "culprit/core/time.hpp"
#include "culprit/diagnose/finding.hpp"

namespace culprit::report::test {

namespace d = culprit::diagnose;

inline constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;
inline constexpr std::int64_t kMiB = 1024LL * 1024;

// 2026-04-09 00:47:13.412 UTC
inline double oom_ts() { return core::civil_to_epoch(2026, 4, 9, 0, 47, 13.412); }

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
      {"spark-b/train-rank0.log", "spark-b", "python_log", "wall", 1190, 183402},
      {"spark-b/nvidia-smi.txt", "spark-b", "nvidia_smi_table", "none", 24, 2533},
      {"spark-a/train-rank1.log", "spark-a", "python_log", "wall", 2240, 301777},
  };
  v.skipped = {"spark-b/core.48211: binary file"};
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
  v.sources = {{"node-3/kern.log", "node-3", "kern_log", "syslog_year_inferred", 9120, 1022334}};
  return v;
}

inline d::Verdict unknown_nothing() {
  d::Verdict v;
  v.verdict = d::verdict::kUnknown;
  v.confidence = d::Confidence::low;
  v.summary = "No OOM, signal exit or failure line was recognised in the inputs.";
  v.sources = {{"<stdin>:1", "", "python_log", "none", 212, 14880},
               {"<stdin>:213", "", "unknown", "none", 40, 1900}};
  v.skipped = {"<stdin>:213: format not recognised (40 lines)"};
  return v;
}

}  // namespace culprit::report::test
