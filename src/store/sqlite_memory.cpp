#include "sqlite_memory.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "culprit/core/address_sanitizer.hpp"
#include "culprit/core/huge_pages.hpp"

namespace culprit::store::sqlite_memory {
namespace {

/// Every block starts with a header that holds its usable size; SQLite needs 8-byte alignment.
constexpr std::size_t kHeader = 8;
constexpr int kGranule = 16;
constexpr int kClasses = kLargest / kGranule;  ///< sizes 16, 32, … kLargest
/// A thread carves its blocks from chunks of one huge page each (2 MiB, aligned to it, asked as a
/// transparent huge page: core::ask_huge_pages). The timeline lives in SQLite's page cache, whose
/// pages are blocks of this allocator (kLargest holds a 4 KiB page and its headers): a timeline
/// of 10^5 events is ~40 MB of them, which page by page were as many page faults, slow on a VM
/// (the figures: docs/performance.md, "Thirteenth pass").
constexpr std::size_t kChunkBytes = std::size_t{2} << 20;

/// How far up borrow() looks (lists of 16 bytes more each). It looks only where the thread's
/// chunk is used up, once a chunk while a timeline grows; at every empty list it cost a paste
/// 0.4 M instructions (1 %).
constexpr int kBorrowClasses = 16;

int class_of(int bytes) { return (bytes - 1) / kGranule; }  // bytes in 1..kLargest
int class_bytes(int c) { return (c + 1) * kGranule; }

struct FreeBlock {
  FreeBlock* next;
};

std::int64_t& header(void* block) { return *reinterpret_cast<std::int64_t*>(static_cast<char*>(block) - kHeader); }

/// Blocks of threads that have ended, by class, for the threads that come after.
struct Depot {
  std::mutex mutex;
  FreeBlock* lists[kClasses] = {};
  std::atomic<bool> stocked[kClasses] = {};

