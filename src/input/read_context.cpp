// The byte accounting every reader shares (max_file_bytes, max_total_bytes), and plain
// read(2) of a descriptor: regular files, FIFOs and pipes alike, bounded, EINTR-safe.
#include "input/read_context.hpp"

#include "culprit/text/lines.hpp"

#include "input/documentation.hpp"
#include "input/source_pieces.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

namespace culprit::input::detail {

std::string human_bytes(std::int64_t bytes) {
  if (bytes >= (1LL << 30)) return fmt::format("{:.1f} GiB", static_cast<double>(bytes) / (1LL << 30));
  if (bytes >= (1LL << 20)) return fmt::format("{:.1f} MiB", static_cast<double>(bytes) / (1LL << 20));
  if (bytes >= (1LL << 10)) return fmt::format("{:.1f} KiB", static_cast<double>(bytes) / (1LL << 10));
  return fmt::format("{} bytes", bytes);
}

std::int64_t ReadContext::room() const {
  return std::max<std::int64_t>(0, std::min(options.max_file_bytes, options.max_total_bytes - total));
}

bool ReadContext::can_read(const std::string& where) {
  if (total < options.max_total_bytes) return true;
  if (!total_noted) {
    total_noted = true;
    warn(code::kTotalLimit, where,
         fmt::format("the inputs reached the {} limit for one run; this and the remaining inputs are not read",
                     human_bytes(options.max_total_bytes)));
  }
  return false;
}

void ReadContext::emit(Source& source) {
  total += source.size();
  if (!source.from_stdin && is_documentation_name(source.name)) {
    // Prose and tables are not log lines; a code block in it may be a pasted log.
    const std::size_t kept = keep_code_blocks(source.text);
    if (kept == 0) {
      warn(code::kDocumentation, source.name, "documentation (prose, no code block or quoted log), not a log; skipped",
           core::DiagLevel::note);
      return;
    }
    warn(code::kDocumentation, source.name,
         fmt::format("documentation: only its code blocks and quoted logs ({} line{}) are read as log text", kept, kept == 1 ? "" : "s"),
         core::DiagLevel::note);
  }
  if (on_source) on_source(source);
  give_back_text(std::move(source.text));  // freed by the handler's contract: the next input's buffer
}

void read_fd(int fd, std::int64_t limit, int& error, bool& cut, SourcePieces& pieces, const FirstBytes& first) {
  error = 0;
  cut = false;
  // The read window: a cut line's tail is never held. One per thread, zero-filled once, not per
  // input (3000 logs of 4 KB: 136 → 128 ms of CPU, the 256 KiB of zeros each no longer written).
  // read_fd never runs inside itself: the handlers emit() calls read no input.
  thread_local std::string window(std::size_t{1} << 18, '\0');
  bool asked_first = false;
  // Binary data is told by its first text::kBinaryProbeBytes (as ingest tells it): reading stops
  // there, where `culprit - < /dev/urandom` held 1 GiB before it was called binary. Windows of
  // NULs after a first one, while nothing else came, are counted and not kept (`/dev/zero`, a
  // file zero-filled by a crash); text after them is kept, with its line numbers (NULs end none).
  std::string probe;
  bool judged = false, only_nul = true;
  std::int64_t nul_skipped = 0;
  for (;;) {
    const std::int64_t left = limit - pieces.read_bytes() - nul_skipped;
    ssize_t n;
    if (left <= 0) {
      char probe_byte;  // one byte more tells the end of the file from data over the limit
      do n = ::read(fd, &probe_byte, 1);
      while (n < 0 && errno == EINTR);
      if (n < 0) error = errno;
      cut = n > 0;
      break;
    }
    const auto want = static_cast<size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(window.size()), left));
    do n = ::read(fd, window.data(), want);
    while (n < 0 && errno == EINTR);
    const int read_error = n < 0 ? errno : 0;  // before the first look, which may make calls of its own
    if (first && !asked_first) {
      asked_first = true;
      if (!first(n > 0 ? std::string_view(window.data(), static_cast<size_t>(n)) : std::string_view())) return;
    }
    if (n <= 0) {
      error = read_error;
      break;
    }
    const std::string_view got(window.data(), static_cast<size_t>(n));
    if (only_nul) {
      only_nul = text::count_byte(got, '\0') == got.size();
      if (only_nul && pieces.read_bytes() > 0) {
        nul_skipped += n;
        continue;
      }
    }
    pieces.append(got);
    if (!judged) {
      probe.append(got.substr(0, text::kBinaryProbeBytes - probe.size()));
      if (probe.size() >= text::kBinaryProbeBytes) {
        judged = true;
        if (text::binary_percent(probe) >= text::kBinaryPercent) break;  // ingest says binary, from these bytes
      }
    }
  }
}

std::int64_t tail_start(int fd, std::int64_t size, std::int64_t limit, int& error, std::int64_t& first_line) {
  error = 0;
  first_line = 1;
  const std::int64_t start = std::max<std::int64_t>(0, size - limit);
  // Count the lines before `start` (\n, \r\n and a lone \r end a line, as text::split_lines),
  // then skip the partial line at `start` up to its terminator.
  std::string chunk(1 << 20, '\0');
  char prev = '\0';
  for (std::int64_t at = 0; at < size;) {
    const std::int64_t stop = at < start ? start : size;
    const auto want = static_cast<size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(chunk.size()), stop - at));
    ssize_t n;
    do n = ::pread(fd, chunk.data(), want, at);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      return -1;
    }
    for (ssize_t i = 0; i < n; ++i) {
      const char c = chunk[static_cast<size_t>(i)];
      if (at + i >= start) {
        // At `start` after a \n (or at 0) a line starts; after a \r, past its \n if it has one;
        // else the line's first terminator ends the partial line.
        if (at + i == start && (start == 0 || prev == '\n')) return start;
        if (at + i == start && prev == '\r') return c == '\n' ? start + 1 : start;
        if (c == '\n' || c == '\r') {
          ++first_line;
          char next = '\0';
          if (c == '\r' && i + 1 < n) next = chunk[static_cast<size_t>(i + 1)];
          else if (c == '\r' && ::pread(fd, &next, 1, at + i + 1) != 1) next = '\0';
          const bool crlf = next == '\n';
          return at + i + (crlf ? 2 : 1);
        }
        continue;
      }
      if (c == '\n' ? prev != '\r' : c == '\r') ++first_line;
      prev = c;
    }
    at += n;
  }
  return start;  // one line longer than the limit: keep its tail
}

}  // namespace culprit::input::detail
