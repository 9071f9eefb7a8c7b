// The ledger with snapshots from any nvidia-smi form and roles from ps: a `[rank0]:` PyTorch OOM
// (no pid), a --query-compute-apps CSV and a ps listing. The failing process is the job holder
// whose memory matches "this process has …" (counted once), and the culprit is the foreign
// holder covering the shortfall, with the ps reasons in its why.
#include <catch2/catch.hpp>

#include <string>

#include "diagnose/ledger.hpp"
#include "diagnose/roles.hpp"
#include "unit/diagnose/paste_timeline.hpp"

namespace {

const char* kPaste =
    "alice@gpu-node-3:~/llm$ torchrun --nproc-per-node 2 train.py --config cfg/llama7b.yaml\n"
    "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 10.00 GiB. GPU 0 has a total capacity "
    "of 79.65 GiB of which 1.20 GiB is free. Process 883120 has 18.46 GiB memory in use. Including non-PyTorch "
    "memory, this process has 59.60 GiB memory in use. Of the allocated memory 57.10 GiB is allocated by PyTorch, "
    "and 1.90 GiB is reserved by PyTorch but unallocated.\n"
    "[2026-04-09 11:02:51,207] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) "
    "local_rank: 0 (pid: 2381044) of binary: /home/alice/venv/bin/python3\n"
    "alice@gpu-node-3:~/llm$ nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv\n"
    "pid, process_name, used_gpu_memory [MiB]\n"
    "2381044, /home/alice/venv/bin/python3, 61034 MiB\n"
    "883120, /home/bob/miniconda3/envs/exp/bin/python, 18900 MiB\n"
    "alice@gpu-node-3:~/llm$ ps -eo pid,user,stat,lstart,rss,cmd | grep python\n"
    "    PID USER     STAT                  STARTED   RSS CMD\n"
    " 883120 bob      Sl   Wed Apr  8 18:40:55 2026 5120344 /home/bob/miniconda3/envs/exp/bin/python eval_sweep.py\n"
    "2381044 alice    Rl+  Thu Apr  9 09:12:44 2026 8234156 /home/alice/venv/bin/python3 -u train.py\n";

}  // namespace

TEST_CASE("ledger: CSV holders, ps roles, and the failing process counted once", "[ledger][ps]") {
  using namespace culprit;
  auto db = test::paste_timeline(kPaste);
  REQUIRE(diagnose::assign_roles(*db).empty());
  auto oom = db->query("SELECT id FROM events WHERE kind = 'cuda_oom' ORDER BY id LIMIT 1");
  REQUIRE(oom.rows.size() == 1);
  const auto ledger = diagnose::build_ledger(*db, *oom.rows[0]["id"].as_int());
  const auto& b = ledger.budget;
  int job_entries = 0;
  for (const auto& entry : b.entries)
    if (entry.role == "job") {
      ++job_entries;
      CHECK(entry.pid == 2381044);
    }
  CHECK(job_entries == 1);
  REQUIRE(b.job);
  CHECK(*b.job == std::int64_t{59600} * 1024 * 1024 * 1024 / 1000);  // 59.60 GiB, once
  REQUIRE(ledger.culprit);
  CHECK(ledger.culprit->pid == 883120);
  CHECK(ledger.culprit->role == "foreign");
  CHECK_THAT(ledger.culprit->why, Catch::Contains("runs as user bob"));
  CHECK_THAT(ledger.culprit->why, Catch::Contains("before the job"));
}
