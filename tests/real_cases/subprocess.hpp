// Run one command (argv, no shell) with a wall-clock limit and collect its standard output and
// the tail of its standard error. The real-case runner uses it so that a case that crashes or
// hangs culprit is reported as such instead of taking the runner down or stalling ctest.
#pragma once

#include <string>
#include <vector>

namespace real_cases {

struct Outcome {
  bool timed_out = false;  // killed (SIGKILL) after the limit
  int exit_code = -1;      // the exit status when it exited normally, else -1
  int signal = 0;          // the signal that ended it, else 0
  std::string out;         // everything it wrote on stdout
  std::string err;         // everything it wrote on stderr
};

/// Runs argv[0] (looked up in PATH) with argv, stdin from /dev/null, and waits at most
/// `timeout_seconds`. Never throws for the child's failures; an exec failure reads as exit 127.
Outcome run_command(const std::vector<std::string>& argv, double timeout_seconds);

}  // namespace real_cases
