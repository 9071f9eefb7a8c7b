// core::ask_thread_heap_huge_pages: the heap a thread grows into is marked for huge pages (the
// kernel's VmFlags `hg`), and the mark stays inside the thread's own heap reservation.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "culprit/core/address_sanitizer.hpp"
#include "culprit/core/huge_pages.hpp"

namespace {

/// The mapping of /proc/self/smaps that holds `address`: its bounds and its VmFlags line.
struct Mapping {
  std::uintptr_t start = 0, end = 0;
  std::string flags;
};

Mapping mapping_of(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  Mapping found, current;
  bool in = false;
  while (std::getline(smaps, line)) {
    unsigned long long start = 0, end = 0;
    if (std::sscanf(line.c_str(), "%llx-%llx ", &start, &end) == 2 && line.find(':') > line.find(' ')) {
      in = start <= at && at < end;
      current = {static_cast<std::uintptr_t>(start), static_cast<std::uintptr_t>(end), {}};
    } else if (in && line.rfind("VmFlags:", 0) == 0) {
      current.flags = line + " ";
      found = current;
    }
  }
  return found;
}

bool has_flag(const Mapping& m, const char* flag) { return m.flags.find(std::string(" ") + flag + " ") != std::string::npos; }

bool transparent_huge_pages() { return std::ifstream("/sys/kernel/mm/transparent_hugepage/enabled").good(); }

}  // namespace

TEST_CASE("huge pages: a thread's heap is asked for huge pages ahead of its growth, within its reservation", "[core]") {
#if !defined(__GLIBC__) || CULPRIT_ADDRESS_SANITIZER
  SUCCEED("only glibc's own heap is laid out as the hint assumes (AddressSanitizer's allocator replaces it)");
#else
  constexpr std::uintptr_t kHeapReservation = std::uintptr_t{64} << 20;
  Mapping grown;
  std::uintptr_t block_at = 0;
  bool allocated = true;
  std::thread worker([&] {  // an arena of its own, as a scan's incident has (no Catch macro here)
    culprit::core::ask_thread_heap_huge_pages();
    // 8 MiB in 64 KiB blocks (under glibc's default mmap threshold: from the arena's heap), the
    // last one written past the first 2 MiB stretch the hint began in.
    std::vector<void*> blocks;
    for (int i = 0; i < 128; ++i) {
      blocks.push_back(std::malloc(64 << 10));
      if (blocks.back() == nullptr) allocated = false;
    }
    if (allocated) {
      std::memset(blocks.back(), 1, 64 << 10);
      block_at = reinterpret_cast<std::uintptr_t>(blocks.back());
      grown = mapping_of(blocks.back());
    }
    for (void* b : blocks) std::free(b);
  });
  worker.join();
  REQUIRE(allocated);
  INFO("block at " << std::hex << block_at << ", mapping " << grown.start << "-" << grown.end << ": " << grown.flags);
  REQUIRE(!grown.flags.empty());
  if (transparent_huge_pages()) CHECK(has_flag(grown, "hg"));
  // Never past the 64 MiB-aligned reservation the block's heap lies in (nor before its stretch).
  const std::uintptr_t reservation = block_at & ~(kHeapReservation - 1);
  CHECK(grown.end <= reservation + kHeapReservation);
  CHECK(grown.start >= reservation);
#endif
}
