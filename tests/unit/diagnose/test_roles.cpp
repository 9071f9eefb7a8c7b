// Roles from `ps`: a paste with the job's torchrun failure, an nvidia-smi Processes box and a
// `ps` listing goes through ingest and the store like `culprit` does; assign_roles must call
// the GPU holders foreign for the reasons ps shows (another user, stopped, started before the
// job, run longer than the job) and write those reasons into role_why.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "diagnose/load.hpp"
#include "unit/diagnose/paste_timeline.hpp"

namespace {

struct Role {
  std::string role, why, user, state;
};

std::map<std::int64_t, Role> roles_of(const std::string& paste) {
  using namespace culprit;
  auto db = test::paste_timeline(paste);
  REQUIRE(diagnose::assign_roles(*db).empty());
  auto q = db->query("SELECT pid, role, role_why, user, state FROM processes");
  REQUIRE(q.error.empty());
  std::map<std::int64_t, Role> out;
  for (const auto& r : q.rows)
    out[*r["pid"].as_int()] = {r["role"].as_text(), r["role_why"].as_text(), r["user"].as_text(), r["state"].as_text()};
  return out;
}

const char* kTorchrun =
    "alice@gpu-node-3:~$ tail -n 2 train.log\n"
    "[2026-04-09 11:02:51,207] torch.distributed.elastic.multiprocessing.api: [ERROR] failed (exitcode: 1) "
    "local_rank: 0 (pid: 2381044) of binary: /home/alice/venv/bin/python3\n";

const char* kProcesses =
    "alice@gpu-node-3:~$ nvidia-smi\n"
    "+---------------------------------------------------------------------------------------+\n"
    "| Processes:                                                                            |\n"
    "|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |\n"
    "|        ID   ID                                                             Usage      |\n"
    "|=======================================================================================|\n"
    "|    0   N/A  N/A   2381044      C   /home/alice/venv/bin/python3              61034MiB |\n"
    "|    0   N/A  N/A    883120      C   ...niconda3/envs/exp/bin/python           18900MiB |\n"
    "|    0   N/A  N/A   1022731      C   /opt/conda/bin/python                      1024MiB |\n"
    "+---------------------------------------------------------------------------------------+\n";

}  // namespace

TEST_CASE("roles: ps shows another user, a stopped state and an early start", "[roles][ps]") {
  const std::string paste = std::string(kTorchrun) + kProcesses +
      "alice@gpu-node-3:~$ ps -eo pid,user,stat,lstart,rss,cmd\n"
      "    PID USER     STAT                  STARTED   RSS CMD\n"
      " 883120 bob      Sl   Wed Apr  8 18:40:55 2026 5120344 /home/bob/miniconda3/envs/exp/bin/python eval_sweep.py --gpu 0\n"
      "1022731 alice    Tl   Thu Apr  9 10:01:13 2026 1048576 /opt/conda/bin/python -m ipykernel_launcher -f k.json\n"
      "2381044 alice    Rl+  Thu Apr  9 09:12:44 2026 8234156 /home/alice/venv/bin/python3 -u train.py\n";
  auto roles = roles_of(paste);
  REQUIRE(roles.count(2381044));
  CHECK(roles[2381044].role == "job");
  CHECK(roles[2381044].user == "alice");
  REQUIRE(roles.count(883120));
  const Role& bob = roles[883120];
  CHECK(bob.role == "foreign");
  CHECK(bob.user == "bob");
  CHECK_THAT(bob.why, Catch::Contains("runs as user bob, the job's processes as alice (ps)"));
  CHECK_THAT(bob.why, Catch::Contains("started by 2026-04-08T18:40 (ps), 14 hours before the job"));
  REQUIRE(roles.count(1022731));
  const Role& stopped = roles[1022731];
  CHECK(stopped.role == "foreign");
  CHECK(stopped.state == "Tl");
  CHECK_THAT(stopped.why, Catch::Contains("stopped (ps state Tl)"));
  CHECK_THAT(stopped.why, !Catch::Contains("runs as user"));
  CHECK_THAT(stopped.why, !Catch::Contains("started by"));
}

