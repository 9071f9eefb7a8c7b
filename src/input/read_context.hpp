// Shared state of one read_inputs() call: the options, the diagnostics, the handler and the
// running byte count that enforces max_total_bytes. Private to the input module.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "culprit/input/reader.hpp"
#include "input/line_cut.hpp"

namespace culprit::input::detail {

struct ReadContext {
  ReadContext(const ReadOptions& o, core::Diagnostics& p, const SourceHandler& s)
      : options(o), problems(p), on_source(s) {}

  const ReadOptions& options;
  core::Diagnostics& problems;
  const SourceHandler& on_source;
  std::int64_t total = 0;     ///< text bytes handed to on_source so far
  bool total_noted = false;   ///< the max_total_bytes note was given
  std::string host_from;      ///< where the host of the path being read came from (host_from::…)

  void warn(std::string_view code, std::string where, std::string message,
            core::DiagLevel level = core::DiagLevel::warning) const {
    problems.push_back({level, std::string(code), std::move(where), std::move(message)});
  }
  /// Bytes one more source may hold: the per-file limit, or less when the total is nearly spent.
  std::int64_t room() const;
  /// False (after one note naming `where`) once max_total_bytes is spent: stop reading.
  bool can_read(const std::string& where);
  /// Counts the source's bytes and hands it on; then its text's buffer (where the handler left
  /// it) goes to the spare buffers (give_back_text).
  void emit(Source& source);
};

class SourcePieces;

/// What read_fd asks of an input's first bytes before they go to its pieces (whether they are an
/// archive's magic): false stops the read with nothing appended. Asked once, with the first
/// read's bytes (empty where that read found the end of the file or failed).
using FirstBytes = std::function<bool(std::string_view first)>;

/// Reads `fd` to its end or to `limit` bytes into `pieces` (in windows, through its cutter).
/// `error` is an errno (0: none), `cut` says the limit stopped it. `first`, where given, looks
/// at the first bytes read (not asked when `limit` allows none).
void read_fd(int fd, std::int64_t limit, int& error, bool& cut, SourcePieces& pieces, const FirstBytes& first = {});

/// Where reading the last `limit` bytes of a regular file of `size` bytes starts: the first
/// line start inside them (or where they start, when they hold no line end); `first_line`
/// gets that line's number in the file (the part before is scanned for newlines in chunks,
/// never held in memory). -1 on a read error (`error`).
std::int64_t tail_start(int fd, std::int64_t size, std::int64_t limit, int& error, std::int64_t& first_line);

/// Human size for messages: `1.0 GiB`, `512 KiB`, `17 bytes`.
std::string human_bytes(std::int64_t bytes);

/// True when the name ends like a compressed file or an archive (`.tar.gz`, `.zip`, `.gz`, …).
bool is_archive_name(std::string_view name);

/// The dictionary the first block of the xz stream starting `head` declares (its LZMA2 filter's
/// property), or -1 when `head` starts no xz stream or holds no such block header.
std::int64_t xz_dictionary_bytes(std::string_view head);

/// The largest dictionary any block of an xz file declares, found through its streams' indexes
/// from the file's end (`read(offset, n)` over its `size` bytes; concatenated streams and their
/// padding too); at most kMaxXzBlocksChecked block headers are read. -1 when no index can be
/// read (a cut file, not xz): the first block then decides.
std::int64_t xz_max_dictionary(const std::function<std::string(std::int64_t, std::size_t)>& read, std::int64_t size);

/// Reads an open archive (file descriptor) member by member into sources named
/// `display!/member` (a bare compressed file: one source named `display`).
void read_archive_fd(int fd, const std::string& display, const std::string& host, const std::string& origin,
                     ReadContext& ctx, int nesting);

/// The same for bytes in memory.
void read_archive_bytes(std::string_view bytes, const std::string& display, const std::string& host,
                        const std::string& origin, ReadContext& ctx, int nesting);

}  // namespace culprit::input::detail
