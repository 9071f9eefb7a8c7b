// Stories for the user-space killers' families, the named not-OOM causes (serving engines,
// crashes, driver errors) and the converse: ordinary logs of other software give no finding.
// Every line is written from the emitting tool's format string (named at each story), not copied
// from a paste.
#include <catch2/catch.hpp>

#include <string>

#include "unit/diagnose/diagnose_support.hpp"

namespace {

using culprit::test::diagnose_texts;
using culprit::test::has_rule;

}  // namespace

// sshd (packet.c / sshd.c: "Read error from remote host %s port %d: %s", kex "read: %s"),
// xinetd ("recv (%s): %s") and nginx ("recv() failed (%d: %s)") all print ECONNRESET's text.
TEST_CASE("Connection reset by peer in server logs is not a lost rank", "[diagnose][peer]") {
  const auto v = diagnose_texts({{"auth.log", "web-1",
                                  "Mar  2 10:00:01 web-1 sshd[811]: Read error from remote host 198.51.100.7 port 50122: "
                                  "Connection reset by peer\n"
                                  "Mar  2 10:00:02 web-1 sshd[812]: error: kex_exchange_identification: read: Connection "
                                  "reset by peer\n"
                                  "Mar  2 10:00:03 web-1 xinetd[400]: recv (ftp): Connection reset by peer\n"
                                  "Mar  2 10:00:04 web-1 nginx[90]: *5 recv() failed (104: Connection reset by peer) while "
                                  "reading response header from upstream\n"}});
  CHECK(v.verdict == "unknown");
  CHECK_FALSE(has_rule(v, "peer-lost"));
}

TEST_CASE("A ConnectionResetError in a program with no distributed layer is not a lost rank", "[diagnose][peer]") {
  const auto v = diagnose_texts({{"client.log", "",
                                  "Traceback (most recent call last):\n"
                                  "  File \"fetch.py\", line 9, in <module>\n"
                                  "    r = session.get(url)\n"
                                  "ConnectionResetError: [Errno 104] Connection reset by peer\n"}});
  CHECK_FALSE(has_rule(v, "peer-lost"));
}

// gloo's tcp pair ("Read error [%s]:%d: %s") inside a torch.distributed job is a lost peer.
TEST_CASE("Connection reset by peer in a distributed job is a lost peer", "[diagnose][peer]") {
  const auto v = diagnose_texts({{"rank1.log", "node-2",
                                  "torch.distributed.init_process_group(backend='gloo') done\n"
                                  "RuntimeError: [../third_party/gloo/gloo/transport/tcp/pair.cc:534] Read error "
                                  "[10.0.0.1]:29500: Connection reset by peer\n"}});
  CHECK(v.verdict == "not_oom");
  CHECK(has_rule(v, "peer-lost"));
}

// Ray 2.0-2.1 raylet (node_manager.cc): "System memory low at node with IP ... killing latest task
// with name ... and task ID ...".
TEST_CASE("Ray 2.0 raylet memory-low kill is a user-space OOM kill of the job's own task", "[diagnose][ray]") {
  const auto v = diagnose_texts(
      {{"driver.log", "head",
        "(raylet) [2026-03-02 10:11:12,345 E 871 871] (raylet) node_manager.cc:2951: System memory low at node with "
        "IP 10.1.2.3. Used memory (120.11GB) / total capacity (125.00GB) (0.96088) exceeds threshold 0.95, killing "
        "latest task with name preprocess(7) and task ID 7f3c2a to avoid running out of memory.\n"}});
  CHECK(v.verdict == "userspace_oom_kill");
  REQUIRE(v.culprit);
  CHECK(v.culprit->role == "job");
  CHECK(v.culprit->name == "preprocess(7)");
}

