// core::give_back_free_heap: the pages of the heap's free blocks go back to the system.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <thread>
#include <vector>

#include "culprit/core/address_sanitizer.hpp"
#include "culprit/core/free_heap.hpp"

namespace {

/// This process's resident bytes (/proc/self/statm's second field, in pages).
std::size_t resident_bytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
}

}  // namespace

TEST_CASE("free heap: the pages of blocks freed between live ones go back to the system", "[core]") {
#if !defined(__GLIBC__) || CULPRIT_ADDRESS_SANITIZER
  SUCCEED("only glibc's own heap is trimmed (AddressSanitizer's allocator replaces it)");
#else
  // 64 MiB in 16 KiB blocks, written, then every other one freed: the free blocks lie between
  // live ones, where freeing alone never unmaps them (only a free top is trimmed on free).
  constexpr std::size_t kBlock = 16 << 10;
  constexpr std::size_t kBlocks = 4096;
  std::size_t before = 0, after = 0;
  bool allocated = true;
  std::thread worker([&] {  // an arena of its own, as a scan's incident has (no Catch macro here)
    std::vector<char*> blocks;
    for (std::size_t i = 0; i < kBlocks; ++i) {
      blocks.push_back(static_cast<char*>(std::malloc(kBlock)));
      if (blocks.back() == nullptr) {
        allocated = false;
        for (char* b : blocks) std::free(b);
        return;
      }
      std::memset(blocks.back(), 1, kBlock);
    }
    for (std::size_t i = 0; i < kBlocks; i += 2) std::free(blocks[i]);
    before = resident_bytes();
    culprit::core::give_back_free_heap();
    after = resident_bytes();
    for (std::size_t i = 1; i < kBlocks; i += 2) std::free(blocks[i]);
  });
  worker.join();
  REQUIRE(allocated);
  INFO("resident before " << before << ", after " << after);
  // 32 MiB freed: at least half of it given back (a block's partial pages stay).
  CHECK(before > after);
  CHECK(before - after >= (kBlock * kBlocks) / 4);
#endif
}
