// Output files the user names (`-o`): never an input, written beside the target and renamed over
// it (an interrupted or failed run leaves the old file intact), through a symbolic link to the
// file it names, with the replaced file's mode and owner.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "ingest/own_report.hpp"

namespace culprit::cli {
namespace {

bool same_file(const struct stat& a, const struct stat& b) { return a.st_dev == b.st_dev && a.st_ino == b.st_ino; }

/// `path` with every symbolic link of its last component followed (at most 40, as the kernel
/// does): the file a write through `path` lands on, which may not exist yet (a dangling link).
/// Empty when the links loop.
std::string resolve_links(std::string path) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    std::error_code ec;
    const std::filesystem::path target = std::filesystem::read_symlink(path, ec);
    if (ec) return path;
    path = target.is_absolute() ? target.string() : (std::filesystem::path(path).parent_path() / target).string();
  }
  return {};
}

/// Whether the existing file at `path` is a report culprit wrote (a report saved among the logs
/// is not read back as one: ingest/own_report.hpp).
bool is_our_report(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::string head(64 << 10, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  return ingest::is_culprit_report(head);
}

}  // namespace

int write_all(int fd, std::string_view text) {
  std::size_t off = 0;
  while (off < text.size()) {
    const ssize_t n = ::write(fd, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return n < 0 ? errno : EIO;
    off += static_cast<std::size_t>(n);
  }
  return 0;
}

std::string check_output_target(const std::string& output, const std::vector<std::string>& inputs) {
  struct stat out {};
  if (::stat(output.c_str(), &out) != 0) return {};  // a new file: nothing of the user's is replaced
  std::unique_ptr<char, decltype(&std::free)> real(::realpath(output.c_str(), nullptr), &std::free);
  for (const std::string& input : inputs) {
    struct stat in {};
    if (input == "-" || ::stat(input.c_str(), &in) != 0) continue;
    if (same_file(in, out))
      return fmt::format("-o {} is the input {}; refusing to replace it with the report", output, input);
    if (!S_ISDIR(in.st_mode) || !real) continue;
    // A file inside an input folder is read as an input (by device and inode, so no spelling of
    // the path escapes it), unless it is a report culprit wrote there before.
    for (std::filesystem::path dir = std::filesystem::path(real.get()).parent_path();; dir = dir.parent_path()) {
      struct stat d {};
      if (::stat(dir.c_str(), &d) == 0 && same_file(d, in)) {
        if (is_our_report(output)) break;
        return fmt::format("-o {} is a file inside the input folder {}, read as an input; refusing to replace it "
                           "with the report",
                           output, input);
      }
      if (dir == dir.parent_path()) break;
    }
  }
  return {};
}

std::string write_file_atomically(const std::string& path, const std::string& text) {
  // Errors name the path the user gave and the system's reason; the temporary file is ours.
  const std::string target = resolve_links(path);
  if (target.empty()) return fmt::format("cannot write {}: too many levels of symbolic links", path);
  struct stat old {};
  const bool replacing = ::stat(target.c_str(), &old) == 0;
  if (replacing && !S_ISREG(old.st_mode))
    return fmt::format("cannot write {}: it is not a regular file (for a terminal or pipe, leave out -o)", path);
  const std::string tmp = fmt::format("{}.tmp-{}", target, ::getpid());
  const TempFileGuard guard(tmp);  // removed if the run is interrupted before the rename
  // A replaced file keeps its mode (a private 0600 file stays private) and, where allowed, its
  // owner; a new file gets 0666 less the umask, as the shell's `>` gives.
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, replacing ? 0600 : 0666);
  if (fd < 0) {
    const int err = errno;
    std::error_code ec;
    const auto parent = std::filesystem::path(target).parent_path();
    if (!parent.empty() && !std::filesystem::is_directory(parent, ec))
      return fmt::format("cannot write {}: {} {}", path, parent.string(),
                         std::filesystem::exists(parent, ec) ? "is not a folder" : "does not exist");
    return fmt::format("cannot write {}: {}", path, std::strerror(err));
  }
  int err = 0;
  if (replacing) {
    if (::fchown(fd, old.st_uid, old.st_gid) != 0) {
      // Not allowed to give the file away: keep the group at least, where it may be.
      [[maybe_unused]] const int kept = ::fchown(fd, static_cast<uid_t>(-1), old.st_gid);
    }
    if (::fchmod(fd, old.st_mode & 07777) != 0) err = errno;
  }
  if (err == 0) err = write_all(fd, text);
  if (::close(fd) != 0 && err == 0) err = errno;  // a full disk may only be said here (NFS)
  if (err != 0) {
    std::remove(tmp.c_str());
    return fmt::format("cannot write {}: {}", path, std::strerror(err));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, target, ec);
  if (ec) {
    std::remove(tmp.c_str());
    return fmt::format("cannot move the output into place at {}: {}", path, ec.message());
  }
  return {};
}

}  // namespace culprit::cli
