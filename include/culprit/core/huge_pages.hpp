// Transparent huge pages for memory about to be written: the one home of the hint that the
// reader's text buffers, the executable's start-up heap and the heaps of the threads that parse
// big inputs all give.
#pragma once

#include <cstddef>

namespace culprit::core {

/// Asks the kernel to back the whole 2 MiB stretches of [data, data + bytes) with transparent
/// huge pages (madvise MADV_HUGEPAGE; a hint, of no effect where they are off or always on, or
/// off Linux): one page fault per 2 MiB instead of one per 4 KiB when the buffer is first
/// written, and one TLB entry where there were 512. A buffer holding no whole stretch is left
/// as it is. Where the kernel must compact memory to give one, the first write waits for it.
void ask_huge_pages(void* data, std::size_t bytes);

/// The same for the heap the calling thread allocates from, ahead of its growth: the hint from
/// the 2 MiB stretch that holds its allocations now to the end of the heap's reservation, and
/// that first stretch made a huge page at once (MADV_COLLAPSE, Linux 6.1 on: it holds the heap's
/// header already, which alone would keep it 4 KiB pages). For a thread about to read or parse
/// a big input: a piece's text, its line tables and its SQLite chunks are first written there,
/// and on a VM each 4 KiB page first written costs ~12 us (a 32 MiB dmesg incident's thread took
/// ~1 200 such faults, now ~300; docs/performance.md, "Nineteenth pass"). glibc reserves a
/// thread's arena heaps whole and aligned to their size (64 MiB on 64-bit, grown in place), so
/// the hint never reaches past the thread's own heap. Of no effect off glibc or Linux, under
/// AddressSanitizer (its allocator is not glibc's), and where the thread allocates from the main
/// heap (below the program break: the executable's start-up shapes that one, cli/main.cpp).
void ask_thread_heap_huge_pages();

}  // namespace culprit::core
