// Decompression on its own thread: an ArchiveStream runs libarchive over an opened reader on a
// worker thread and hands its members' headers and data to the reading thread, in stream
// order, through a bounded queue of reused blocks (at most kBlocks * kBlockBytes in flight).
// The reading thread (archive_reader.cpp) turns them into sources and ingests each while the
// worker decodes what follows, so a compressed input costs its decoder's time, not decoder +
// parser. Every decision that depends on the run (byte limits, the bomb check, diagnostics,
// nested archives) stays on the reading thread, so reports do not depend on the thread.
#pragma once

#include <array>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "input/archive_library.hpp"

namespace culprit::input::detail {

/// One step of the stream, in the order libarchive gives them.
struct Piece {
  enum class Kind {
    header,      ///< a member starts (`member`, `raw`, `regular`, `wanted`, `size`)
    data,        ///< `bytes` of the member's data in block `block`; `consumed` compressed so far
    data_error,  ///< reading the member's data failed: `error`, `rc` (< 0)
    member_end,  ///< the member's data is over
    damaged,     ///< archive_read_next_header failed (FATAL / RETRY): `error`; nothing follows
    end,         ///< no more members
  };
  Kind kind = Kind::end;
  // header
  std::string member;           ///< the member's path as stored ('data' when it has none)
  bool raw = false;             ///< a bare compressed stream (no archive format)
  bool unrecognised = false;    ///< raw, and no compression either: not something we read
  bool regular = false;         ///< a regular file (raw streams count as one)
  bool wanted = false;          ///< data follows (regular and not excluded)
  /// A member that is neither a file nor a folder (a symbolic or hard link, a device, a FIFO, a
  /// socket): what it is, said so that nothing is dropped unsaid ('' for files and folders).
  std::string not_read;
  std::int64_t size = -1;       ///< the member's size from its header (-1: unknown)
  // data
  int block = -1;
  std::size_t bytes = 0;
  std::int64_t consumed = 0;
  // data_error, damaged
  std::string error;
  long rc = 0;
};

class ArchiveStream {
 public:
  /// Read-ahead: up to 4 MiB decoded while the reading thread ingests the member before —
  /// members under 1 MiB are ingested inline (cli/parallel_ingest.hpp), bigger ones on a worker,
  /// so a few MiB keep the decoder busy; blocks are allocated when first needed, so a small
  /// archive costs one. A block is one archive_read_data call of 64 KiB, as the reading did
  /// before it had a thread: a damaged stream loses at most that much before its error, and
  /// the bomb check runs as often.
  static constexpr int kBlocks = 64;
  static constexpr std::size_t kBlockBytes = 64 << 10;

  /// Starts decoding `reader` (opened with `la`, owned by the caller, outliving this object) on a
  /// worker thread. `excluded(base_name)` says which members' data is not wanted (called on the worker).
  ArchiveStream(const archive_library::Functions& la, archive* reader,
                std::function<bool(const std::string&)> excluded);
  /// Stops the worker (it stops at its next block) and joins it.
  ~ArchiveStream();
  ArchiveStream(const ArchiveStream&) = delete;
  ArchiveStream& operator=(const ArchiveStream&) = delete;

  /// The next piece (waits for the worker). After `end` or `damaged`, `end` again.
  Piece next();
  /// The bytes of a data piece's block, valid until release(piece.block).
  const char* block_data(int block) const { return blocks_[static_cast<std::size_t>(block)].get(); }
  /// Gives a data piece's block back to the worker.
  void release(int block);
  /// The worker stops decoding the data of member number `member` (1-based, in header order;
  /// the rest is skipped, not handed over; pieces already queued still come, up to its
  /// member_end). A member the worker has already finished is not affected.
  void skip_member(std::uint64_t member);

 private:
  void run();
  bool push(Piece piece);  ///< false when stopped
  int take_block();        ///< -1 when stopped

  const archive_library::Functions& la_;
  archive* reader_;
  std::function<bool(const std::string&)> excluded_;
  std::array<std::unique_ptr<char[]>, kBlocks> blocks_;  ///< allocated on first use, never zero-filled
  int allocated_ = 0;              ///< guarded: blocks allocated so far
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Piece> queue_;
  std::vector<int> free_;          ///< blocks allocated and not in the queue
  std::uint64_t member_ = 0;       ///< worker only: members started so far
  std::uint64_t skip_through_ = 0; ///< guarded: members up to this one (1-based) are skipped
  bool stop_ = false;
  bool finished_ = false;
  std::thread worker_;
};

}  // namespace culprit::input::detail
