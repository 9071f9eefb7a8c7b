// libarchive's writer (opened on first use: input/archive_library.hpp): pax restricted tar with
// the zstd filter, member names `FOLDER/host/file`.
#include "cli/snapshot_archive.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <vector>

#include <fmt/format.h>

#include "cli/interrupt.hpp"
#include "input/archive_library.hpp"

namespace culprit::cli {
namespace fs = std::filesystem;

std::string write_tar_zst(const std::string& folder, const std::string& archive) {
  const fs::path root = fs::path(folder).lexically_normal();
  std::string base = root.filename().string();
  if (base.empty()) base = root.parent_path().filename().string();
  std::vector<fs::path> files;
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
       it.increment(ec))
    if (it->is_regular_file(ec)) files.push_back(it->path());
  if (ec) return fmt::format("cannot list {}: {}", folder, ec.message());
  std::sort(files.begin(), files.end());

  const input::archive_library::Functions* loaded = input::archive_library::get();
  if (!loaded) return fmt::format("cannot write .tar.zst: {}", input::archive_library::error());
  const input::archive_library::Functions& la = *loaded;
  const std::string tmp = fmt::format("{}.tmp-{}", archive, ::getpid());
  const TempFileGuard guard(tmp);
  std::unique_ptr<struct archive, decltype(la.archive_write_free)> a(la.archive_write_new(), la.archive_write_free);
  if (!a || la.archive_write_set_format_pax_restricted(a.get()) != ARCHIVE_OK ||
      la.archive_write_add_filter_zstd(a.get()) != ARCHIVE_OK)
    return fmt::format("cannot write .tar.zst: {}", a ? la.archive_error_string(a.get()) : "libarchive");
  if (la.archive_write_open_filename(a.get(), tmp.c_str()) != ARCHIVE_OK)
    return fmt::format("cannot write {}: {}", tmp, la.archive_error_string(a.get()));
  std::string error;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    std::unique_ptr<archive_entry, decltype(la.archive_entry_free)> e(la.archive_entry_new(), la.archive_entry_free);
    const std::string name = base + "/" + f.lexically_relative(root).generic_string();
    la.archive_entry_set_pathname(e.get(), name.c_str());
    la.archive_entry_set_filetype(e.get(), AE_IFREG);
    la.archive_entry_set_perm(e.get(), 0644);
    la.archive_entry_set_size(e.get(), static_cast<la_int64_t>(data.size()));
    la.archive_entry_set_mtime(e.get(), ::time(nullptr), 0);
    if (la.archive_write_header(a.get(), e.get()) != ARCHIVE_OK ||
        la.archive_write_data(a.get(), data.data(), data.size()) != static_cast<la_ssize_t>(data.size())) {
      error = fmt::format("cannot write {} into {}: {}", name, tmp, la.archive_error_string(a.get()));
      break;
    }
  }
  if (la.archive_write_close(a.get()) != ARCHIVE_OK && error.empty())
    error = fmt::format("cannot finish {}: {}", tmp, la.archive_error_string(a.get()));
  if (error.empty()) {
    fs::rename(tmp, archive, ec);
    if (ec) error = fmt::format("cannot move {} into place: {}", archive, ec.message());
  }
  if (!error.empty()) std::remove(tmp.c_str());
  return error;
}

}  // namespace culprit::cli
