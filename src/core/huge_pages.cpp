// ask_huge_pages (see huge_pages.hpp).
#include "culprit/core/huge_pages.hpp"

#include <sys/mman.h>

#include <cstdint>

namespace culprit::core {

void ask_huge_pages(void* data, std::size_t bytes) {
  constexpr std::size_t kHugePage = std::size_t{2} << 20;
  const std::size_t misaligned = reinterpret_cast<std::uintptr_t>(data) % kHugePage;
  const std::size_t skip = misaligned == 0 ? 0 : kHugePage - misaligned;
  if (bytes < skip + kHugePage) return;
#ifdef MADV_HUGEPAGE  // Linux
  ::madvise(static_cast<char*>(data) + skip, (bytes - skip) / kHugePage * kHugePage, MADV_HUGEPAGE);
#endif
}

}  // namespace culprit::core
