// How a job `culprit run` started ended, as the report says it: the folder's manifest (written
// by manifest_json, as the run writes it) becomes a job_end event that rules/diagnoses/
// job_end.toml reads, beside the job's recorded output and the node's kernel log. Each story is a
// node folder held in memory: `run/gpu-7/culprit-snapshot.json`, `job.stderr.log`, `dmesg.txt`.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "culprit/api/snapshot_manifest.hpp"
#include "culprit/culprit.hpp"
#include "unit/api/api_samples.hpp"

namespace {

using culprit::api::iso_utc;

constexpr double kStarted = 1775695000;  // 2026-04-09T00:36:40Z
constexpr double kEnded = kStarted + 60;
constexpr std::int64_t kPid = 40211;
const std::string kFolder = "run/gpu-7/";

struct End {
  int exit_code = -1;
  int signal = 0;
  std::string kernel_log = "ok";
  std::vector<std::string> command = {"python3", "train.py"};
};

/// The manifest `culprit run` writes for a job that ended as `end` says.
std::string manifest(const End& end) {
  culprit::api::Manifest m;
  m.made_by = "culprit run";
  m.host = "gpu-7";
  m.taken = kEnded + 3;
  culprit::api::JobRecord job;
  job.pid = kPid;
  job.user = "alice";
  job.started = kStarted;
  job.ended = kEnded;
  job.command = end.command;
  job.exit_code = end.exit_code;
  job.signal = end.signal;
  m.job = job;
  m.kernel_log = end.kernel_log;
  m.tools = {{"dmesg", end.kernel_log == "ok" ? "dmesg.txt" : "", end.kernel_log.empty() ? "ok" : end.kernel_log, ""}};
  return culprit::api::manifest_json(m);
}

/// A line as the run records the job's output: its arrival stamp, then the line.
std::string recorded(double at, const std::string& line) { return iso_utc(at, true) + " " + line + "\n"; }

/// A kernel log line as `dmesg --time-format iso` prints it.
std::string kernel(double at, const std::string& line) {
  std::string stamp = iso_utc(at, true);  // 2026-04-09T00:36:50.000000Z → 2026-04-09T00:36:50,000000+00:00
  stamp.replace(stamp.find('.'), 1, ",");
  stamp.replace(stamp.size() - 1, 1, "+00:00");
  return stamp + " " + line + "\n";
}

/// A kernel log of the job's time with nothing about memory in it.
std::string quiet_kernel_log() {
  return kernel(kStarted + 2, "nvidia-uvm: Loaded the UVM driver, major device number 510.") +
         kernel(kStarted + 30, "IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready");
}

culprit::Analysis analyze(const End& end, const std::string& stderr_text, const std::string& dmesg = quiet_kernel_log()) {
  std::vector<culprit::Input> inputs = {culprit::Input::memory(manifest(end), "gpu-7", kFolder + "culprit-snapshot.json")};
  if (!stderr_text.empty()) inputs.push_back(culprit::Input::memory(stderr_text, "gpu-7", kFolder + "job.stderr.log"));
  if (!dmesg.empty()) inputs.push_back(culprit::Input::memory(dmesg, "gpu-7", kFolder + "dmesg.txt"));
  auto analysis = culprit::analyze(inputs, {}, culprit::test::builtin_rules());
  REQUIRE(analysis);
  return *analysis;
}

const std::string& root_rule(const culprit::Analysis& a) {
  static const std::string none;
  return a.verdict.root ? a.verdict.root->rule : none;
}

bool cites(const culprit::Analysis& a, const std::string& source, std::int64_t line) {
  return std::any_of(a.verdict.evidence.begin(), a.verdict.evidence.end(),
                     [&](const auto& e) { return e.source == kFolder + source && e.line == line; });
}

bool has_rule(const culprit::Analysis& a, const std::string& rule) {
  const auto& f = a.verdict.findings;
  return std::any_of(f.begin(), f.end(), [&](const auto& x) { return x.rule == rule; });
}

}  // namespace

TEST_CASE("run: SIGKILL with the kernel log read and no OOM kill in it is not the kernel OOM killer", "[api][run]") {
  End end;
  end.signal = 9;
  const auto a = analyze(end, recorded(kStarted + 5, "epoch 0 step 10: loss 2.31"));
  CHECK(a.verdict.verdict == "not_oom");
  CHECK(root_rule(a) == "run-sigkill-not-kernel-oom");
  CHECK(a.verdict.summary.find("The job python3 (pid 40211) on gpu-7 was killed by SIGKILL, and not by the kernel OOM "
                               "killer") == 0);
  CHECK(a.verdict.summary.find("from user space") != std::string::npos);
  CHECK(cites(a, "culprit-snapshot.json", 7));  // the job's record in the manifest
  CHECK(a.verdict.victim);
  // The manifest is a source of the report, read as culprit's own snapshot.
  CHECK(std::any_of(a.verdict.sources.begin(), a.verdict.sources.end(),
                    [](const auto& s) { return s.format == "culprit_snapshot"; }));
}

TEST_CASE("run: SIGKILL where the kernel log could not be read leaves the kernel OOM killer possible", "[api][run]") {
  End end;
  end.signal = 9;
  end.kernel_log = "refused";
  const auto a = analyze(end, recorded(kStarted + 5, "epoch 0 step 10: loss 2.31"), "");
  CHECK(a.verdict.verdict == "kernel_oom");
  CHECK(a.verdict.confidence == culprit::diagnose::Confidence::low);
  CHECK(root_rule(a) == "run-sigkill-kernel-log-unread");
  CHECK(a.verdict.summary.find("could not be read (reading it was refused") != std::string::npos);
  CHECK(a.verdict.summary.find("cannot be ruled out") != std::string::npos);
}

