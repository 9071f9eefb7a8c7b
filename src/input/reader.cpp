// Input reading: files, folders (node-per-subfolder), archives and compressed files through
// libarchive (streamed into memory, never extracted to disk), and standard input.
#include "culprit/input/reader.hpp"

#include <archive.h>
#include <archive_entry.h>
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <set>

namespace culprit::input {
namespace fs = std::filesystem;
namespace {

core::Diagnostic problem(std::string code, std::string where, std::string message,
                         core::DiagLevel level = core::DiagLevel::warning) {
  return {level, std::move(code), std::move(where), std::move(message)};
}

bool excluded(const std::string& name, const ReadOptions& options) {
  for (const auto& glob : options.excludes)
    if (fnmatch(glob.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_archive_name(const std::string& name) {
  static const char* kSuffixes[] = {".tar", ".tgz", ".tar.gz", ".tar.zst", ".tzst", ".tar.xz", ".txz",
                                    ".tar.bz2", ".zip", ".gz", ".zst", ".xz", ".bz2"};
  for (const char* s : kSuffixes)
    if (ends_with(name, s)) return true;
  return false;
}

/// Folder names that describe content, not a node; they never become host names.
bool generic_folder(const std::string& name) {
  static const std::set<std::string> kGeneric = {
      "logs", "log", "var", "tmp", "output", "outputs", "data", "kernel", "dmesg", "journal",
      "nvidia", "gpu", "workers", "worker", "ranks", "artifacts", "incident", "syslog", "."};
  return kGeneric.count(name) > 0;
}

/// Archives usually wrap everything in one folder named after the job (`incident-17/node-03/…`):
/// then hosts come from the level below it. Re-derives the hosts of `out[first..]` so.
void rehost_single_root(std::vector<Source>& out, size_t first, const std::string& display, const std::string& host) {
  if (!host.empty() || out.size() <= first) return;
  const std::string prefix = display + "!/";
  std::string root;
  for (size_t i = first; i < out.size(); ++i) {
    if (out[i].name.rfind(prefix, 0) != 0) return;
    const std::string member = out[i].name.substr(prefix.size());
    const auto slash = member.find('/');
    if (slash == std::string::npos) return;  // a file at the top: no single root folder
    const std::string top = member.substr(0, slash);
    if (root.empty()) root = top;
    else if (root != top) return;
  }
  for (size_t i = first; i < out.size(); ++i)
    out[i].host = host_from_relative_path(out[i].name.substr(prefix.size() + root.size() + 1));
}

/// Reads an archive or compressed file with libarchive. Members become sources named
/// `archive!/member`; a bare compressed file becomes one source named after the file.
void read_archive(const fs::path& path, const std::string& display, const std::string& host,
                  const std::string& origin, const ReadOptions& options, std::vector<Source>& out,
                  core::Diagnostics& problems) {
  archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_all(a);
  archive_read_support_format_raw(a);
  if (archive_read_open_filename(a, path.c_str(), 1 << 16) != ARCHIVE_OK) {
    problems.push_back(problem("input-archive", display,
                               fmt::format("cannot open archive: {}", archive_error_string(a))));
    archive_read_free(a);
    return;
  }
  std::int64_t total = 0;
  const size_t first_member = out.size();
  archive_entry* entry = nullptr;
  int rc;
  while ((rc = archive_read_next_header(a, &entry)) == ARCHIVE_OK || rc == ARCHIVE_WARN) {
    if (archive_entry_filetype(entry) != AE_IFREG && archive_format(a) != ARCHIVE_FORMAT_RAW) {
      archive_read_data_skip(a);
      continue;
    }
    const char* raw_name = archive_entry_pathname(entry);
    std::string member = raw_name ? raw_name : "data";
    const bool raw = archive_format(a) == ARCHIVE_FORMAT_RAW;
    const std::string base = fs::path(member).filename().string();
    if (!raw && excluded(base, options)) {
      archive_read_data_skip(a);
      continue;
    }
    Source src;
    src.origin = origin;
    src.name = raw ? display : display + "!/" + member;
    src.host = host;
    if (!raw && src.host.empty()) src.host = host_from_relative_path(member);
    char buf[1 << 16];
    la_ssize_t n;
    bool cut = false;
    while ((n = archive_read_data(a, buf, sizeof buf)) > 0) {
      if (static_cast<std::int64_t>(src.text.size()) + n > options.max_file_bytes ||
          total + n > options.max_total_bytes) {
        cut = true;
        break;
      }
      src.text.append(buf, static_cast<size_t>(n));
      total += n;
    }
    if (n < 0)
      problems.push_back(problem("input-archive-data", src.name,
                                 fmt::format("archive data is damaged ({}); kept the {} bytes read before it",
                                             archive_error_string(a), src.text.size())));
    if (cut)
      problems.push_back(problem("input-too-large", src.name,
                                 fmt::format("stopped reading after {} bytes (size limit)", src.text.size())));
    out.push_back(std::move(src));
    if (cut && total >= options.max_total_bytes) break;
  }
  if (rc == ARCHIVE_FATAL)
    problems.push_back(problem("input-archive", display,
                               fmt::format("archive is damaged: {}", archive_error_string(a))));
  archive_read_free(a);
  rehost_single_root(out, first_member, display, host);
}

void read_file(const fs::path& path, const std::string& display, const std::string& host,
               const std::string& origin, const ReadOptions& options, std::vector<Source>& out,
               core::Diagnostics& problems) {
  std::error_code ec;
  auto status = fs::status(path, ec);
  if (ec) {
    problems.push_back(problem("input-unreadable", display, ec.message()));
    return;
  }
  if (!fs::is_regular_file(status)) {
    problems.push_back(problem("input-not-file", display,
                               "not a regular file (a FIFO, device or socket); skipped"));
    return;
  }
  if (is_archive_name(display)) {
    read_archive(path, display, host, origin, options, out, problems);
    return;
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    problems.push_back(problem("input-unreadable", display, "cannot open for reading (permission?)"));
    return;
  }
  Source src;
  src.name = display;
  src.host = host;
  src.origin = origin;
  const auto size = fs::file_size(path, ec);
  const std::int64_t want = ec ? options.max_file_bytes
                               : std::min<std::int64_t>(static_cast<std::int64_t>(size), options.max_file_bytes);
  src.text.resize(static_cast<size_t>(want));
  in.read(src.text.data(), want);
  src.text.resize(static_cast<size_t>(in.gcount()));
  if (!ec && static_cast<std::int64_t>(size) > options.max_file_bytes)
    problems.push_back(problem("input-too-large", display,
                               fmt::format("file is {} bytes; read the first {}", size, src.text.size())));
  out.push_back(std::move(src));
}

void read_folder(const fs::path& root, const std::string& display_root, const std::string& default_host,
                 const ReadOptions& options, std::vector<Source>& out, core::Diagnostics& problems) {
  std::vector<fs::path> files;
  std::error_code ec;
  fs::recursive_directory_iterator it(root, fs::directory_options::skip_permission_denied, ec), end;
  if (ec) {
    problems.push_back(problem("input-unreadable", display_root, ec.message()));
    return;
  }
  for (; it != end; it.increment(ec)) {
    if (ec) {
      problems.push_back(problem("input-unreadable", display_root, ec.message()));
      break;
    }
    if (it.depth() > 16) {  // deep trees (or loops through bind mounts) stop here
      it.disable_recursion_pending();
      continue;
    }
    const auto& p = it->path();
    if (excluded(p.filename().string(), options)) {
      if (it->is_directory(ec)) it.disable_recursion_pending();
      continue;
    }
    if (it->is_symlink(ec) && it->is_directory(ec)) {
      it.disable_recursion_pending();  // never follow folder links: no loops
      continue;
    }
    if (!it->is_directory(ec)) files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    const std::string rel = fs::relative(f, root, ec).generic_string();
    std::string host = host_from_relative_path(rel);
    if (host.empty()) host = default_host;
    read_file(f, rel, host, display_root, options, out, problems);
  }
}

}  // namespace

std::string host_from_relative_path(const std::string& relative) {
  fs::path p(relative);
  std::vector<std::string> parts;
  for (const auto& part : p) parts.push_back(part.string());
  if (parts.size() < 2) return {};
  for (size_t i = 0; i + 1 < parts.size(); ++i) {
    const auto& part = parts[i];
    if (part.rfind("host=", 0) == 0 && part.size() > 5) return part.substr(5);
  }
  for (size_t i = 0; i + 1 < parts.size(); ++i)
    if (!generic_folder(parts[i])) return parts[i];
  return {};
}

std::vector<Source> read_inputs(const std::vector<std::string>& inputs, const ReadOptions& options,
                                core::Diagnostics& problems) {
  std::vector<Source> out;
  for (const auto& input : inputs) {
    if (input == "-") {
      Source src;
      src.name = "<stdin>";
      src.host = options.default_host;
      src.origin = "-";
      src.from_stdin = true;
      src.text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
      out.push_back(std::move(src));
      continue;
    }
    std::error_code ec;
    fs::path path(input);
    auto status = fs::status(path, ec);
    if (ec || !fs::exists(status)) {
      problems.push_back(problem("input-missing", input, "no such file or folder", core::DiagLevel::error));
      continue;
    }
    if (fs::is_directory(status)) read_folder(path, input, options.default_host, options, out, problems);
    else read_file(path, input, options.default_host, input, options, out, problems);
  }
  return out;
}

}  // namespace culprit::input
