// Who sent an unexplained SIGKILL (issue 35, item 5): a memory limit anywhere in the inputs makes
// it the limit's cgroup OOM, at low; a record of no OOM kill, a supervisor's stop or hint text
// does not; and the shells' notice in other locales is a SIGKILL as the English one is. The
// cgroup listing is the one `culprit run` writes (`==> <file> <==`, head's form); the kubelet and
// shell lines are written from their format strings (named in rules/signals).
#include <catch2/catch.hpp>

#include <string>

#include "unit/diagnose/diagnose_support.hpp"

namespace {

using culprit::test::diagnose_texts;
using culprit::test::has_rule;

const std::string kCgroupLimitListing =
    "==> /sys/fs/cgroup/system.slice/docker-3f2a9c0d1e4b.scope/memory.max <==\n"
    "34359738368\n"
    "==> /sys/fs/cgroup/system.slice/docker-3f2a9c0d1e4b.scope/memory.current <==\n"
    "1073741824\n";

}  // namespace

TEST_CASE("A bare Killed under a memory limit is the limit's cgroup OOM, at low", "[diagnose][sigkill]") {
  const auto v = diagnose_texts({{"train.log", "gpu-3", "epoch 3 step 1200 loss 0.41\nKilled\n"},
                                 {"cgroup.txt", "gpu-3", kCgroupLimitListing}});
  CHECK(v.verdict == "cgroup_oom");
  REQUIRE(has_rule(v, "sigkill-under-memory-limit"));
  REQUIRE(v.root);
  const auto& top = *v.root;
  CHECK(top.rule == "sigkill-under-memory-limit");
  CHECK(top.confidence == culprit::diagnose::Confidence::low);
  CHECK(top.summary.find("32.00 GiB") != std::string::npos);
}

TEST_CASE("No limit, an unlimited cgroup, or a record of no OOM kill: no cgroup guess", "[diagnose][sigkill]") {
  // Without a limit, the host-wide guess stands.
  const auto bare = diagnose_texts({{"train.log", "gpu-3", "Killed\n"}});
  CHECK(bare.verdict == "kernel_oom");
  CHECK_FALSE(has_rule(bare, "sigkill-under-memory-limit"));
  // `max`: no limit.
  const auto unlimited = diagnose_texts(
      {{"train.log", "gpu-3", "Killed\n"},
       {"cgroup.txt", "gpu-3", "==> /sys/fs/cgroup/user.slice/memory.max <==\nmax\n"}});
  CHECK_FALSE(has_rule(unlimited, "sigkill-under-memory-limit"));
  // memory.events says the cgroup killed nothing.
  const auto none_killed = diagnose_texts(
      {{"train.log", "gpu-3", "Killed\n"},
       {"cgroup.txt", "gpu-3",
        kCgroupLimitListing + "==> /sys/fs/cgroup/system.slice/docker-3f2a9c0d1e4b.scope/memory.events <==\n"
                 "low 0\nhigh 0\nmax 0\noom 0\noom_kill 0\n"}});
  CHECK_FALSE(has_rule(none_killed, "sigkill-under-memory-limit"));
}

TEST_CASE("A kill at a failed liveness probe under a memory limit is the kubelet's, not an OOM", "[diagnose][sigkill]") {
  // kubelet (kuberuntime_manager.go): "Container %s failed %s probe, will be restarted".
  const auto v = diagnose_texts(
      {{"events.txt", "",
        "  Warning  Unhealthy  2m   kubelet  Liveness probe failed: Get \"http://10.0.3.7:8000/health\": context "
        "deadline exceeded\n"
        "  Normal   Killing    2m   kubelet  Container server failed liveness probe, will be restarted\n"},
       {"server.log", "", "INFO: serving on :8000\nKilled\n"},
       {"cgroup.txt", "", kCgroupLimitListing}});
  CHECK(v.verdict != "cgroup_oom");
  CHECK_FALSE(has_rule(v, "sigkill-under-memory-limit"));
}

TEST_CASE("Hint text about 137 under a memory limit is no kill", "[diagnose][sigkill]") {
  const auto v = diagnose_texts(
      {{"notes.txt", "gpu-3", "Hint: exit code 137 usually means the process was killed for using too much memory\n"},
       {"cgroup.txt", "gpu-3", kCgroupLimitListing}});
  CHECK_FALSE(has_rule(v, "sigkill-under-memory-limit"));
  CHECK(v.verdict != "cgroup_oom");
}

TEST_CASE("The shells' Killed in other locales is a SIGKILL, their Terminated is not", "[diagnose][sigkill]") {
  // glibc's strsignal(SIGKILL) in de / fr / zh_CN (libc.po), bash's job notice and script line.
  for (const char* killed : {"Getötet\n", "Processus arrêté\n", "已杀死\n",
                             "[1]+  Убито                   python train.py\n",
                             "./run.sh: Zeile 12: 40211 Getötet                 python3 train.py\n"}) {
    INFO(killed);
    const auto v = diagnose_texts({{"train.log", "gpu-3", std::string("step 9\n") + killed}});
    CHECK(v.verdict == "kernel_oom");
  }
  for (const char* stopped : {"Beendet\n", "Terminado\n", "Complété\n"}) {
    INFO(stopped);
    const auto v = diagnose_texts({{"train.log", "gpu-3", std::string("step 9\n") + stopped}});
    CHECK(v.verdict != "kernel_oom");
  }
}