TEST_CASE("run: SIGKILL with the kernel's OOM kill of the job in the kernel log is a kernel OOM", "[api][run]") {
  End end;
  end.signal = 9;
  const std::string dmesg =
      quiet_kernel_log() +
      kernel(kEnded - 1, "Out of memory: Killed process 40211 (python3) total-vm:160495084kB, anon-rss:60044008kB, "
                         "file-rss:84000kB, shmem-rss:8192kB, UID:1000 pgtables:121930kB oom_score_adj:0");
  const auto a = analyze(end, recorded(kStarted + 5, "epoch 0 step 10: loss 2.31"), dmesg);
  CHECK(a.verdict.verdict == "kernel_oom");
  CHECK_FALSE(has_rule(a, "run-sigkill-not-kernel-oom"));
}

// torchrun's launcher reports its rank's SIGKILL and exits 1 (torch/distributed/elastic): the
// kernel log the run read rules the kernel OOM killer out for the rank too.
TEST_CASE("run: a rank's SIGKILL the launcher reports is not a kernel OOM where the kernel log was read", "[api][run]") {
  End end;
  end.exit_code = 1;
  end.command = {"torchrun", "--nproc-per-node=2", "train.py"};
  const std::string out =
      recorded(kStarted + 50, "WARNING:torch.distributed.elastic.multiprocessing.api:Sending process 83412 closing "
                              "signal SIGTERM") +
      recorded(kStarted + 51, "ERROR:torch.distributed.elastic.multiprocessing.api:failed (exitcode: -9) local_rank: 0 "
                              "(pid: 83411) of binary: /usr/bin/python3");
  const auto a = analyze(end, out);
  CHECK(a.verdict.verdict == "not_oom");
  CHECK_FALSE(has_rule(a, "sigkill-without-kernel-evidence"));
  CHECK(has_rule(a, "run-sigkill-not-kernel-oom"));
}

TEST_CASE("run: SIGTERM is a stop from outside, not an OOM", "[api][run]") {
  End end;
  end.signal = 15;
  const auto a = analyze(end, recorded(kStarted + 5, "epoch 0 step 10: loss 2.31"));
  CHECK(a.verdict.verdict == "not_oom");
  CHECK(root_rule(a) == "run-stopped-by-signal");
  CHECK(a.verdict.summary ==
        "The job python3 (pid 40211) on gpu-7 was stopped by SIGTERM, a stop from outside the job (a scheduler, a "
        "supervisor or a user); nothing in the inputs says it ran out of memory.");
}

TEST_CASE("run: a crash signal is fatal-signal's", "[api][run]") {
  End end;
  end.signal = 11;
  const auto a = analyze(end, "");
  CHECK(a.verdict.verdict == "not_oom");
  CHECK(root_rule(a) == "fatal-signal");
  CHECK(a.verdict.summary.find("crashed with SIGSEGV") != std::string::npos);
}

TEST_CASE("run: exit 1 says so with the job's last lines, cited by file and line", "[api][run]") {
  End end;
  end.exit_code = 1;
  const std::string err = recorded(kStarted + 5, "loading shard 3 of 8") + recorded(kStarted + 6, "") +
                          recorded(kStarted + 7, "step 3 failed: checksum mismatch in shard-00003.bin");
  const auto a = analyze(end, err);
  CHECK(a.verdict.verdict == "not_oom");
  CHECK(root_rule(a) == "run-exit-status");
  CHECK(a.verdict.summary ==
        "The job python3 (pid 40211) on gpu-7 exited 1: step 3 failed: checksum mismatch in shard-00003.bin");
  CHECK(cites(a, "job.stderr.log", 3));
  CHECK(cites(a, "job.stderr.log", 1));
  CHECK_FALSE(cites(a, "job.stderr.log", 2));  // a blank line is no evidence
  REQUIRE(a.verdict.culprit);
  CHECK(a.verdict.culprit->role == "job");
}

TEST_CASE("run: exit 1 after a traceback: the exception is the answer", "[api][run]") {
  End end;
  end.exit_code = 1;
  const std::string err = recorded(kStarted + 5, "Traceback (most recent call last):") +
                          recorded(kStarted + 5, "  File \"/opt/job/train.py\", line 12, in <module>") +
                          recorded(kStarted + 5, "    cfg = load(args.config)") +
                          recorded(kStarted + 5, "FileNotFoundError: [Errno 2] No such file or directory: 'cfg.yaml'");
  const auto a = analyze(end, err);
  CHECK(a.verdict.verdict == "not_oom");
  CHECK(root_rule(a) == "uncaught-exception");
  CHECK(has_rule(a, "run-exit-status"));  // an echo of it
}

TEST_CASE("run: exit 1 after a CUDA OOM: the CUDA OOM stays the answer", "[api][run]") {
  End end;
  end.exit_code = 1;
  std::string err;
  for (const char* line : {"Traceback (most recent call last):", "  File \"/opt/job/train.py\", line 41, in <module>",
                           "    loss = model(batch).sum()"})
    err += recorded(kStarted + 5, line);
  std::string oom = culprit::test::kTorchOom;
  oom = oom.substr(oom.find("torch.OutOfMemoryError"));
  err += recorded(kStarted + 5, oom.substr(0, oom.size() - 1));
  const auto a = analyze(end, err);
  CHECK(a.verdict.verdict == "cuda_oom");
}

TEST_CASE("run: a job that exited 0 gives no finding", "[api][run]") {
  End end;
  end.exit_code = 0;
  const auto a = analyze(end, recorded(kStarted + 5, "training finished"));
  CHECK(a.verdict.verdict == "unknown");
  CHECK(a.verdict.findings.empty());
}
