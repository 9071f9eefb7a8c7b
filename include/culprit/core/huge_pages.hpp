// Transparent huge pages for a buffer about to be written: the one home of the hint that the
// reader's text buffers and the executable's start-up heap both give.
#pragma once

#include <cstddef>

namespace culprit::core {

/// Asks the kernel to back the whole 2 MiB stretches of [data, data + bytes) with transparent
/// huge pages (madvise MADV_HUGEPAGE; a hint, of no effect where they are off or always on, or
/// off Linux): one page fault per 2 MiB instead of one per 4 KiB when the buffer is first
/// written, and one TLB entry where there were 512. A buffer holding no whole stretch is left
/// as it is. Where the kernel must compact memory to give one, the first write waits for it.
void ask_huge_pages(void* data, std::size_t bytes);

}  // namespace culprit::core