// The remediation paragraph alone (the head of the message cut off): still Ray's monitor, medium.
TEST_CASE("Ray's out-of-memory remediation text alone is a medium user-space kill", "[diagnose][ray]") {
  const auto v = diagnose_texts(
      {{"job.log", "",
        "Refer to the documentation on how to address the out of memory issue: "
        "https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html. Consider provisioning more memory "
        "on this node or reducing task parallelism by requesting more CPUs per task.\n"}});
  CHECK(v.verdict == "userspace_oom_kill");
  REQUIRE(v.root);
  CHECK(v.root->confidence == culprit::diagnose::Confidence::medium);
  REQUIRE(v.culprit);
  CHECK(v.culprit->role == "job");
}

// Talos machined's OOM controller (zap console encoder: message, then the fields as JSON).
TEST_CASE("Talos's OOM controller killing a cgroup names the cgroup", "[diagnose][talos]") {
  const auto v = diagnose_texts(
      {{"console.log", "node-3",
        "user: warning: [2026-02-01T10:00:00.000000000Z]: [talos] Sending SIGKILL to cgroup {\"component\": "
        "\"controller-runtime\", \"controller\": \"runtime.OOMController\", \"cgroup\": "
        "\"/sys/fs/cgroup/kubepods/burstable/podabc\"}\n"}});
  CHECK(v.verdict == "userspace_oom_kill");
  REQUIRE(v.root);
  CHECK(v.root->summary.find("Talos") != std::string::npos);
  CHECK(v.root->summary.find("/sys/fs/cgroup/kubepods/burstable/podabc") != std::string::npos);
}

// SGLang engine.py: f"Rank {i} scheduler died during initialization (exit code: {code}). If exit code
// is -9 (SIGKILL), a common cause is the OS OOM killer. ..." — the hint is not evidence.
TEST_CASE("SGLang scheduler that died with exit code -3 is a named not-OOM failure", "[diagnose][serving]") {
  const auto v = diagnose_texts(
      {{"launch.log", "",
        "RuntimeError: Rank 0 scheduler died during initialization (exit code: -3). If exit code is -9 (SIGKILL), "
        "a common cause is the OS OOM killer. Run `dmesg -T | grep -i oom` to check.\n"}});
  CHECK(v.verdict == "not_oom");
  REQUIRE(v.root);
  CHECK(v.root->rule == "engine-failed");
  CHECK(v.root->advice.find("SIGQUIT") != std::string::npos);
}

TEST_CASE("SGLang scheduler SIGKILLed at start-up is not an engine failure of its own", "[diagnose][serving]") {
  const auto v = diagnose_texts(
      {{"launch.log", "",
        "RuntimeError: Rank 0 scheduler died during initialization (exit code: -9). If exit code is -9 (SIGKILL), "
        "a common cause is the OS OOM killer. Run `dmesg -T | grep -i oom` to check.\n"}});
  CHECK_FALSE(has_rule(v, "engine-failed"));
}

// An engine's "hit an exception" around a CUDA OOM adds nothing: the OOM is the answer.
TEST_CASE("An engine failure around a CUDA OOM stays quiet", "[diagnose][serving]") {
  const auto v = diagnose_texts(
      {{"server.log", "",
        "[2026-02-11 09:00:01 TP0] Scheduler hit an exception: Traceback (most recent call last):\n"
        "  File \"scheduler.py\", line 10, in run_scheduler_process\n"
        "    scheduler = Scheduler()\n"
        "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
        "79.10 GiB of which 1.06 GiB is free.\n"}});
  CHECK(v.verdict == "cuda_oom");
  CHECK_FALSE(has_rule(v, "engine-failed"));
}

// zsh jobs.c printjob: "[%d]  %c %ld %s  %s" — job, marker, pid, sigmsg() text, command.
TEST_CASE("zsh's background-job crash notice is a crash with its pid", "[diagnose][crash]") {
  const auto v = diagnose_texts({{"terminal.txt", "",
                                  "step 100 loss 2.31\n"
                                  "[1]    51234 segmentation fault  python train.py --epochs 90\n"}});
  CHECK(v.verdict == "not_oom");
  REQUIRE(v.victim);
  CHECK(v.victim->pid == 51234);
}

