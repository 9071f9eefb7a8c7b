// The cores several incidents read at once share (`culprit scan`): an incident's big pieces are
// parsed beside its reading only on a core no other incident is using.
#pragma once

#include <atomic>

namespace culprit::core {

/// A count of free cores, taken and given back by any thread. `culprit scan` makes one of its
/// `--jobs` cores, each worker takes one to read its incidents on and gives it back when it has
/// no incident left; an incident takes a free one at each big source (up to all but the one it
/// reads on), parses beside its reading with them, and gives them back when its reading ends
/// (api::ingest_sources). So incidents running side by side read on their own cores, and one
/// left alone takes up those the others freed: a scan's last incident no longer runs on one core
/// while the rest idle.
class CoreShare {
 public:
  /// `cores` cores, all free (at least one).
  explicit CoreShare(int cores) : cores_(cores < 1 ? 1 : cores), free_(cores_) {}
  /// The cores shared: the most ever taken at once.
  int cores() const { return cores_; }
  /// Takes a free core: true, or false where none is free (never waits).
  bool try_take() {
    int n = free_.load(std::memory_order_relaxed);
    while (n > 0)
      if (free_.compare_exchange_weak(n, n - 1, std::memory_order_acq_rel, std::memory_order_relaxed)) return true;
    return false;
  }
  /// Gives back a core taken.
  void give_back() { free_.fetch_add(1, std::memory_order_acq_rel); }
  /// The cores free now (a moment's answer: other threads take and give).
  int free() const { return free_.load(std::memory_order_acquire); }

 private:
  int cores_;
  std::atomic<int> free_;
};

}  // namespace culprit::core
