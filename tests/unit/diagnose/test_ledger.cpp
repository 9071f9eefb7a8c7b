// The ledger with snapshots from any nvidia-smi form and roles from ps: a `[rank0]:` PyTorch OOM
// (no pid), a --query-compute-apps CSV and a ps listing. The failing process is the job holder
// whose memory matches "this process has …" (counted once), and the culprit is the foreign
// holder covering the shortfall, with the ps reasons in its why. On unified memory the rest of
// the pool is split into the host processes ps lists.
#include <catch2/catch.hpp>

#include <string>

#include "diagnose/load.hpp"
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

TEST_CASE("ledger: on unified memory the rest names the host processes ps lists", "[ledger][ps]") {
  using namespace culprit;
  const std::string paste =
      "alice@spark-b:~$ python serve.py\n"
      "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB. GPU 0 has a total capacity "
      "of 119.70 GiB of which 1.02 GiB is free. Including non-PyTorch memory, this process has 60.00 GiB memory in "
      "use. Of the allocated memory 58.00 GiB is allocated by PyTorch, and 1.00 GiB is reserved by PyTorch but "
      "unallocated.\n"
      "alice@spark-b:~$ nvidia-smi\n"
      "+-----------------------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 580.95.05              Driver Version: 580.95.05      CUDA Version: 13.0     |\n"
      "+-----------------------------------------+------------------------+----------------------+\n"
      "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
      "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
      "|                                         |                        |               MIG M. |\n"
      "|=========================================+========================+======================|\n"
      "|   0  NVIDIA GB10                    On  |   0000000F:01:00.0 Off |                  N/A |\n"
      "| N/A   39C    P8              3W /  N/A  | Not Supported          |      0%      Default |\n"
      "|                                         |                        |                  N/A |\n"
      "+-----------------------------------------+------------------------+----------------------+\n"
      "\n"
      "+-----------------------------------------------------------------------------------------+\n"
      "| Processes:                                                                              |\n"
      "|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |\n"
      "|        ID   ID                                                               Usage      |\n"
      "|=========================================================================================|\n"
      "|    0   N/A  N/A            3104      C   /usr/bin/python3                      61440MiB |\n"
      "+-----------------------------------------------------------------------------------------+\n"
      "alice@spark-b:~$ ps aux --sort=-rss | head -4\n"
      "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n"
      "bob         7001 98.0 32.6 45123456 41943040 ?    Rl   10:02  55:10 python preprocess.py --workers 16\n"
      "alice       3104 99.1  1.0 81234567 1048576 pts/0 Rl+  10:40   3:02 /usr/bin/python3 serve.py\n"
      "root         911  0.1  0.1 2345678 262144 ?      Ssl  Apr08   1:11 /usr/bin/containerd\n";
  auto db = test::paste_timeline(paste);
  REQUIRE(diagnose::assign_roles(*db).empty());
  auto oom = db->query("SELECT id FROM events WHERE kind = 'cuda_oom' ORDER BY id LIMIT 1");
  REQUIRE(oom.rows.size() == 1);
  const auto ledger = diagnose::build_ledger(*db, *oom.rows[0]["id"].as_int());
  const auto& b = ledger.budget;
  CHECK(b.unified);
  std::int64_t host = 0;
  int job_entries = 0;
  for (const auto& e : b.entries) {
    if (e.role == "host") host += e.bytes;
    if (e.role == "job" || e.pid == 3104) ++job_entries;
  }
  CHECK(job_entries == 1);  // pid 3104 is the failing process, counted once
  CHECK(host == std::int64_t{41943040} * 1024 + std::int64_t{262144} * 1024);
  REQUIRE(b.unexplained);
  REQUIRE(b.total);
  REQUIRE(b.free);
  CHECK(*b.total == *b.free + *b.job + host + *b.unexplained);
  REQUIRE_FALSE(b.arithmetic.empty());
  CHECK_THAT(b.arithmetic[0], Catch::Contains("+ host processes 40.25 GiB"));
}

TEST_CASE("ledger: an error naming only its request leaves the rest unknown, not zero", "[ledger]") {
  using namespace culprit;
  // llama.cpp's allocation failure: the request and the device, nothing about the GPU's holders.
  auto db = test::paste_timeline(
      "ggml_backend_cuda_buffer_type_alloc_buffer: allocating 38912.00 MiB on device 0: cudaMalloc failed: out of memory\n"
      "llama_model_load: error loading model: unable to allocate CUDA0 buffer\n");
  REQUIRE(diagnose::assign_roles(*db).empty());
  auto oom = db->query("SELECT id FROM events WHERE kind = 'cuda_oom' ORDER BY id LIMIT 1");
  REQUIRE(oom.rows.size() == 1);
  const auto ledger = diagnose::build_ledger(*db, *oom.rows[0]["id"].as_int());
  const auto& b = ledger.budget;
  REQUIRE(b.requested);
  CHECK(*b.requested == std::int64_t{38912} * 1024 * 1024);
  CHECK_FALSE(b.total);
  CHECK_FALSE(b.job);      // nothing measured the job
  CHECK_FALSE(b.foreign);  // nor any other holder
  REQUIRE(ledger.culprit);
  CHECK(ledger.culprit->role == "job");
  CHECK_THAT(ledger.reason, Catch::Contains("no other holder of that GPU is known"));
}