// NVML's "Failed to initialize NVML: %s" with nvmlErrorString(NVML_ERROR_LIB_RM_VERSION_MISMATCH).
TEST_CASE("NVML driver/library version mismatch is a named not-OOM cause", "[diagnose][driver]") {
  const auto v = diagnose_texts({{"smi.txt", "gpu-7",
                                  "Failed to initialize NVML: Driver/library version mismatch\n"
                                  "NVML library version: 550.127\n"}});
  CHECK(v.verdict == "not_oom");
  REQUIRE(v.root);
  CHECK(v.root->advice.find("reboot") != std::string::npos);
}

// aer.c: "%s%s error received: %04x:%02x:%02x.%d"; corrected errors are routine.
TEST_CASE("A fatal PCIe AER error is a hardware failure: a corrected one is nothing", "[diagnose][driver]") {
  const auto fatal = diagnose_texts(
      {{"dmesg.txt", "gpu-7",
        "[ 1234.567890] pcieport 0000:00:03.1: AER: Uncorrected (Fatal) error received: 0000:03:00.0\n"}});
  CHECK(fatal.verdict == "not_oom");
  REQUIRE(fatal.root);
  CHECK(fatal.root->rule == "pcie-fatal-error");
  const auto corrected = diagnose_texts(
      {{"dmesg.txt", "gpu-7",
        "[ 1234.567890] pcieport 0000:00:03.1: AER: Corrected error received: 0000:03:00.0\n"
        "[ 1234.567900] pcieport 0000:00:03.1: PCIe Bus Error: severity=Corrected, type=Physical Layer, (Receiver "
        "ID)\n"}});
  CHECK(corrected.verdict == "unknown");
}

// kubelet: fmt.Sprintf("Container %s failed %s probe, will be restarted", ...), then exit 137.
TEST_CASE("A liveness-probe restart explains exit 137 without memory", "[diagnose][probe]") {
  const auto v = diagnose_texts({{"describe.txt", "",
                                  "Events:\n"
                                  "  Normal   Killing    2m    kubelet  Container server failed liveness probe, will be "
                                  "restarted\n"}});
  CHECK(v.verdict == "not_oom");
  REQUIRE(v.root);
  CHECK(v.root->rule == "supervisor-kill");
}

// NVIDIA's driver (nv-kernel, `NVRM: Xid (PCI:%s): %d, pid=%s, name=%s, %s`): a hardware Xid
// blames the GPU on its node with a drain, never the process that was using it; an application
// Xid (13: a kernel's bad access) keeps the process.
TEST_CASE("a hardware Xid blames the GPU and drains the node: an application Xid blames the process", "[diagnose][xid]") {
  const auto hw = diagnose_texts(
      {{"dmesg.txt", "gpu-node-03",
        "[Thu Apr  9 00:47:09 2026] NVRM: Xid (PCI:0000:47:00): 48, pid=51822, name=python3, An uncorrectable double bit "
        "error (DBE) has been detected on GPU in the framebuffer at partition 0, subpartition 0.\n"}});
  CHECK(hw.verdict == "not_oom");
  REQUIRE(hw.culprit);
  CHECK_FALSE(hw.culprit->pid);
  CHECK(hw.culprit->name == "GPU 0000:47:00");
  CHECK_THAT(hw.culprit->why, Catch::Contains("hardware fault of the GPU"));
  REQUIRE_FALSE(hw.advice.empty());
  CHECK_THAT(hw.advice.front(), Catch::Contains("drain the node") && Catch::Contains("gpu-node-03") &&
                                    Catch::Contains("GPU reset"));

  const auto app = diagnose_texts(
      {{"dmesg.txt", "gpu-node-03",
        "[Thu Apr  9 00:47:09 2026] NVRM: Xid (PCI:0000:47:00): 13, pid=51822, name=python3, Graphics Exception: "
        "ESR 0x405840=0x1000000\n"}});
  REQUIRE(app.culprit);
  CHECK(app.culprit->pid == 51822);
  REQUIRE_FALSE(app.advice.empty());
  CHECK_THAT(app.advice.front(), !Catch::Contains("drain the node ("));
}