  void put(int c, FreeBlock* first) {
    if (!first) return;
    FreeBlock* last = first;
    while (last->next) last = last->next;
    const std::lock_guard<std::mutex> lock(mutex);
    last->next = lists[c];
    lists[c] = first;
    stocked[c].store(true, std::memory_order_relaxed);
  }
  /// The whole list of class `c` (a thread's new list), or only its first block.
  FreeBlock* take(int c, bool all = true) {
    if (!stocked[c].load(std::memory_order_relaxed)) return nullptr;
    const std::lock_guard<std::mutex> lock(mutex);
    FreeBlock* first = lists[c];
    lists[c] = all || !first ? nullptr : first->next;
    if (!lists[c]) stocked[c].store(false, std::memory_order_relaxed);
    return first;
  }
};

Depot& depot() {
  static auto* const kDepot = new Depot();  // never freed: threads may end after main returns
  return *kDepot;
}

/// One thread's lists and chunk. Trivially destructible, so it stays usable while the thread's
/// other thread-locals are destroyed (a spare database closes then); `state` says whether it
/// was handed to the depot, after which blocks go straight to the depot.
struct ThreadLists {
  enum State : unsigned char { unused, active, ended };
  State state;
  FreeBlock* lists[kClasses];
  char* carve;
  char* carve_end;
};
thread_local ThreadLists mine{};

void hand_over(ThreadLists& t) {
  for (int c = 0; c < kClasses; ++c) {
    depot().put(c, t.lists[c]);
    t.lists[c] = nullptr;
  }
  // The rest of the chunk, as blocks of the largest class.
  constexpr std::size_t kStep = kHeader + kLargest;
  FreeBlock* rest = nullptr;
  while (t.carve && static_cast<std::size_t>(t.carve_end - t.carve) >= kStep) {
    auto* block = reinterpret_cast<FreeBlock*>(t.carve + kHeader);
    header(block) = kLargest;
    block->next = rest;
    rest = block;
    t.carve += kStep;
  }
  depot().put(kClasses - 1, rest);
  t.carve = t.carve_end = nullptr;
  t.state = ThreadLists::ended;
}

/// Hands the thread's lists over when the thread ends.
struct ThreadEnd {
  ~ThreadEnd() { hand_over(mine); }
};

/// A block of `usable` bytes straight from malloc (large ones, and a class's while its thread ends).
void* from_malloc(int usable) {
  auto* raw = static_cast<char*>(std::malloc(kHeader + static_cast<std::size_t>(usable)));
  if (!raw) return nullptr;
  void* block = raw + kHeader;
  header(block) = usable;
  return block;
}

/// The calling thread's lists, set to be handed over when the thread ends.
ThreadLists& this_thread() {
  ThreadLists& t = mine;
  if (t.state == ThreadLists::unused) {
    thread_local ThreadEnd end;  // constructed once per thread, destroyed when it ends
    t.state = ThreadLists::active;
  }
  return t;
}

/// A free block of the next classes up, at most twice the size of class `c` and kBorrowClasses
/// lists away, or null. Its header keeps its own size, so it goes back to its own list. Without
/// it a class's freed blocks serve only that class: an index build's sort records (SQLite's
/// sorter, with temporary storage in memory, allocates one block per record) and the next
/// build's, a class smaller, each took new memory (3 MiB of a 128 MiB incident's peak).
FreeBlock* borrow(ThreadLists& t, int c) {
  const int last = std::min({kClasses - 1, 2 * c + 1, c + kBorrowClasses});
  for (int b = c + 1; b <= last; ++b)
    if (FreeBlock* block = t.lists[b]) {
      t.lists[b] = block->next;
      return block;
    }
  return nullptr;
}

/// A new block of class `c` from the thread's chunk; where the chunk is used up, a free block of
/// the next classes up (borrow), and only then a new chunk.
void* carve(ThreadLists& t, int c) {
  const std::size_t step = kHeader + static_cast<std::size_t>(class_bytes(c));
  if (!t.carve || static_cast<std::size_t>(t.carve_end - t.carve) < step) {
    if (FreeBlock* block = borrow(t, c)) return block;
    auto* chunk = static_cast<char*>(std::aligned_alloc(kChunkBytes, kChunkBytes));
    if (!chunk) return nullptr;
    core::ask_huge_pages(chunk, kChunkBytes);
    t.carve = chunk;
    t.carve_end = chunk + kChunkBytes;
  }
  void* block = t.carve + kHeader;
  t.carve += step;
  header(block) = class_bytes(c);
  return block;
}

}  // namespace

void* allocate(int bytes) {
  if (bytes <= 0) bytes = 1;
  if (bytes > kLargest) return from_malloc(round_up(bytes));
  const int c = class_of(bytes);
  ThreadLists& t = this_thread();
  if (t.state == ThreadLists::ended) {  // the thread is ending: serve from the depot or malloc
    if (FreeBlock* block = depot().take(c, false)) return block;
    return from_malloc(class_bytes(c));
  }
  if (!t.lists[c]) t.lists[c] = depot().take(c);
  if (FreeBlock* block = t.lists[c]) {
    t.lists[c] = block->next;
    return block;
  }
  return carve(t, c);
}

void release(void* block) {
  if (!block) return;
  const std::int64_t bytes = header(block);
  if (bytes > kLargest) {
    std::free(static_cast<char*>(block) - kHeader);
    return;
  }
  const int c = class_of(static_cast<int>(bytes));
  auto* node = static_cast<FreeBlock*>(block);
  ThreadLists& t = this_thread();
  if (t.state == ThreadLists::ended) {
    node->next = nullptr;
    depot().put(c, node);
    return;
  }
  node->next = t.lists[c];
  t.lists[c] = node;
}

void* reallocate(void* block, int bytes) {
  if (!block) return allocate(bytes);
  const int have = size_of(block);
  if (bytes > 0 && bytes <= have && (have > kLargest || bytes > have / 2)) return block;
  void* fresh = allocate(bytes);
  if (!fresh) return nullptr;
  std::memcpy(fresh, block, static_cast<std::size_t>(std::min(have, std::max(bytes, 1))));
  release(block);
  return fresh;
}

int size_of(void* block) { return block ? static_cast<int>(header(block)) : 0; }

int round_up(int bytes) {
  if (bytes <= 0) bytes = 1;
  if (bytes > kLargest) return (bytes + 7) & ~7;
  return class_bytes(class_of(bytes));
}

bool install() {
#if CULPRIT_ADDRESS_SANITIZER
  return false;
#else
  static const sqlite3_mem_methods kMethods = {
      [](int n) { return allocate(n); },
      [](void* p) { release(p); },
      [](void* p, int n) { return reallocate(p, n); },
      [](void* p) { return size_of(p); },
      [](int n) { return round_up(n); },
      [](void*) { return SQLITE_OK; },
      [](void*) {},
      nullptr,
  };
  return sqlite3_config(SQLITE_CONFIG_MALLOC, &kMethods) == SQLITE_OK;
#endif
}

}  // namespace culprit::store::sqlite_memory
