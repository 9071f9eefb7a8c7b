// rules/diagnoses/crashes.toml `worker-exit`: a worker that exited with a status, whose own error
// is not in the inputs, said from torchrun's lines. Its query starts from two rules of two kinds
// (`kinds`, `event_rules`): torchrun's api.py line (a `log` event of signal
// torchrun_worker_failed) and the launcher's ChildFailedError entry (the app-log parser's
// torchrun_child_failed: `log` for an exit status, `signal_exit` for a signal). Lines in
// torch/distributed/elastic/multiprocessing/api.py and errors/__init__.py's format.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

#include "unit/diagnose/diagnose_support.hpp"

namespace worker_exit_tests {

namespace {

const char* const kNoTraceback =
    "  traceback : To enable traceback see: https://pytorch.org/docs/stable/elastic/errors.html\n";

const char* const kApiLine =
    "E0409 00:47:11.402000 3104391 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: 1) "
    "local_rank: 1 (pid: 40578) of binary: /usr/bin/python3\n";

/// The launcher's summary of one failed rank; `exit_line` and `traceback_line` as torch writes them
/// for an exit status (the errors page) or a signal (`Signal 9 (SIGKILL) received by PID …`).
std::string child_failed(const std::string& exit_line, const std::string& traceback_line) {
  return "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
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
         "  rank      : 5 (local_rank: 1)\n" +
         exit_line +
         "  error_file: <N/A>\n" +
         traceback_line +
         "============================================================\n";
}

bool said(const culprit::diagnose::Verdict& v, const std::string& rule) {
  return std::any_of(v.findings.begin(), v.findings.end(), [&](const auto& f) { return f.rule == rule; });
}

}  // namespace

TEST_CASE("worker-exit: torchrun's line of a worker's exit status, alone", "[diagnose]") {
  const auto v = culprit::test::diagnose_texts({{"train.log", "gpu-node-12", kApiLine}});
  REQUIRE(said(v, "worker-exit"));
  CHECK(v.verdict == "not_oom");
}

TEST_CASE("worker-exit: the launcher's ChildFailedError entry of an exit status", "[diagnose]") {
  const auto v = culprit::test::diagnose_texts(
      {{"launcher.log", "gpu-node-12", child_failed("  exitcode  : 1 (pid: 40578)\n", kNoTraceback)}});
  CHECK(said(v, "worker-exit"));
}

TEST_CASE("worker-exit: not for a signal, nor where the worker's own error is in the inputs", "[diagnose]") {
  // Killed by a signal: a signal_exit of torchrun_child_failed with no exit status.
  const std::string killed = child_failed("  exitcode  : -9 (pid: 40578)\n",
                                          "  traceback : Signal 9 (SIGKILL) received by PID 40578\n");
  CHECK_FALSE(said(culprit::test::diagnose_texts({{"launcher.log", "gpu-node-12", killed}}), "worker-exit"));
  // The rank's own traceback on that host says why.
  const std::string traceback =
      "Traceback (most recent call last):\n"
      "  File \"/app/train.py\", line 12, in <module>\n"
      "    main()\n"
      "ValueError: bad config\n";
  CHECK_FALSE(said(culprit::test::diagnose_texts({{"train.log", "gpu-node-12", traceback + kApiLine}}), "worker-exit"));
}

}  // namespace worker_exit_tests