// A pressure killer's victim weighed by its own size (issue 34's policy table, "pressure
// killers"). earlyoom 1.6 (kill.c): `sending %s to process %d uid %d "%s": badness %d, VmRSS %lld
// MiB`; the kubelet (eviction_manager.go): `The node was low on resource: %v. Container %v was
// using %v, which exceeds its request of %v.`
TEST_CASE("a small victim of a pressure killer points at the others: a large one is the job", "[diagnose][killers]") {
  SECTION("earlyoom chose a 31 MiB pod by its oom_score_adj (badness above 1000)") {
    const auto v = diagnose_texts(
        {{"earlyoom.log", "k3s-1", "sending SIGTERM to process 4173 uid 0 \"metrics-server\": badness 1001, VmRSS 31 MiB\n"}});
    CHECK(v.verdict == "userspace_oom_kill");
    REQUIRE(v.culprit);
    CHECK(v.culprit->role == "foreign");
    CHECK_FALSE(v.culprit->pid);  // not the victim
    REQUIRE(v.victim);
    CHECK(v.victim->pid == 4173);
    CHECK(v.confidence == culprit::diagnose::Confidence::medium);
  }
  SECTION("earlyoom's score says the victim held most of the memory: the job, high") {
    const auto v = diagnose_texts(
        {{"earlyoom.log", "ws-1",
          "sending SIGTERM to process 7311 uid 1000 \"python3\": badness 873, VmRSS 51012 MiB\n"}});
    REQUIRE(v.culprit);
    CHECK(v.culprit->role == "job");
    CHECK(v.culprit->pid == 7311);
    CHECK(v.confidence == culprit::diagnose::Confidence::high);
  }
  SECTION("the kubelet evicted a container using 30 MiB over a request of 0: others filled the node") {
    const auto v = diagnose_texts({{"events.txt", "",
                                    "The node was low on resource: memory. Container kilo was using 30332Ki, which "
                                    "exceeds its request of 0.\n"}});
    REQUIRE(v.culprit);
    CHECK(v.culprit->role == "foreign");
    CHECK(v.confidence == culprit::diagnose::Confidence::medium);
  }
  SECTION("the kubelet evicted a container using 5 GiB: the job itself, medium (the node's size is unknown)") {
    const auto v = diagnose_texts({{"events.txt", "",
                                    "The node was low on resource: memory. Container egg was using 5053216Ki, which "
                                    "exceeds its request of 0.\n"}});
    REQUIRE(v.culprit);
    CHECK(v.culprit->role == "job");
    CHECK(v.confidence == culprit::diagnose::Confidence::medium);
  }
}

// Ray 2.x's worker-death report (WorkerExitType SYSTEM_ERROR) names the pid and three possible
// causes: the pid is the victim, the verdict stays unknown (low).
TEST_CASE("Ray's SYSTEM_ERROR worker death names the victim and leaves the cause open", "[diagnose][ray]") {
  const auto v = diagnose_texts(
      {{"driver.log", "head",
        "A worker died or was killed while executing a task by an unexpected system error. To troubleshoot the "
        "problem, check the logs for the dead worker. RayTask ID: ffffffffffffffff3a0c Worker ID: ecb9585c Node "
        "ID: ed958044 Worker IP address: 10.0.0.1 Worker port: 10074 Worker PID: 27499 Worker exit type: "
        "SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file. "
        "There are some potential root causes. (1) The process is killed by SIGKILL by OOM killer due to high "
        "memory usage. (2) ray stop --force is called. (3) The worker is crashed unexpectedly due to SIGSEGV or "
        "other unexpected errors.\n"}});
  CHECK(v.verdict == "unknown");
  CHECK(v.confidence == culprit::diagnose::Confidence::low);
  REQUIRE(v.victim);
  CHECK(v.victim->pid == 27499);
}

