// The decoding worker of an ArchiveStream (see archive_stream.hpp): it walks the members with
// archive_read_next_header / archive_read_data into free blocks and queues what it read; the
// reading thread takes pieces in order and gives blocks back. Blocks are allocated once (never
// zero-filled again) and reused, also by the streams that follow, so memory in flight is
// bounded whatever the archive holds.
#include "input/archive_stream.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <utility>

namespace culprit::input::detail {
namespace {

/// Pieces waiting at most (headers of empty members hold no block, but are bounded too).
constexpr std::size_t kMaxQueued = 2 * ArchiveStream::kBlocks;

/// Blocks of finished streams, for the next ones: a folder of compressed files starts a stream
/// per file, and fresh blocks cost a page fault per 4 KiB written (the allocator hands their
/// pages back between files), which on a VM cost more than the copy. At most one stream's
/// worth (4 MiB) is kept.
std::mutex pool_mutex;
std::vector<std::unique_ptr<char[]>> pool;

std::unique_ptr<char[]> pooled_block() {
  {
    std::lock_guard lock(pool_mutex);
    if (!pool.empty()) {
      auto block = std::move(pool.back());
      pool.pop_back();
      return block;
    }
  }
  return std::unique_ptr<char[]>(new char[ArchiveStream::kBlockBytes]);
}

void give_back(std::unique_ptr<char[]> block) {
  std::lock_guard lock(pool_mutex);
  if (pool.size() < static_cast<std::size_t>(ArchiveStream::kBlocks)) pool.push_back(std::move(block));
}

}  // namespace

ArchiveStream::ArchiveStream(const archive_library::Functions& la, archive* reader,
                             std::function<bool(const std::string&)> excluded)
    : la_(la), reader_(reader), excluded_(std::move(excluded)) {
  worker_ = std::thread([this] { run(); });
}

ArchiveStream::~ArchiveStream() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  worker_.join();
  for (auto& block : blocks_)
    if (block) give_back(std::move(block));
}

Piece ArchiveStream::next() {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return !queue_.empty() || finished_; });
  if (queue_.empty()) return Piece{};
  Piece piece = std::move(queue_.front());
  queue_.pop_front();
  lock.unlock();
  changed_.notify_all();
  return piece;
}

void ArchiveStream::release(int block) {
  {
    std::lock_guard lock(mutex_);
    free_.push_back(block);
  }
  changed_.notify_all();
}

void ArchiveStream::skip_member(std::uint64_t member) {
  std::lock_guard lock(mutex_);
  if (member > skip_through_) skip_through_ = member;
}

bool ArchiveStream::push(Piece piece) {
  std::unique_lock lock(mutex_);
  changed_.wait(lock, [&] { return queue_.size() < kMaxQueued || stop_; });
  if (stop_) return false;
  queue_.push_back(std::move(piece));
  lock.unlock();
  changed_.notify_all();
  return true;
}

int ArchiveStream::take_block() {
  std::unique_lock lock(mutex_);
  if (free_.empty() && allocated_ < kBlocks) {
    blocks_[static_cast<std::size_t>(allocated_)] = pooled_block();
    return allocated_++;
  }
  changed_.wait(lock, [&] { return !free_.empty() || stop_; });
  if (stop_) return -1;
  const int block = free_.back();
  free_.pop_back();
  return block;
}

namespace {

/// What a member that is neither a file nor a folder is, for the note that says it was not read.
std::string member_kind(const archive_library::Functions& la, archive_entry* entry, unsigned type, const char* hardlink) {
  if (hardlink) return fmt::format("a hard link to '{}' in the archive; not followed, skipped", hardlink);
  switch (type) {
    case AE_IFDIR: return {};
    case AE_IFLNK: {
      const char* target = la.archive_entry_symlink(entry);
      return fmt::format("a symbolic link to '{}' in the archive; not followed, skipped", target ? target : "?");
    }
    case AE_IFCHR: return "a character device in the archive; skipped";
    case AE_IFBLK: return "a block device in the archive; skipped";
    case AE_IFIFO: return "a FIFO in the archive; skipped";
    case AE_IFSOCK: return "a socket in the archive; skipped";
    default: return "not a regular file in the archive; skipped";
  }
}

}  // namespace

void ArchiveStream::run() {
  auto finish = [&] {
    {
      std::lock_guard lock(mutex_);
      finished_ = true;
    }
    changed_.notify_all();
  };
  archive_entry* entry = nullptr;
  int rc;
  while ((rc = la_.archive_read_next_header(reader_, &entry)) != ARCHIVE_EOF) {
    if (rc == ARCHIVE_FATAL || rc == ARCHIVE_RETRY) {
      Piece damaged;
      damaged.kind = Piece::Kind::damaged;
      damaged.error = archive_library::error_text(la_, reader_);
      push(std::move(damaged));
      break;
    }
    Piece header;
    header.kind = Piece::Kind::header;
    header.raw = la_.archive_format(reader_) == ARCHIVE_FORMAT_RAW;
    header.unrecognised = header.raw && la_.archive_filter_count(reader_) <= 1;
    const char* raw_name = la_.archive_entry_pathname(entry);
    header.member = raw_name && *raw_name ? raw_name : "data";
    const auto type = la_.archive_entry_filetype(entry);
    const char* hardlink = header.raw ? nullptr : la_.archive_entry_hardlink(entry);
    header.regular = header.raw || (type == AE_IFREG && !hardlink);
    if (!header.regular) header.not_read = member_kind(la_, entry, type, hardlink);
    header.wanted = !header.unrecognised && header.regular &&
                    (header.raw || !excluded_(std::filesystem::path(header.member).filename().string()));
    header.size = la_.archive_entry_size_is_set(entry) ? la_.archive_entry_size(entry) : -1;
    const bool wanted = header.wanted, unrecognised = header.unrecognised;
    const std::uint64_t me = ++member_;
    if (!push(std::move(header))) break;
    if (unrecognised) break;  // nothing more is read (the reading thread stops here)
    if (!wanted) continue;
    bool stopped = false;
    for (;;) {
      {
        std::lock_guard lock(mutex_);
        if (stop_) stopped = true;
        if (stop_ || skip_through_ >= me) break;
      }
      const int block = take_block();
      if (block < 0) {
        stopped = true;
        break;
      }
      char* buf = blocks_[static_cast<std::size_t>(block)].get();
      const la_ssize_t n = la_.archive_read_data(reader_, buf, kBlockBytes);
      if (n <= 0) {
        release(block);
        if (n < 0) {
          Piece failed;
          failed.kind = Piece::Kind::data_error;
          failed.error = archive_library::error_text(la_, reader_);
          failed.rc = static_cast<long>(n);
          if (!push(std::move(failed))) stopped = true;
        }
        if (n == ARCHIVE_FATAL) stopped = true;  // libarchive cannot go on
        break;
      }
      Piece data;
      data.kind = Piece::Kind::data;
      data.block = block;
      data.bytes = static_cast<std::size_t>(n);
      data.consumed = la_.archive_filter_bytes(reader_, -1);
      if (!push(std::move(data))) {
        stopped = true;
        break;
      }
    }
    if (stopped) break;
    Piece end;
    end.kind = Piece::Kind::member_end;
    if (!push(std::move(end))) break;
  }
  if (rc == ARCHIVE_EOF) {
    Piece end;
    end.kind = Piece::Kind::end;
    push(std::move(end));
  }
  finish();
}

}  // namespace culprit::input::detail
