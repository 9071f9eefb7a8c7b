// Atomic output: write beside the target, then rename over it.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"

namespace culprit::cli {

std::string write_file_atomically(const std::string& path, const std::string& text) {
  const std::string tmp = fmt::format("{}.tmp-{}", path, ::getpid());
  const TempFileGuard guard(tmp);  // removed if the run is interrupted before the rename
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return fmt::format("cannot write {}", tmp);
    out << text;
    out.flush();
    if (!out) {
      std::remove(tmp.c_str());
      return fmt::format("write to {} failed (disk full?)", tmp);
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