// Ray's memory monitor lists the node's largest memory users with its kill (1.x
// memory_monitor.py: "The top 10 memory consumers are:" then "PID\tMEM\tCOMMAND" and
// "<pid>\t<x>GiB\t<cmdline>"; 2.2+ raylet: "Top 10 memory users:" then "PID\tMEM(GB)\tCOMMAND" and
// "<pid>\t<x.xx>\t<cmdline>"): the largest is the culprit, the job's when it is a worker, actor
// or the driver, foreign when it is one of Ray's daemons or another program.
TEST_CASE("Ray's table of memory users names the largest as the culprit", "[diagnose][ray]") {
  SECTION("1.x under an actor prefix: Ray's dashboard agent held a third of the node, foreign, high") {
    const auto v = diagnose_texts(
        {{"worker.err", "",
          "(Packer pid=7001, ip=10.2.0.4) ray._private.memory_monitor.RayOutOfMemoryError: More than 95% of the "
          "memory on node trainer-2 is used (240.10 / 251.50 GB). The top 10 memory consumers are:\n"
          "(Packer pid=7001, ip=10.2.0.4) \n"
          "(Packer pid=7001, ip=10.2.0.4) PID\tMEM\tCOMMAND\n"
          "(Packer pid=7001, ip=10.2.0.4) 9120\t90.25GiB\t/usr/bin/python3 -u "
          "/usr/lib/python3.9/site-packages/ray/dashboard/agent.py --node-ip-address=10.2.0.4\n"
          "(Packer pid=7001, ip=10.2.0.4) 9100\t2.10GiB\t/usr/lib/python3.9/site-packages/ray/core/src/ray/raylet/raylet\n"
          "(Packer pid=7001, ip=10.2.0.4) 9300\t1.05GiB\tray::Packer\n"}});
    CHECK(v.verdict == "userspace_oom_kill");
    REQUIRE(v.culprit);
    CHECK(v.culprit->role == "foreign");
    CHECK(v.culprit->pid == 9120);
    CHECK(v.culprit->why.find("Ray's dashboard agent (pid 9120), cluster infrastructure, not the job's code, held "
                              "90.25 GiB of the node's 251.50 GiB (the next largest 2.10 GiB)") != std::string::npos);
    REQUIRE(v.victim);
    CHECK(v.victim->pid == 7001);
    CHECK(v.victim->name == "Packer");
    CHECK(v.confidence == culprit::diagnose::Confidence::high);
  }
  SECTION("0.x GB rows: the largest is the job's trainer, near its rollout workers: job, medium") {
    const auto v = diagnose_texts(
        {{"driver.txt", "",
          "ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node Local is used (30.10 / "
          "31.20 GB). The top 5 memory consumers are:\n"
          "\n"
          "PID\tMEM\tCOMMAND\n"
          "2201\t9.1GB\tray_Learner:train()\n"
          "2202\t6.0GB\tray_RolloutWorker\n"
          "2203\t5.9GB\tray_RolloutWorker:sample()\n"
          "\n"
          "In addition, ~2.1 GB of shared memory is currently being used by the Ray object store.\n"}});
    CHECK(v.verdict == "userspace_oom_kill");
    REQUIRE(v.culprit);
    CHECK(v.culprit->role == "job");
    CHECK(v.culprit->pid == 2201);
    CHECK(v.culprit->name == "ray_Learner:train()");
    CHECK(v.confidence == culprit::diagnose::Confidence::medium);
  }
  SECTION("2.2+: the newest task was killed; another of the job's workers held most: job, high") {
    const auto v = diagnose_texts(
        {{"driver.log", "head",
          "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\n"
          "Memory on the node (IP: 10.0.0.5, ID: 4f2c91) where the task (task ID: 16310a0f, name=Shard.run, "
          "pid=4410, memory used=1.20GB) was running was 58.90GB / 62.00GB (0.95), which exceeds the memory usage "
          "threshold of 0.95. Ray killed this worker (ID: 6f2d) because it was the most recently scheduled task. "
          "Top 10 memory users:\n"
          "PID\tMEM(GB)\tCOMMAND\n"
          "4402\t40.12\tray::Shard.load\n"
          "4410\t1.20\tray::Shard.run\n"
          "2001\t0.81\t/usr/lib/python3.11/site-packages/ray/core/src/ray/raylet/raylet\n"}});
    CHECK(v.verdict == "userspace_oom_kill");
    REQUIRE(v.culprit);
    CHECK(v.culprit->role == "job");
    CHECK(v.culprit->pid == 4402);
    REQUIRE(v.victim);
    CHECK(v.victim->pid == 4410);
    CHECK(v.confidence == culprit::diagnose::Confidence::high);
  }
  SECTION("2.2+: another program held the most: foreign, medium") {
    const auto v = diagnose_texts(
        {{"driver.log", "head",
          "Memory on the node (IP: 10.0.0.5, ID: 4f2c91) where the task (task ID: 16310a0f, name=Shard.run, "
          "pid=4410, memory used=2.20GB) was running was 58.90GB / 62.00GB (0.95), which exceeds the memory usage "
          "threshold of 0.95. Ray killed this worker (ID: 6f2d) because it was the most recently scheduled task. "
          "Top 10 memory users:\n"
          "PID\tMEM(GB)\tCOMMAND\n"
          "3100\t30.50\t/usr/sbin/mysqld --datadir=/var/lib/mysql\n"
          "4410\t2.20\tray::Shard.run\n"}});
    REQUIRE(v.culprit);
    CHECK(v.culprit->role == "foreign");
    CHECK(v.culprit->pid == 3100);
    CHECK(v.culprit->why.find("another program, not the Ray job,") != std::string::npos);
    CHECK(v.confidence == culprit::diagnose::Confidence::medium);
  }
  SECTION("the driver script held the most: job, medium") {
    const auto v = diagnose_texts(
        {{"driver.log", "head",
          "Memory on the node (IP: 10.0.0.5, ID: 4f2c91) where the task (task ID: 16310a0f, name=Shard.run, "
          "pid=4410, memory used=2.20GB) was running was 58.90GB / 62.00GB (0.95), which exceeds the memory usage "
          "threshold of 0.95. Ray killed this worker (ID: 6f2d) because it was the most recently scheduled task. "
          "Top 10 memory users:\n"
          "PID\tMEM(GB)\tCOMMAND\n"
          "3000\t45.00\tpython3 run_pipeline.py --input s3://bucket/data\n"
          "4410\t2.20\tray::Shard.run\n"}});
    REQUIRE(v.culprit);
    CHECK(v.culprit->role == "job");
    CHECK(v.culprit->pid == 3000);
    CHECK(v.confidence == culprit::diagnose::Confidence::medium);
  }
}

// PyTorch's DataLoader: the worker's own SIGBUS handler prints the shm hint without a pid
// (torch/utils/data/_utils/signal_handling.py, "ERROR: Unexpected bus error encountered in
// worker. This might be caused by insufficient shared memory (shm)."), then the main process
// raises "DataLoader worker (pid %d) is killed by signal: %s." — the victim is that worker.
TEST_CASE("a refused shared-memory write names the worker whose death follows it", "[diagnose][host]") {
  const auto v = diagnose_texts(
      {{"train.log", "node-1",
        "ERROR: Unexpected bus error encountered in worker. This might be caused by insufficient shared memory (shm).\n"
        "Traceback (most recent call last):\n"
        "  File \"/opt/conda/lib/python3.6/site-packages/torch/utils/data/_utils/signal_handling.py\", line 63, in handler\n"
        "    _error_if_any_worker_fails()\n"
        "RuntimeError: DataLoader worker (pid 325) is killed by signal: Bus error.\n"}});
  CHECK(v.verdict == "host_alloc_fail");
  REQUIRE(v.victim);
  CHECK(v.victim->pid == 325);
}
