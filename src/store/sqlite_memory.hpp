// SQLite's memory from per-thread free lists by size class: the work SQLite's own lookaside
// allocator does, which Debian's libsqlite3 is built without (SQLITE_OMIT_LOOKASIDE). Preparing a
// statement makes and frees hundreds of small blocks; through glibc's malloc, whose per-thread
// cache holds only 7 blocks of a size, SQLite's allocations took ~5 M of a paste's ~46 M
// instructions.
#pragma once

#include <cstddef>

namespace culprit::store::sqlite_memory {

/// Gives SQLite this allocator. Takes only before SQLite's first use in the process (it is
/// called from the first connect()); returns whether it took. Not under AddressSanitizer, which
/// then sees every SQLite block as its own allocation.
bool install();

/// The allocator itself (SQLite's sqlite3_mem_methods calls these), for the tests.
///   A block of up to kLargest bytes comes from the calling thread's free list of its size class,
///   else from a 2 MiB chunk (a huge page where the kernel gives one) the thread carves, else,
///   where the chunk is used up, from the list of a class up to twice its size before a new
///   chunk is taken; a larger one from malloc. A block may be freed on any thread: it joins that
///   thread's list. A thread's lists and the rest of its chunk go to a shared depot when the
///   thread ends, and new lists draw from the depot before carving, so a
///   process that starts many threads (the Python module's scans) reuses their memory.
///   Chunks are never returned to the system: what stays is the most SQLite held at once.
void* allocate(int bytes);
void release(void* block);
void* reallocate(void* block, int bytes);
/// The usable size of a block (at least what was asked).
int size_of(void* block);
/// What allocate(bytes) gives: bytes rounded up to the block size it takes.
int round_up(int bytes);

/// The largest block the lists serve: SQLite's page-cache entries (a 4 KiB page, its PgHdr and
/// the B-tree's MemPage, ~4.3 KiB) among them, so that a timeline's pages are carved from the
/// huge-page chunks and reused from the lists like every other block.
inline constexpr int kLargest = 8192;

}  // namespace culprit::store::sqlite_memory