TEST_CASE("ledger: small holders and display servers are bystanders, not the culprit", "[ledger]") {
  using namespace culprit;
  // The job fills a 24 GiB card; Xorg (type G) and a 598 MiB notebook together exceed the
  // shortfall, but neither is why a 22.5 GiB server ran out.
  auto db = test::paste_timeline(
      "(VllmWorkerProcess pid=2841) INFO 05-01 10:00:09 multiproc_worker_utils.py:215] Worker ready; awaiting tasks\n"
      "ERROR 05-01 10:00:31 engine.py:158] OutOfMemoryError('CUDA out of memory. Tried to allocate 1.95 GiB. GPU 0 has a "
      "total capacity of 23.64 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 22.50 GiB "
      "memory in use. Of the allocated memory 21.80 GiB is allocated by PyTorch, and 250.12 MiB is reserved by PyTorch "
      "but unallocated.')\n"
      "+-----------------------------------------------------------------------------------------+\n"
      "| Processes:                                                                              |\n"
      "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |\n"
      "|        ID   ID                                                               Usage      |\n"
      "|=========================================================================================|\n"
      "|    0   N/A  N/A      1873      G   /usr/lib/xorg/Xorg                            412MiB |\n"
      "|    0   N/A  N/A      2210      C   ...miniconda3/envs/sd/bin/python              598MiB |\n"
      "+-----------------------------------------------------------------------------------------+\n");
  REQUIRE(diagnose::assign_roles(*db).empty());
  auto oom = db->query("SELECT id FROM events WHERE kind = 'cuda_oom' ORDER BY id LIMIT 1");
  REQUIRE(oom.rows.size() == 1);
  const auto ledger = diagnose::build_ledger(*db, *oom.rows[0]["id"].as_int());
  REQUIRE(ledger.culprit);
  CHECK(ledger.culprit->role == "job");
  CHECK(ledger.confidence == diagnose::Confidence::medium);
  CHECK_THAT(ledger.reason, Catch::Contains("none is both proven foreign and large enough"));
  // Not proven foreign (a pid the job's logs do not name is no evidence): unattributed.
  REQUIRE(ledger.budget.unattributed);
  CHECK(*ledger.budget.unattributed == std::int64_t{1010} * 1024 * 1024);
}

TEST_CASE("ledger: PyTorch 1.x wording counts what PyTorch reserved as the job's, not as unexplained", "[ledger]") {
  using namespace culprit;
  auto db = test::paste_timeline(
      "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 20.00 MiB (GPU 0; 4.00 GiB total capacity; "
      "3.42 GiB already allocated; 0 bytes free; 3.47 GiB reserved in total by PyTorch) If reserved memory is >> "
      "allocated memory try setting max_split_size_mb to avoid fragmentation.\n");
  REQUIRE(diagnose::assign_roles(*db).empty());
  auto oom = db->query("SELECT id FROM events WHERE kind = 'cuda_oom' ORDER BY id LIMIT 1");
  REQUIRE(oom.rows.size() == 1);
  const auto ledger = diagnose::build_ledger(*db, *oom.rows[0]["id"].as_int());
  const auto& b = ledger.budget;
  REQUIRE(b.job);
  CHECK(*b.job == std::int64_t{347} * 1024 * 1024 * 1024 / 100);
  REQUIRE(b.unexplained);
  CHECK(*b.unexplained == std::int64_t{4} * 1024 * 1024 * 1024 - *b.job);  // 0 bytes free
  CHECK_FALSE(b.foreign);  // no process list: other holders are not known, not zero
  REQUIRE(ledger.culprit);
  CHECK(ledger.culprit->role == "job");
  CHECK_THAT(ledger.reason, Catch::Contains("no process list of that GPU"));
}

TEST_CASE("ledger: on a MIG GPU a process of another instance is not the culprit", "[ledger]") {
  using namespace culprit;
  // A100 in MIG mode, two 10 GB instances: pid 41022 (GI 3) is the failing process, pid 39876
  // (GI 4) fills the other instance and does not touch this one's memory.
  auto db = test::paste_timeline(
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 9.50 GiB "
      "of which 1.12 GiB is free. Including non-PyTorch memory, this process has 8.21 GiB memory in use. Of the "
      "allocated memory 7.90 GiB is allocated by PyTorch, and 100.12 MiB is reserved by PyTorch but unallocated.\n"
      "$ nvidia-smi\n"
      "+-----------------------------------------------------------------------------------------+\n"
      "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |\n"
      "|-----------------------------------------+------------------------+----------------------+\n"
      "| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |\n"
      "| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |\n"
      "|                                         |                        |               MIG M. |\n"
      "|=========================================+========================+======================|\n"
      "|   0  NVIDIA A100-SXM4-40GB          On  |   00000000:07:00.0 Off |                   On |\n"
      "| N/A   33C    P0             91W /  400W |                  N/A   |     N/A      Default |\n"
      "|                                         |                        |              Enabled |\n"
      "+-----------------------------------------+------------------------+----------------------+\n"
      "\n"
      "+-----------------------------------------------------------------------------------------+\n"
      "| Processes:                                                                              |\n"
      "|  GPU   GI   CI        PID   Type   Process name                              GPU Memory |\n"
      "|        ID   ID                                                               Usage      |\n"
      "|=========================================================================================|\n"
      "|    0    3    0      41022      C   python                                       8404MiB |\n"
      "|    0    4    0      39876      C   python                                       9326MiB |\n"
      "+-----------------------------------------------------------------------------------------+\n");
  REQUIRE(diagnose::assign_roles(*db).empty());
  auto oom = db->query("SELECT id FROM events WHERE kind = 'cuda_oom' ORDER BY id LIMIT 1");
  REQUIRE(oom.rows.size() == 1);
  const auto ledger = diagnose::build_ledger(*db, *oom.rows[0]["id"].as_int());
  REQUIRE(ledger.culprit);
  CHECK(ledger.culprit->role == "job");
  CHECK(ledger.culprit->pid == 41022);  // found by its "this process has" size
  for (const auto& e : ledger.budget.entries) CHECK(e.pid != 39876);
  CHECK_THAT(ledger.reason, Catch::Contains("MIG instance"));
}
