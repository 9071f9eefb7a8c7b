// The Linux signal numbers 1-31 (asm-generic/signal.h, x86 and arm64 alike).
#include "culprit/core/signal_name.hpp"

#include <array>

namespace culprit::core {

std::string_view signal_name(int linux_signal) {
  static constexpr std::array<std::string_view, 32> kNames = {
      "",        "SIGHUP",  "SIGINT",    "SIGQUIT", "SIGILL",  "SIGTRAP", "SIGABRT", "SIGBUS",
      "SIGFPE",  "SIGKILL", "SIGUSR1",   "SIGSEGV", "SIGUSR2", "SIGPIPE", "SIGALRM", "SIGTERM",
      "SIGSTKFLT", "SIGCHLD", "SIGCONT", "SIGSTOP", "SIGTSTP", "SIGTTIN", "SIGTTOU", "SIGURG",
      "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH", "SIGIO", "SIGPWR",  "SIGSYS"};
  if (linux_signal <= 0 || linux_signal >= static_cast<int>(kNames.size())) return {};
  return kNames[static_cast<std::size_t>(linux_signal)];
}

}  // namespace culprit::core
