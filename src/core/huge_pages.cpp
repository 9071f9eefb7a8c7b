// ask_huge_pages (see huge_pages.hpp).
#include "culprit/core/huge_pages.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>  // defines __GLIBC__ where the C library is glibc

#include "culprit/core/address_sanitizer.hpp"

namespace culprit::core {
namespace {

constexpr std::uintptr_t kHugePage = std::uintptr_t{2} << 20;

}  // namespace

void ask_huge_pages(void* data, std::size_t bytes) {
  const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(data) % kHugePage;
  const std::size_t skip = misaligned == 0 ? 0 : kHugePage - misaligned;
  if (bytes < skip + kHugePage) return;
#ifdef MADV_HUGEPAGE  // Linux
  ::madvise(static_cast<char*>(data) + skip, (bytes - skip) / kHugePage * kHugePage, MADV_HUGEPAGE);
#endif
}

void ask_thread_heap_huge_pages() {
#if defined(__GLIBC__) && defined(MADV_HUGEPAGE) && !CULPRIT_ADDRESS_SANITIZER
  // glibc's HEAP_MAX_SIZE: 2 * DEFAULT_MMAP_THRESHOLD_MAX, the size and alignment of each heap
  // a thread's arena reserves (malloc/arena.c).
  constexpr std::uintptr_t kHeapReservation = std::uintptr_t{64} << 20;
#ifndef MADV_COLLAPSE
  constexpr int MADV_COLLAPSE = 25;  // Linux 6.1
#endif
  char* const probe = static_cast<char*>(std::malloc(1));  // from the calling thread's arena
  if (probe == nullptr) return;
  const auto at = reinterpret_cast<std::uintptr_t>(probe);
  // The main heap lies below the program break: left to the executable (its stretch could hold
  // the end of the executable's own data).
  if (at >= reinterpret_cast<std::uintptr_t>(::sbrk(0))) {
    const std::uintptr_t offset = at % kHugePage;
    char* const start = probe - offset;
    const std::uintptr_t end = (at | (kHeapReservation - 1)) + 1;
    ::madvise(start, end - (at - offset), MADV_HUGEPAGE);
    // The stretch the thread allocates in now holds the heap's own header (written when the
    // arena was made), so the hint alone leaves it 4 KiB pages: made one huge page at once, with
    // what it holds (a new arena: a page or two). Before Linux 6.1 it stays as it is.
    ::madvise(start, kHugePage, MADV_COLLAPSE);
  }
  std::free(probe);
#endif
}

}  // namespace culprit::core
