// Running other programs: a command with its output captured and a time-out (the snapshot's
// nvidia-smi, ps, dmesg, ssh), and the job of `culprit run` started with pipes for its output.
// posix_spawn (safe next to threads: `collect` runs hosts in parallel), every pipe end close-on-exec
// so one child never holds another's pipe open, each child in a process group of its own so a
// time-out kills what it started too.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <string>
#include <vector>

namespace culprit::cli {

/// What a captured command did. `started` false: it could not be run at all (`error` says why).
struct CommandResult {
  bool started = false;
  bool timed_out = false;
  int exit_code = -1;  ///< when it exited (-1 when killed by a signal or not started)
  int signal = 0;      ///< the signal that ended it (0 when it exited)
  std::string out, err;
  std::string error;
  bool ok() const { return started && !timed_out && signal == 0 && exit_code == 0; }
};

struct CaptureOptions {
  double timeout_s = 10;
  std::string stdin_text;                    ///< written to its standard input (a pipe), which is then closed;
                                             ///< empty: the child reads end-of-file at once
  std::vector<std::string> extra_env;        ///< `KEY=VALUE` entries set over the inherited environment
  std::size_t max_bytes = 64u << 20;         ///< standard output; more is read and dropped
  std::size_t max_err_bytes = 64u << 20;     ///< standard error; the same
};

/// Runs `argv` (argv[0] looked up on PATH), waits for it at most `timeout_s` (then SIGKILL to its
/// process group) and returns its output. Never throws for a failing command.
CommandResult run_capture(const std::vector<std::string>& argv, const CaptureOptions& options = {});

/// A started child whose standard output and error are pipes (read ends here, non-blocking).
struct SpawnedChild {
  pid_t pid = -1;  ///< also its process group id
  int out_fd = -1, err_fd = -1;
  std::string error;  ///< why it did not start (pid -1)
};

/// Starts `argv` in a new process group with the inherited environment and standard input.
SpawnedChild spawn_with_pipes(const std::vector<std::string>& argv);

/// The environment with `extra` (`KEY=VALUE`) entries replacing or adding to it.
std::vector<std::string> environment_with(const std::vector<std::string>& extra);

}  // namespace culprit::cli
