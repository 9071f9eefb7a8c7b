// The byte accounting every reader shares (max_file_bytes, max_total_bytes), and plain
// read(2) of a descriptor: regular files, FIFOs and pipes alike, bounded, EINTR-safe.
#include "input/read_context.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>

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
  total += static_cast<std::int64_t>(source.text.size());
  if (on_source) on_source(source);
}

std::string read_fd(int fd, std::int64_t limit, std::int64_t size_hint, int& error, bool& cut) {
  error = 0;
  cut = false;
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

}  // namespace culprit::input::detail
