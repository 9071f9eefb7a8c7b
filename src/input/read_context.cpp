// The byte accounting every reader shares (max_file_bytes, max_total_bytes), and plain
// read(2) of a descriptor: regular files, FIFOs and pipes alike, bounded, EINTR-safe.
#include "input/read_context.hpp"

#include "input/documentation.hpp"

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
      warn(code::kDocumentation, source.name, "documentation (prose, no code block), not a log; skipped",
           core::DiagLevel::note);
      return;
    }
    warn(code::kDocumentation, source.name,
         fmt::format("documentation: only its code blocks ({} line{}) are read as log text", kept, kept == 1 ? "" : "s"),
         core::DiagLevel::note);
  }
  if (on_source) on_source(source);
}

void take_cuts(const LineCutter& cutter, Source& src) {
  if (cutter.read_bytes() == static_cast<std::int64_t>(src.text.size())) return;
  src.read_bytes = cutter.read_bytes();
  src.cut_line = cutter.first_cut_line();
  src.cut_line_bytes = cutter.first_cut_bytes();
}

namespace {

/// read_fd through a cutter: a reused window, so a cut line's tail is never in `out`.
std::string read_windows(int fd, std::int64_t limit, std::int64_t size_hint, int& error, bool& cut,
                         LineCutter& cutter) {
  std::string out;
  if (size_hint > 0) out.reserve(static_cast<size_t>(std::min(size_hint, limit)));  // address space only
  std::string window(std::size_t{1} << 18, '\0');
  for (;;) {
    const std::int64_t left = limit - cutter.read_bytes();
    ssize_t n;
    if (left <= 0) {
      char probe;  // one byte more tells the end of the file from data over the limit
      do n = ::read(fd, &probe, 1);
      while (n < 0 && errno == EINTR);
      if (n < 0) error = errno;
      cut = n > 0;
      break;
    }
    const auto want = static_cast<size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(window.size()), left));
    do n = ::read(fd, window.data(), want);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {
      if (n < 0) error = errno;
      break;
    }
    cutter.append(out, std::string_view(window.data(), static_cast<size_t>(n)));
  }
  out.shrink_to_fit();
  return out;
}

}  // namespace

std::string read_fd(int fd, std::int64_t limit, std::int64_t size_hint, int& error, bool& cut, LineCutter* cutter) {
  error = 0;
  cut = false;
  if (cutter) return read_windows(fd, limit, size_hint, error, cut, *cutter);
  std::string out;
  // The buffer grows geometrically (or is sized once from the file size); `used` is the data.
  out.resize(static_cast<size_t>(std::min<std::int64_t>(size_hint > 0 ? size_hint : (1 << 16), limit)));
  size_t used = 0;
  for (;;) {
    ssize_t n;
    if (used == out.size()) {
      // Full: one byte more tells the end of the file from more data (or data over the limit)
      // before the buffer grows, so a file read at its exact size is never doubled.
      char probe;
      do n = ::read(fd, &probe, 1);
      while (n < 0 && errno == EINTR);
      if (n <= 0) {
        if (n < 0) error = errno;
        break;
      }
      if (static_cast<std::int64_t>(used) >= limit) {
        cut = true;
        break;
      }
      out.resize(static_cast<size_t>(
          std::min<std::int64_t>(static_cast<std::int64_t>(out.size()) * 2 + (1 << 16), limit)));
      out[used++] = probe;
      continue;
    }
    do n = ::read(fd, out.data() + used, out.size() - used);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {
      if (n < 0) error = errno;
      break;
    }
    used += static_cast<size_t>(n);
  }
  out.resize(used);
  out.shrink_to_fit();
  return out;
}

std::string read_tail(int fd, std::int64_t size, std::int64_t limit, int& error, std::int64_t& first_line) {
  error = 0;
  first_line = 1;
  std::int64_t start = std::max<std::int64_t>(0, size - limit);
  // Count the lines before `start` (\n, \r\n and a lone \r end a line, as text::split_lines).
  std::string chunk(1 << 20, '\0');
  char prev = '\0';
  for (std::int64_t at = 0; at < start;) {
    const auto want = static_cast<size_t>(std::min<std::int64_t>(static_cast<std::int64_t>(chunk.size()), start - at));
    ssize_t n;
    do n = ::pread(fd, chunk.data(), want, at);
    while (n < 0 && errno == EINTR);
    if (n <= 0) {
      error = n < 0 ? errno : EIO;
      return {};
    }
    for (ssize_t i = 0; i < n; ++i) {
      const char c = chunk[static_cast<size_t>(i)];
      if (c == '\n' ? prev != '\r' : c == '\r') ++first_line;
      prev = c;
    }
    at += n;
  }
  if (::lseek(fd, start, SEEK_SET) < 0) {
    error = errno;
    return {};
  }
  bool cut = false;
  std::string text = read_fd(fd, limit, limit, error, cut);
  // Start at a whole line. After a \r that the chunk's \n completes, skip the \n (the \r was
  // counted); after any other terminator `start` is a line start; else drop the partial line.
  if (start == 0 || prev == '\n') return text;
  if (prev == '\r') {
    if (!text.empty() && text[0] == '\n') text.erase(0, 1);
    return text;
  }
  size_t eol = text.find_first_of("\r\n");
  if (eol == std::string::npos) return text;  // one line longer than the limit: keep its tail
  if (text[eol] == '\r' && eol + 1 < text.size() && text[eol + 1] == '\n') ++eol;
  text.erase(0, eol + 1);
  ++first_line;
  return text;
}

}  // namespace culprit::input::detail