TEST_CASE("roles: ps elapsed times say a holder predates the job without any clock", "[roles][ps]") {
  const std::string paste = std::string(kTorchrun) + kProcesses +
      "alice@gpu-node-3:~$ ps -eo pid,user,stat,etime,args\n"
      "    PID USER     STAT     ELAPSED COMMAND\n"
      " 883120 alice    Sl    1-16:21:27 /home/alice/miniconda3/envs/exp/bin/python eval_sweep.py\n"
      "2381044 alice    Rl+     01:50:07 /home/alice/venv/bin/python3 -u train.py\n";
  auto roles = roles_of(paste);
  REQUIRE(roles.count(883120));
  CHECK(roles[883120].role == "foreign");
  CHECK_THAT(roles[883120].why, Catch::Contains("had run 40 hours when ps listed it, the job's processes 110 minutes"));
  CHECK_THAT(roles[883120].why, !Catch::Contains("runs as user"));
}

// Without ps (or another positive reason) a holder the job's logs do not name is `unknown`: its
// pid missing from the job's known pids is no evidence (issue 34).
TEST_CASE("roles: without ps nothing new is claimed", "[roles][ps]") {
  auto roles = roles_of(std::string(kTorchrun) + kProcesses);
  REQUIRE(roles.count(883120));
  CHECK(roles[883120].role == "unknown");
  CHECK(roles[883120].why == "holds GPU memory; no log says whose it is");
}

// Identity from the paste's own words: the command typed at the prompt names the job (SGLang's
// worker log), and a compute holder still holding 13 s after the job's launcher got SIGQUIT
// outlived the job. A display server outlives every job and is not made foreign for that.
TEST_CASE("roles: the prompt's command names the job, and a holder that outlived it is foreign", "[roles]") {
  const std::string paste =
      "me@laptop:~$ ssh aurora@spark-a 'ssh aurora@spark-b \"tail -n 2 /tmp/sglang-worker.log\"' 2>&1\n"
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of 119.70 GiB "
      "of which 1.06 MiB is free. Process 48211 has 11.71 GiB memory in use. Including non-PyTorch memory, this process "
      "has 62.91 GiB memory in use. Of the allocated memory 62.10 GiB is allocated by PyTorch, and 118.00 MiB is reserved "
      "by PyTorch but unallocated.\n"
      "[2026-04-09 00:47:09] Received sigquit from a child process. It usually means the child failed.\n"
      "me@laptop:~$ ssh aurora@spark-a 'ssh aurora@spark-b \"nvidia-smi\"' 2>&1\n"
      "Thu Apr  9 00:47:22 2026       \n"
      "+-----------------------------------------------------------------------------------------+\n"
      "| Processes:                                                                              |\n"
      "|  GPU   GI   CI              PID   Type   Process name                        GPU Memory |\n"
      "|        ID   ID                                                               Usage      |\n"
      "|=========================================================================================|\n"
      "|    0   N/A  N/A            3094      G   /usr/lib/xorg/Xorg                       43MiB |\n"
      "|    0   N/A  N/A           48211      C   VLLM::EngineCore                      11990MiB |\n"
      "+-----------------------------------------------------------------------------------------+\n";
  const auto roles = roles_of(paste);
  REQUIRE(roles.count(48211));
  CHECK(roles.at(48211).role == "foreign");
  CHECK_THAT(roles.at(48211).why, Catch::Contains("a vLLM process, while the job runs SGLang"));
  CHECK_THAT(roles.at(48211).why, Catch::Contains("after the job's processes had died"));
  REQUIRE(roles.count(3094));
  CHECK(roles.at(3094).role != "foreign");

  SECTION("without the job's end (no sigquit line) nothing says the holder outlived it") {
    std::string alive = paste;
    const auto at = alive.find("[2026-04-09 00:47:09] Received sigquit");
    alive.erase(at, alive.find('\n', at) + 1 - at);
    const auto r = roles_of(alive);
    REQUIRE(r.count(48211));
    CHECK_THAT(r.at(48211).why, !Catch::Contains("after the job's processes had died"));
  }
}

