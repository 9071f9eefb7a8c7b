// Input reading: files, folders (node-per-subfolder), FIFOs and standard input. Everything is
// opened O_RDONLY (O_NOATIME where allowed) and never written. Folders are walked without
// loops: a folder or file reached twice (symbolic links, bind mounts) is read once.
#include "culprit/input/reader.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iterator>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string_view>
#include <utility>

#include "input/documentation.hpp"
#include "input/read_context.hpp"
#include "input/source_pieces.hpp"

namespace culprit::input {
namespace fs = std::filesystem;
namespace {

using detail::ReadContext;
using detail::human_bytes;
using FileKey = std::pair<dev_t, ino_t>;

bool excluded(const std::string& name, const ReadOptions& options) {
  for (const auto& glob : options.excludes)
    if (fnmatch(glob.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

/// Folder names that describe content, not a node (`logs/`, `var/`); they never become host
/// names. Sorted, for binary_search.
constexpr std::string_view kGenericFolders[] = {
    ".",      "artifacts", "data",  "dmesg",  "gpu",     "incident", "input",   "inputs", "journal", "kernel", "log",
    "logs",   "nvidia",    "output", "outputs", "ranks", "syslog",   "tmp",     "var",    "worker",  "workers"};
static_assert(std::is_sorted(std::begin(kGenericFolders), std::end(kGenericFolders)));

bool generic_folder(std::string_view name) {
  return std::binary_search(std::begin(kGenericFolders), std::end(kGenericFolders), name);
}

/// `path`'s parts as std::filesystem::path iterates them on POSIX, without building one (asked
/// of every file a folder walk finds): `/` for a leading run of slashes, each name between
/// slashes (a run counts as one), and an empty part for a trailing slash.
template <class F>
void for_each_path_part(std::string_view path, F&& part) {
  std::size_t i = 0;
  if (!path.empty() && path[0] == '/') {
    part(std::string_view("/"));
    while (i < path.size() && path[i] == '/') ++i;
  }
  while (i < path.size()) {
    const std::size_t end = std::min(path.find('/', i), path.size());
    part(path.substr(i, end - i));
    if (end == path.size()) return;
    i = end;
    while (i < path.size() && path[i] == '/') ++i;
    if (i == path.size()) part(std::string_view());  // a trailing slash
  }
}

/// Read-only, without updating the access time where the kernel lets us (O_NOATIME needs
/// ownership), never becoming our controlling terminal. `nonblock` keeps a FIFO from
/// blocking the open (for paths that were regular files when listed).
int open_read_only(const std::string& path, bool nonblock) {
  const int flags = O_RDONLY | O_CLOEXEC | O_NOCTTY | (nonblock ? O_NONBLOCK : 0);
  int fd = ::open(path.c_str(), flags | O_NOATIME);
  if (fd < 0 && errno == EPERM) fd = ::open(path.c_str(), flags);
  return fd;
}

std::string errno_text(int err) { return std::strerror(err); }

/// Why stat() failed, in words, for a path that may be a symbolic link.
void report_stat_failure(const std::string& path, const std::string& display, int err, ReadContext& ctx,
                         core::DiagLevel level) {
  struct stat lst {};
  if (::lstat(path.c_str(), &lst) == 0 && S_ISLNK(lst.st_mode)) {
    if (err == ELOOP) {
      ctx.warn(code::kLink, display, "symbolic link loop (the link leads back to itself); skipped", level);
      return;
    }
    std::string target(4096, '\0');
    const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
    target.resize(n > 0 ? static_cast<size_t>(n) : 0);
    ctx.warn(code::kLink, display, fmt::format("broken symbolic link (to '{}': {}); skipped", target, errno_text(err)),
             level);
    return;
  }
  if (err == ENOENT) {
    ctx.warn(code::kMissing, display, "no such file or folder", level);
    return;
  }
  ctx.warn(code::kUnreadable, display, fmt::format("cannot read: {}; skipped", errno_text(err)), level);
}

/// What a path that is neither a file nor a folder is, for the skip note.
std::string not_a_file_reason(mode_t mode) {
  if (S_ISFIFO(mode))
    return "a FIFO (named pipe); skipped, since reading it could wait forever (name it on the command "
           "line to read it)";
  if (S_ISCHR(mode) || S_ISBLK(mode)) return "a device, not a log file; skipped";
  if (S_ISSOCK(mode)) return "a socket, not a log file; skipped";
  return "not a regular file; skipped";
}

/// Reads a text stream (regular file, FIFO, pipe, stdin) from `fd`; archives and compressed
/// data (by magic bytes, or by name with a warning when the bytes disagree) go to libarchive.
void read_descriptor(int fd, const struct stat& st, const std::string& display, const std::string& host,
                     const std::string& origin, bool from_stdin, ReadContext& ctx) {
  if (!ctx.can_read(display)) return;
  const bool regular = S_ISREG(st.st_mode);
  std::int64_t room = ctx.room();
  // A regular file read from its start has its first bytes looked at as read (read_fd's
  // FirstBytes); one read from its tail (too big), or with no room left, by a read of its head.
  const bool head_as_read = regular && room > 0 && st.st_size <= room;
  // Archives and compressed files by their magic bytes; a name that says so over bytes that do
  // not, with a warning. True: read it as text.
  bool archive = false;
  const auto text_not_archive = [&](std::string_view head) {
    if (looks_like_archive(head.substr(0, std::min<std::size_t>(head.size(), 512)))) {
      archive = true;
      return false;
    }
    if (detail::is_archive_name(display))
      ctx.warn(code::kArchive, display,
               "named like an archive or compressed file, but its bytes are not one (damaged?); read as plain text");
    return true;
  };
  if (regular && !head_as_read) {
    char head[512];
    ssize_t n;
    do n = ::pread(fd, head, sizeof head, 0);
    while (n < 0 && errno == EINTR);
    if (!text_not_archive(n > 0 ? std::string_view(head, static_cast<size_t>(n)) : std::string_view())) {
      detail::read_archive_fd(fd, display, host, origin, ctx, 1);
      return;
    }
  }
  int err = 0;
  bool cut = false;
  Source src;
  src.name = display;
  src.host = host;
  src.host_from = host.empty() ? std::string() : ctx.host_from;
  src.origin = origin;
  src.from_stdin = from_stdin;
  detail::SourcePieces pieces(src, ctx, ctx.options.max_line_bytes);
  if (regular && st.st_size > room && room > 0) {
    // Too big: the end of a log is where the failure is, so read its last `room` bytes.
    const std::int64_t start = detail::tail_start(fd, st.st_size, room, err, src.first_line);
    if (start >= 0 && ::lseek(fd, start, SEEK_SET) < 0) err = errno;
    if (err == 0) {
      room = st.st_size - start;
      ctx.warn(code::kTooLarge, display,
               fmt::format("file is {}; read its last {}, from line {} on (size limit for one file)",
                           human_bytes(st.st_size), human_bytes(room), src.first_line));
    }
  }
  if (err == 0) {
    if (regular) pieces.reserve(std::min<std::int64_t>(st.st_size, room));
    detail::read_fd(fd, room, err, cut, pieces, head_as_read ? detail::FirstBytes(text_not_archive) : nullptr);
  }
  if (archive) {  // nothing of it was taken as text
    give_back_text(std::move(src.text));
    src.text.clear();
    if (::lseek(fd, 0, SEEK_SET) == 0) {
      detail::read_archive_fd(fd, display, host, origin, ctx, 1);
      return;
    }
    err = errno;  // said below, as any read error before the first byte
  }
  pieces.finish();
  if (err != 0)
    ctx.warn(code::kUnreadable, display,
             pieces.read_bytes() == 0
                 ? fmt::format("cannot read: {}; skipped", errno_text(err))
                 : fmt::format("read failed after {}: {}; kept what was read", human_bytes(pieces.read_bytes()),
                               errno_text(err)));
  if (cut)
    ctx.warn(code::kTooLarge, display,
             // A regular file past the limit it was read under grew while read; a pipe never does.
             fmt::format("stopped reading after {} (size limit for one {})", human_bytes(pieces.read_bytes()),
                         regular ? "file; it grew while read?" : "stream"));
  if (err != 0 && src.size() == 0) return;
  if (!regular && looks_like_archive(std::string_view(src.text).substr(0, 512))) {
    detail::read_archive_bytes(src.text, display, host, origin, ctx, 1);
    return;
  }
  ctx.emit(src);
}

/// The files a folder walk has listed or read, by key, with the name of the first.
using ReadFiles = std::map<FileKey, std::string>;

/// The note for a file reached a second time (a link), at `where`; `first` is read.
void note_second_link(ReadContext& ctx, const std::string& where, const std::string& first) {
  ctx.warn(code::kLink, where, fmt::format("the same file as {} (a link); read once", first), core::DiagLevel::note);
}

/// One path that is not a folder, `mode` its type as the caller found it (the folder walk's
/// entry, or a stat() of a named input): it says how to open it, and what was opened is checked
/// again. `named` is true for a path the user named (a FIFO there is read like stdin); false for
/// a member of a folder. `read`, a folder walk's: a file already in it (a second link) is noted
/// and read once; told by the opened file's own stat, so the walk stats no file.
void read_path(const std::string& path, const std::string& display, const std::string& host,
               const std::string& origin, bool named, mode_t mode, ReadContext& ctx, ReadFiles* read = nullptr) {
  if (!ctx.can_read(display)) return;
  const bool stream = named && S_ISFIFO(mode);
  if (!S_ISREG(mode) && !stream) {
    ctx.warn(code::kNotFile, display, not_a_file_reason(mode));
    return;
  }
  const int fd = open_read_only(path, !stream);
  if (fd < 0) {
    const int err = errno;
    ctx.warn(code::kUnreadable, display,
             err == EACCES ? "permission denied: cannot open it for reading; skipped"
                           : fmt::format("cannot open: {}; skipped", errno_text(err)));
    return;
  }
  // The path may have changed between stat() and open(): trust only what was opened.
  struct stat st {};
  if (::fstat(fd, &st) != 0 || (!S_ISREG(st.st_mode) && !(stream && S_ISFIFO(st.st_mode)))) {
    ctx.warn(code::kNotFile, display, not_a_file_reason(st.st_mode));
    ::close(fd);
    return;
  }
  if (read != nullptr) {
    auto [it, fresh] = read->emplace(FileKey{st.st_dev, st.st_ino}, display);
    if (!fresh) {
      note_second_link(ctx, display, it->second);
      ::close(fd);
      return;
    }
  }
  if (stream) {  // opened non-blocking only for regular files; a FIFO blocks until written
    const int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0) ::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  }
  read_descriptor(fd, st, display, host, origin, false, ctx);
  ::close(fd);
}

/// fs::path(dir) / name, joined as text (`name` holds no `/`): one separator, none after a `dir`
/// ending in one.
std::string join_path(const std::string& dir, std::string_view name) {
  std::string path = dir;
  if (!path.empty() && path.back() != '/') path += '/';
  return path.append(name);
}

/// The entries of folder `dir` but `.` and `..`, each with whether it is a regular file by its
/// entry (the type readdir tells, else lstat's: a symbolic link is not one), in `names`; 0, or
/// the errno of a listing that failed. readdir, not std::filesystem::directory_iterator, which
/// builds and splits a path for each entry (4k instructions a file of a folder of small ones).
int list_folder(const std::string& dir, std::vector<std::pair<std::string, bool>>& names) {
  DIR* folder = ::opendir(dir.c_str());
  if (folder == nullptr) return errno;
  const std::unique_ptr<DIR, int (*)(DIR*)> close(folder, ::closedir);
  for (;;) {
    errno = 0;
    const dirent* entry = ::readdir(folder);
    if (entry == nullptr) return errno;
    const std::string_view name = entry->d_name;
    if (name == "." || name == "..") continue;
    bool regular = entry->d_type == DT_REG;
    if (entry->d_type == DT_UNKNOWN) {
      struct stat st {};
      regular = ::lstat(join_path(dir, name).c_str(), &st) == 0 && S_ISREG(st.st_mode);
    }
    names.emplace_back(name, regular);
  }
}

/// Lists a folder tree: every regular file once, in path order, without following a link back
/// into a folder already listed. A file is told by its entry's type, not a stat() of its own (a
/// folder of 40 000 small logs: a system call each, on a VM a few microseconds), so a second
/// link is found among the files only where the tree holds a symbolic link to one; a second hard
/// link, by read_path's stat of the opened file.
class FolderWalk {
 public:
  FolderWalk(const std::string& root, ReadContext& ctx) : root_(root), ctx_(ctx) {}

  struct File {
    std::string path, rel;  ///< the path to open, and its name relative to the folder
    mode_t mode;            ///< its type, as the walk found it
  };
  std::vector<File> files() {
    struct stat st {};
    if (::stat(root_.c_str(), &st) == 0) dirs_.insert({st.st_dev, st.st_ino});
    walk(root_, "", 0);
    if (linked_file_) drop_second_links();
    return std::move(files_);
  }

 private:
  void walk(const std::string& dir, const std::string& rel, int depth) {
    std::vector<std::pair<std::string, bool>> names;  // (name, a regular file by its entry)
    if (const int err = list_folder(dir, names); err != 0) {
      ctx_.warn(code::kUnreadable, rel.empty() ? root_ : rel, fmt::format("cannot list the folder: {}", errno_text(err)));
      return;
    }
    std::sort(names.begin(), names.end());
    for (const auto& [name, regular] : names) {
      if (excluded(name, ctx_.options)) continue;
      const std::string path = join_path(dir, name);
      const std::string child = rel.empty() ? name : rel + "/" + name;
      if (regular) {
        files_.push_back({path, child, S_IFREG});
        continue;
      }
      struct stat st {};
      if (::stat(path.c_str(), &st) != 0) {
        report_stat_failure(path, child, errno, ctx_, core::DiagLevel::warning);
        continue;
      }
      if (const std::string outside = S_ISDIR(st.st_mode) || S_ISREG(st.st_mode) ? leads_outside(path) : std::string();
          !outside.empty()) {
        ctx_.warn(code::kLink, child,
                  fmt::format("a symbolic link out of the input folder (to '{}'); not followed (name the target to "
                              "read it)",
                              outside));
        continue;
      }
      const FileKey key{st.st_dev, st.st_ino};
      if (S_ISDIR(st.st_mode)) {
        if (!dirs_.insert(key).second) {
          ctx_.warn(code::kLink, child, "leads to a folder already read (a symbolic link loop or a second link); not followed");
          continue;
        }
        if (depth + 1 > ctx_.options.max_depth) {
          ctx_.warn(code::kTooDeep, child,
                    fmt::format("more than {} folders deep; skipped", ctx_.options.max_depth));
          continue;
        }
        walk(path, child, depth + 1);
      } else if (S_ISREG(st.st_mode)) {  // through a symbolic link
        linked_file_ = true;
        files_.push_back({path, child, st.st_mode});
      } else {
        ctx_.warn(code::kNotFile, child, not_a_file_reason(st.st_mode));
      }
    }
  }

  /// Keeps the first of each file listed twice, in path order, and notes the others.
  void drop_second_links() {
    ReadFiles first;
    std::vector<File> kept;
    for (File& f : files_) {
      struct stat st {};
      if (::stat(f.path.c_str(), &st) == 0) {
        auto [it, fresh] = first.emplace(FileKey{st.st_dev, st.st_ino}, f.rel);
        if (!fresh) {
          note_second_link(ctx_, f.rel, it->second);
          continue;
        }
      }  // else read_path says why it cannot be read
      kept.push_back(std::move(f));
    }
    files_ = std::move(kept);
  }

  /// Where the symbolic link `path` leads when that is outside the folder being read, else ''.
  /// Links are followed inside the tree (`latest -> run-7/`) but not out of it, as ripgrep
  /// follows none by default: a received tarball's `debug.log -> ../../.ssh/id_rsa` must not
  /// become evidence. A link named on the command line is the user's choice and is followed.
  std::string leads_outside(const std::string& path) {
    struct stat lst {};
    if (::lstat(path.c_str(), &lst) != 0 || !S_ISLNK(lst.st_mode)) return {};
    if (root_real_.empty()) {
      std::unique_ptr<char, decltype(&std::free)> root(::realpath(root_.c_str(), nullptr), &std::free);
      root_real_ = root ? root.get() : root_;
    }
    std::unique_ptr<char, decltype(&std::free)> target(::realpath(path.c_str(), nullptr), &std::free);
    if (!target) return {};  // stat above found it; a race is read_path's to report
    const std::string_view t(target.get());
    const bool inside = t == root_real_ || (t.size() > root_real_.size() && t.substr(0, root_real_.size()) == root_real_ &&
                                             (root_real_ == "/" || t[root_real_.size()] == '/'));
    return inside ? std::string() : std::string(t);
  }

  std::string root_;
  std::string root_real_;  ///< the folder's real path, on the first link met
  ReadContext& ctx_;
  std::set<FileKey> dirs_;
  std::vector<File> files_;
  bool linked_file_ = false;  ///< a symbolic link to a regular file was listed
};

/// A parent of node folders: two or more subfolders that name hosts, or one and no log file
/// beside it (documentation does not count: a README next to `spark-a/`, `spark-b/`).
bool holds_node_folders(const std::vector<FolderWalk::File>& files) {
  std::set<std::string> nodes;
  bool top_level_log = false;
  for (const auto& f : files) {
    const std::string h = host_from_relative_path(f.rel);
    if (!h.empty()) nodes.insert(h);
    if (f.rel.find('/') == std::string::npos && !detail::is_documentation_name(f.rel)) top_level_log = true;
  }
  return nodes.size() >= 2 || (nodes.size() == 1 && !top_level_log);
}

}  // namespace

std::string host_from_relative_path(const std::string& relative) {
  // The first `host=NAME` folder, else the first folder of no generic name; never the file's
  // own name (the last part: a part is read once the next one shows it was a folder).
  std::optional<std::string_view> folder, host, named;
  for_each_path_part(relative, [&](std::string_view part) {
    if (folder) {
      if (!host && folder->rfind("host=", 0) == 0 && folder->size() > 5) host = folder->substr(5);
      if (!named && !generic_folder(*folder)) named = folder;
    }
    folder = part;
  });
  if (host) return std::string(*host);
  return named ? std::string(*named) : std::string();
}

std::string folder_host(const std::string& folder) {
  std::string name = fs::path(folder).lexically_normal().filename().string();
  if (name.empty()) name = fs::path(folder).lexically_normal().parent_path().filename().string();  // `spark-b/`
  if (name.empty() || name == ".." || generic_folder(name)) return {};
  return name;
}

void read_inputs(const std::vector<std::string>& inputs, const ReadOptions& options, core::Diagnostics& problems,
                 const SourceHandler& on_source) {
  ReadContext ctx{options, problems, on_source};
  const std::string given = options.default_host.empty() ? std::string() : std::string(host_from::kOption);
  for (const auto& input : inputs) {
    ctx.host_from = given;
    if (input == "-") {
      struct stat st {};
      ::fstat(STDIN_FILENO, &st);
      if (S_ISREG(st.st_mode)) st.st_mode = S_IFIFO;  // read from where it is, not from offset 0
      read_descriptor(STDIN_FILENO, st, "<stdin>", options.default_host, "-", true, ctx);
      continue;
    }
    struct stat st {};
    if (::stat(input.c_str(), &st) != 0) {
      report_stat_failure(input, input, errno, ctx, core::DiagLevel::error);
      continue;
    }
    if (!S_ISDIR(st.st_mode)) {
      read_path(input, input, options.default_host, input, true, st.st_mode, ctx);
      continue;
    }
    // A file's host: its node folder under the input (`spark-b/…`), else --host. A folder
    // named as an input that is not a parent of node folders is itself the host of all its
    // files (`culprit spark-b/`, subfolders such as `spark-b/smi/` included), and its files
    // are named under it (`spark-b/worker.log`), so node folders named one by one get the
    // hosts and names their parent gives them. Content may still say otherwise
    // (store::settle_folder_hosts).
    // --host names such a folder's host instead (its files keep their relative names).
    const auto files = FolderWalk(input, ctx).files();
    const bool parent = holds_node_folders(files);
    const bool named_folder = !parent && !folder_host(input).empty();
    const bool named = options.folder_is_host && named_folder;  // the folder is a host itself
    const std::string own = named && options.default_host.empty() ? folder_host(input) : std::string();
    // Its files are named under it whether or not it names their host (scan's incident folders).
    const std::string prefix =
        named_folder && options.default_host.empty() ? folder_host(input) + "/" : std::string();
    ReadFiles read;
    for (const auto& [path, rel, mode] : files) {
      std::string host = named ? own : host_from_relative_path(rel);
      ctx.host_from = host_from::kFolder;
      if (host.empty()) {
        host = options.default_host;
        ctx.host_from = given;
      }
      read_path(path, prefix + rel, host, input, false, mode, ctx, &read);
    }
  }
}

std::vector<Source> read_inputs(const std::vector<std::string>& inputs, const ReadOptions& options,
                                core::Diagnostics& problems) {
  std::vector<Source> out;
  read_inputs(inputs, options, problems, [&](Source& s) { out.push_back(std::move(s)); });
  return out;
}

}  // namespace culprit::input
