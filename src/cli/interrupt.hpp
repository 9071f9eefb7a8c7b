// Clean interruption: Ctrl-C (SIGINT), SIGTERM and SIGHUP remove the temporary files the run
// has registered and end the process, so an interrupted run leaves no partial output and
// every existing output file (renamed into place only at the end) intact.
#pragma once

#include <cstddef>
#include <string>

namespace culprit::cli {

/// Installs the handlers (once; later calls do nothing). The handler only unlinks registered
/// paths, writes one line to stderr and re-raises the signal with its default action, so the
/// exit status says "killed by SIGINT" (130 in a shell).
void install_interrupt_handlers();

/// A temporary path the handler removes if the run is interrupted while it is registered.
/// With `series` N > 0 the guard covers `path` followed by 0 … N-1 (`out.part-7-0`, …).
/// Registration ends with the guard: destroy it once the file is renamed or removed.
class TempFileGuard {
 public:
  explicit TempFileGuard(const std::string& path, std::size_t series = 0);
  ~TempFileGuard();
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace culprit::cli
