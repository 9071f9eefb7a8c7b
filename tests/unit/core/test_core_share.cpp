// core::CoreShare: a count of free cores that threads take without waiting and give back.
#include <catch2/catch.hpp>

#include <atomic>
#include <thread>
#include <vector>

#include "culprit/core/core_share.hpp"

using culprit::core::CoreShare;

TEST_CASE("core share: cores are taken while free, then refused, and come back when given", "[core]") {
  CoreShare share(3);
  CHECK(share.cores() == 3);
  CHECK(share.try_take());
  CHECK(share.try_take());
  CHECK(share.try_take());
  CHECK(share.free() == 0);
  CHECK_FALSE(share.try_take());  // none free: refused, the count stays at 0
  CHECK(share.free() == 0);
  share.give_back();
  CHECK(share.free() == 1);
  CHECK(share.try_take());
  CHECK_FALSE(share.try_take());
  // A share of no cores still has one (scan's --jobs is at least 1).
  CHECK(CoreShare(0).cores() == 1);
}

TEST_CASE("core share: threads taking at once never hold more cores than there are", "[core]") {
  constexpr int kCores = 3;
  CoreShare share(kCores);
  std::atomic<int> held{0}, most{0};
  std::atomic<bool> over{false};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&] {
      for (int i = 0; i < 20000; ++i) {
        if (!share.try_take()) continue;
        const int now = held.fetch_add(1) + 1;
        if (now > kCores) over = true;
        int seen = most.load();
        while (now > seen && !most.compare_exchange_weak(seen, now)) {
        }
        held.fetch_sub(1);
        share.give_back();
      }
    });
  for (auto& t : threads) t.join();
  CHECK_FALSE(over);
  CHECK(most.load() >= 1);
  CHECK(share.free() == kCores);  // every core taken was given back
}