// decide_roles over records alone (no database): each reason on its own makes a holder foreign,
// none leaves it unknown, and infrastructure is foreign by name.
TEST_CASE("roles: decide_roles over records", "[roles][records]") {
  using culprit::diagnose::RoleFacts;
  RoleFacts facts;
  facts.job_texts.push_back({"spark-b", "worker.log sglang.launch_server --tp 2"});
  RoleFacts::Holder engine;
  engine.host = "spark-b";
  engine.pid = 48211;
  engine.names = {"VLLM::EngineCore"};
  engine.gpu_listed = true;
  RoleFacts::Holder plain;
  plain.host = "spark-b";
  plain.pid = 5000;
  plain.names = {"python3"};
  plain.gpu_listed = true;
  RoleFacts::Holder outlived = plain;
  outlived.pid = 5001;
  outlived.outlived = RoleFacts::Holder::Outlived{1000.0, 900.0, 12LL << 30, "worker.log", 88};
  facts.holders = {engine, plain, outlived};
  facts.infrastructure.push_back({"spark-b", 77, "containerd-shim"});
  const auto d = culprit::diagnose::decide_roles(facts);
  REQUIRE(d.size() == 4);
  CHECK(d[0].pid == 77);
  CHECK(d[0].role == "foreign");
  CHECK(d[0].why == "infrastructure: a containerd shim, not the job's workload");
  CHECK(d[1].pid == 48211);
  CHECK(d[1].role == "foreign");
  CHECK(d[1].why.find("a vLLM process, while the job runs SGLang") != std::string::npos);
  CHECK(d[2].pid == 5000);
  CHECK(d[2].role == "unknown");  // nothing proves it foreign: its pid being unseen is no reason
  CHECK(d[3].role == "foreign");
  CHECK(d[3].why.find("still held 12.00 GiB at 00:16:40, after the job's processes had died (00:15:00, worker.log:88)") !=
        std::string::npos);
}

TEST_CASE("roles: decisions are rows of process_roles, the records are never written", "[roles][records]") {
  // Issue 34: records in, decisions out. The ingest's process_records stay as they were; the
  // roles land in process_roles, and a second diagnosis of the same timeline replaces them.
  using namespace culprit;
  auto db = test::paste_timeline(std::string(kTorchrun) + kProcesses);
  const std::string records_sql = "SELECT * FROM process_records ORDER BY incident, host, pid";
  auto dump = [&] {
    std::string out;
    for (const auto& r : db->query(records_sql).rows)
      for (const auto& v : r.values) out += v.as_text() + "|";
    return out;
  };
  const std::string before = dump();
  REQUIRE_FALSE(before.empty());
  REQUIRE(diagnose::assign_roles(*db).empty());
  CHECK(dump() == before);
  auto decided = db->query("SELECT pid, role FROM process_roles ORDER BY pid");
  REQUIRE(decided.error.empty());
  std::map<std::int64_t, std::string> role;
  for (const auto& r : decided.rows) role[*r["pid"].as_int()] = r["role"].as_text();
  CHECK(role[2381044] == "job");
  const auto first = decided.rows.size();
  REQUIRE(diagnose::assign_roles(*db).empty());
  CHECK(db->query("SELECT pid FROM process_roles").rows.size() == first);
  CHECK(dump() == before);
  // A process no decision names reads `unknown` through the view.
  auto unnamed = db->query("SELECT count(*) AS n FROM processes p WHERE NOT EXISTS "
                           "(SELECT 1 FROM process_roles d WHERE d.host = p.host AND d.pid = p.pid) AND p.role <> 'unknown'");
  CHECK(unnamed.rows.at(0)["n"].as_int().value_or(-1) == 0);
}
