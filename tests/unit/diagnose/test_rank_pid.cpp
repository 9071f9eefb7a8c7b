// A `[rankN]:` CUDA OOM names no pid; torchrun's failure summary on the same host pairs the
// rank with its worker pid, so the ledger's failing process and a job culprit get that pid.
#include <catch2/catch.hpp>

#include "unit/diagnose/diagnose_support.hpp"

namespace {

std::string torchrun_log(int rank, long pid) {
  return "[rank" + std::to_string(rank) +
         "]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.53 GiB. GPU 1 has a total capacity of "
         "79.11 GiB of which 1.21 GiB is free. Including non-PyTorch memory, this process has 77.89 GiB memory in use. "
         "Of the allocated memory 71.92 GiB is allocated by PyTorch, and 4.37 GiB is reserved by PyTorch but "
         "unallocated.\n"
         "E0409 00:47:11.402000 3104391 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
         "local_rank: 1 (pid: " + std::to_string(pid) + ") of binary: /usr/bin/python3\n"
         "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
         "============================================================\n"
         "train.py FAILED\n"
         "------------------------------------------------------------\n"
         "Failures:\n"
         "  <NO_OTHER_FAILURES>\n"
         "------------------------------------------------------------\n"
         "Root Cause (first observed failure):\n"
         "[0]:\n"
         "  time      : 2026-04-09_00:47:10\n"
         "  host      : gpu-node-12\n"
         "  rank      : " + std::to_string(rank) + " (local_rank: 1)\n"
         "  exitcode  : 1 (pid: " + std::to_string(pid) + ")\n"
         "  error_file: <N/A>\n"
         "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n"
         "============================================================\n";
}

}  // namespace

TEST_CASE("the failing rank's pid comes from torchrun's summary", "[diagnose][ledger]") {
  const auto v = culprit::test::diagnose_texts({{"train.log", "gpu-node-12", torchrun_log(5, 40578)}});
  CHECK(v.verdict == "cuda_oom");
  REQUIRE(v.culprit);
  CHECK(v.culprit->role == "job");
  CHECK(v.culprit->pid == 40578);
  REQUIRE(v.budget);
  REQUIRE_FALSE(v.budget->entries.empty());
  CHECK(v.budget->entries.front().pid == 40578);
  CHECK(v.budget->entries.front().label.find("pid 40578") != std::string::npos);
}

TEST_CASE("a summary for another rank lends no pid", "[diagnose][ledger]") {
  auto text = torchrun_log(5, 40578);
  text.replace(text.find("[rank5]"), 7, "[rank6]");
  const auto v = culprit::test::diagnose_texts({{"train.log", "gpu-node-12", text}});
  REQUIRE(v.culprit);
  CHECK_FALSE(v.culprit->pid);
}

namespace {

// c10's CUDACachingAllocator glog warning (format string in c10/cuda/CUDACachingAllocator.cpp:
// "memory allocation failed with OOM on device %d while trying to allocate %zu bytes (free: %zu,
// total: %zu)") is written to fd 2 and skips vLLM's `(Name pid=N)` stdout prefixer.
std::string worker_log(const std::vector<long>& pids) {
  std::string out;
  for (long pid : pids)
    out += "(VllmWorker rank=0 pid=" + std::to_string(pid) +
           ") INFO 11-04 09:41:05 [gpu_model_runner.py:1595] Model loading took 14.99 GiB and 8.1 seconds\n";
  out += "[rank0]:[W1104 09:41:07.120934112 CUDACachingAllocator.cpp:3933] memory allocation failed with OOM on "
         "device 0 while trying to allocate 536870912 bytes (free: 201326592, total: 85017624576).\n";
  return out;
}

}  // namespace

TEST_CASE("a bare allocator line belongs to the log's only worker", "[diagnose][ledger]") {
  const auto v = culprit::test::diagnose_texts({{"serve.log", "gpu-node-4", worker_log({5121})}});
  CHECK(v.verdict == "cuda_oom");
  REQUIRE(v.victim);
  CHECK(v.victim->pid == 5121);
}

TEST_CASE("two workers in the log lend no pid to a bare allocator line", "[diagnose][ledger]") {
  const auto v = culprit::test::diagnose_texts({{"serve.log", "gpu-node-4", worker_log({5121, 5122})}});
  CHECK(v.verdict == "cuda_oom");
  CHECK((!v.victim || !v.victim->pid));
}
