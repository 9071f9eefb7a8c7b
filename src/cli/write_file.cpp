// Atomic output: write beside the target, then rename over it.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"

namespace culprit::cli {

std::string write_file_atomically(const std::string& path, const std::string& text) {
  // Errors name the path the user gave and the system's reason; the temporary file is ours.
  const std::string tmp = fmt::format("{}.tmp-{}", path, ::getpid());
  const TempFileGuard guard(tmp);  // removed if the run is interrupted before the rename
  {
    errno = 0;
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) {
      const int err = errno;
      std::error_code ec;
      const auto parent = std::filesystem::path(path).parent_path();
      if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
        return fmt::format("cannot write {}: {} {}", path, parent.string(),
                           std::filesystem::exists(parent, ec) ? "is not a folder" : "does not exist");
      return fmt::format("cannot write {}: {}", path, err ? std::strerror(err) : "cannot create a file there");
    }
    out << text;
    out.flush();
    if (!out) {
      const int err = errno;
      std::remove(tmp.c_str());
      return fmt::format("cannot write {}: {}", path, err ? std::strerror(err) : "write failed (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    return fmt::format("cannot move the output into place at {}: {}", path, ec.message());
  }
  return {};
}

}  // namespace culprit::cli
