// SQLite's allocator (store/sqlite_memory.cpp): sizes, distinct blocks that keep what is written to
// them, reallocation, blocks freed on another thread, the memory of ended threads reused, and a
// class's free blocks lent to the class below once the chunk is used up.
#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <random>
#include <set>
#include <thread>
#include <vector>

#include "store/sqlite_memory.hpp"

namespace memory = culprit::store::sqlite_memory;

namespace {

struct Held {
  unsigned char* block;
  int bytes;
  unsigned char fill;
};

void fill(const Held& h) { std::memset(h.block, h.fill, static_cast<std::size_t>(h.bytes)); }
bool intact(const Held& h) {
  for (int i = 0; i < h.bytes; ++i)
    if (h.block[i] != h.fill) return false;
  return true;
}

}  // namespace

TEST_CASE("sqlite memory: a block is at least what was asked, as round_up says", "[sqlite_memory]") {
  for (int bytes : {1, 7, 8, 15, 16, 17, 100, 511, 512, 513, memory::kLargest - 1, memory::kLargest,
                    memory::kLargest + 1, 4096, 70000}) {
    void* block = memory::allocate(bytes);
    REQUIRE(block != nullptr);
    CHECK(reinterpret_cast<std::uintptr_t>(block) % 8 == 0);  // SQLite's alignment
    CHECK(memory::size_of(block) >= bytes);
    CHECK(memory::size_of(block) == memory::round_up(bytes));
    memory::release(block);
  }
  CHECK(memory::size_of(nullptr) == 0);
  memory::release(nullptr);
}

TEST_CASE("sqlite memory: live blocks never overlap, through frees and reuse", "[sqlite_memory]") {
  std::mt19937 random(17);
  std::uniform_int_distribution<int> size(1, 2 * memory::kLargest);
  std::vector<Held> held;
  for (int round = 0; round < 20000; ++round) {
    if (!held.empty() && random() % 3 == 0) {
      const std::size_t i = random() % held.size();
      REQUIRE(intact(held[i]));
      memory::release(held[i].block);
      held[i] = held.back();
      held.pop_back();
      continue;
    }
    Held h{static_cast<unsigned char*>(memory::allocate(size(random))), 0, static_cast<unsigned char>(round)};
    h.bytes = memory::size_of(h.block);
    fill(h);
    held.push_back(h);
  }
  for (const Held& h : held) {
    REQUIRE(intact(h));
    memory::release(h.block);
  }
}

TEST_CASE("sqlite memory: reallocation keeps the contents", "[sqlite_memory]") {
  auto* block = static_cast<unsigned char*>(memory::reallocate(nullptr, 10));
  for (int i = 0; i < 10; ++i) block[i] = static_cast<unsigned char>(i);
  for (int bytes : {40, 300, 2000, 9000, 600, 12}) {
    block = static_cast<unsigned char*>(memory::reallocate(block, bytes));
    REQUIRE(block != nullptr);
    REQUIRE(memory::size_of(block) >= bytes);
    for (int i = 0; i < 10; ++i) REQUIRE(block[i] == i);
  }
  memory::release(block);
}

TEST_CASE("sqlite memory: blocks freed on another thread, and an ended thread's memory reused",
          "[sqlite_memory]") {
  constexpr int kBlocks = 2000;
  constexpr int kBytes = 200;
  std::vector<void*> made;
  std::thread maker([&] {
    for (int i = 0; i < kBlocks; ++i) made.push_back(memory::allocate(kBytes));
  });
  maker.join();
  std::set<void*> freed;
  std::thread freer([&] {
    for (void* block : made) {
      memory::release(block);  // joins this thread's list
      freed.insert(block);
    }
  });
  freer.join();  // its list goes to the depot
  std::vector<void*> again;
  std::thread user([&] {
    for (int i = 0; i < kBlocks; ++i) again.push_back(memory::allocate(kBytes));
  });
  user.join();
  // A thread's first list of a size is the depot's: every block comes from the ended thread.
  for (void* block : again) CHECK(freed.count(block) == 1);
  for (void* block : again) memory::release(block);
}

namespace {
/// A thread-local that frees its block when the thread ends, after the allocator's own
/// thread-end hand-over (it was made before the thread's first allocation).
struct FreedAtThreadEnd {
  void* block = nullptr;
  ~FreedAtThreadEnd() {
    // Blocks made and freed after the hand-over come from and go to the depot (or malloc).
    auto* during = static_cast<unsigned char*>(memory::allocate(48));
    if (during) during[47] = 1;
    memory::release(during);
    memory::release(block);
  }
};
}  // namespace

TEST_CASE("sqlite memory: a block freed while its thread ends goes to the depot", "[sqlite_memory]") {
  void* late_block = nullptr;
  std::thread worker([&late_block] {
    thread_local FreedAtThreadEnd late;
    late.block = memory::allocate(64);
    late_block = late.block;
    memory::release(memory::allocate(5000));  // a large block: malloc's, not a list's
  });
  worker.join();
  // The depot's newest block of its size is the late one: the next thread's first block of that
  // size is it.
  void* block = nullptr;
  std::thread next([&block] { block = memory::allocate(64); });
  next.join();
  REQUIRE(late_block != nullptr);
  CHECK(block == late_block);
  memory::release(block);
}

TEST_CASE("sqlite memory: a class with no free block takes one of the next classes up, up to twice its size",
          "[sqlite_memory]") {
  // On its own thread, whose lists start empty. A class's own list and the depot's come first,
  // then the thread's chunk until it is used up, then the blocks of the classes up.
  constexpr int kFreed = 100;
  std::set<void*> freed;
  std::vector<void*> borrowed;
  std::size_t before_borrowing = 0;
  void* too_small = nullptr;
  std::vector<void*> again;
  std::thread worker([&] {
    std::vector<void*> made;
    for (int i = 0; i < kFreed; ++i) made.push_back(memory::allocate(64));
    for (void* block : made) {
      memory::release(block);
      freed.insert(block);
    }
    // 48-byte blocks: the thread's list, the depot's (other threads' ended lists) and the chunk
    // first, then the freed 64-byte ones, each once, before a new chunk is carved.
    std::vector<void*> own;
    while (borrowed.size() < kFreed && own.size() < 1000000) {
      void* block = memory::allocate(48);
      if (memory::size_of(block) == 64) borrowed.push_back(block);
      else if (borrowed.empty()) own.push_back(block);
      else break;  // carved while 64-byte blocks were still free
    }
    before_borrowing = own.size();
    // More than twice smaller: never one of them (none is left, and none would be lent).
    too_small = memory::allocate(16);
    for (void* block : borrowed) memory::release(block);  // back to the 64-byte list
    for (int i = 0; i < kFreed; ++i) again.push_back(memory::allocate(64));
    for (void* block : again) memory::release(block);
    for (void* block : own) memory::release(block);
    memory::release(too_small);
  });
  worker.join();
  INFO("48-byte blocks before the first borrowed: " << before_borrowing);
  REQUIRE(borrowed.size() == kFreed);
  CHECK(std::set<void*>(borrowed.begin(), borrowed.end()) == freed);
  CHECK(freed.count(too_small) == 0);
  CHECK(std::set<void*>(again.begin(), again.end()) == freed);
}
