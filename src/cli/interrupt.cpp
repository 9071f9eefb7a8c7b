// Signal handling for clean interruption. The handler is async-signal-safe: it reads a fixed
// table of registered paths (published with atomics), calls only unlink(2), write(2),
// signal(2) and raise(3), and formats series numbers by hand.
#include "cli/interrupt.hpp"

#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstring>

namespace culprit::cli {
namespace {

constexpr int kSlots = 32;
constexpr std::size_t kPathMax = 4096;

enum SlotState : int { kFree = 0, kWriting = 1, kReady = 2 };

struct Slot {
  std::atomic<int> state{kFree};
  std::size_t series = 0;
  char path[kPathMax] = {};
};

Slot g_slots[kSlots];
std::atomic<bool> g_installed{false};

void remove_slot(const Slot& slot) {
  if (slot.series == 0) {
    ::unlink(slot.path);
    return;
  }
  char buf[kPathMax + 24];
  const std::size_t len = std::strlen(slot.path);  // strlen is async-signal-safe since POSIX.1-2016
  std::memcpy(buf, slot.path, len);
  for (std::size_t i = 0; i < slot.series; ++i) {
    char digits[24];
    int n = 0;
    std::size_t v = i;
    do {
      digits[n++] = static_cast<char>('0' + v % 10);
      v /= 10;
    } while (v > 0);
    std::size_t at = len;
    while (n > 0) buf[at++] = digits[--n];
    buf[at] = '\0';
    ::unlink(buf);
  }
}

extern "C" void on_interrupt(int sig) {
  for (auto& slot : g_slots)
    if (slot.state.load(std::memory_order_acquire) == kReady) remove_slot(slot);
  static const char kMessage[] = "culprit: interrupted; no output written (temporary files removed)\n";
  [[maybe_unused]] const auto written = ::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  std::signal(sig, SIG_DFL);
  std::raise(sig);
}

}  // namespace

void install_interrupt_handlers() {
  if (g_installed.exchange(true)) return;
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  sigaddset(&sa.sa_mask, SIGINT);
  sigaddset(&sa.sa_mask, SIGTERM);
  sigaddset(&sa.sa_mask, SIGHUP);
  sa.sa_flags = SA_RESETHAND;  // a second Ctrl-C during cleanup kills at once
  for (int sig : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    // An ignored signal stays ignored (nohup, a shell's background job).
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
}

TempFileGuard::TempFileGuard(const std::string& path, std::size_t series) {
  if (path.size() + 1 > kPathMax) return;
  for (int i = 0; i < kSlots; ++i) {
    int expected = kFree;
    if (!g_slots[i].state.compare_exchange_strong(expected, kWriting)) continue;
    std::memcpy(g_slots[i].path, path.c_str(), path.size() + 1);
    g_slots[i].series = series;
    g_slots[i].state.store(kReady, std::memory_order_release);
    slot_ = i;
    return;
  }
}

TempFileGuard::~TempFileGuard() {
  if (slot_ >= 0) g_slots[slot_].state.store(kFree, std::memory_order_release);
}

}  // namespace culprit::cli
