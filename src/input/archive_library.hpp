// libarchive, loaded on first use: the one home of the libarchive functions culprit calls (the
// archive reader here, the cli's snapshot writer and its version line), looked up with dlopen +
// dlsym the first time one is needed. Linked instead, libarchive and the ten libraries it needs
// (nettle, acl, lzma, zstd, lz4, bz2, z, xml2, ICU) load at every start: ~165 page faults,
// 4-5 ms on a VM, for every paste, which never reads an archive.
#pragma once

#include <archive.h>  // types and constants only: nothing here links against libarchive
#include <archive_entry.h>
#include <zlib.h>  // types only: zlib is reached through the libz libarchive loads (inflate())

#include <memory>
#include <string>

namespace culprit::input::archive_library {

/// Every libarchive function culprit calls. A call site that needs another one adds it here.
#define CULPRIT_LIBARCHIVE_FUNCTIONS(X)                                                              \
  X(archive_version_string)                                                                          \
  X(archive_error_string)                                                                            \
  X(archive_format)                                                                                  \
  X(archive_filter_count)                                                                            \
  X(archive_filter_bytes)                                                                            \
  X(archive_read_new)                                                                                \
  X(archive_read_free)                                                                               \
  X(archive_read_support_filter_gzip)                                                                \
  X(archive_read_support_filter_bzip2)                                                               \
  X(archive_read_support_filter_xz)                                                                  \
  X(archive_read_support_filter_lzma)                                                                \
  X(archive_read_support_filter_zstd)                                                                \
  X(archive_read_support_filter_lz4)                                                                 \
  X(archive_read_support_format_tar)                                                                 \
  X(archive_read_support_format_gnutar)                                                              \
  X(archive_read_support_format_zip)                                                                 \
  X(archive_read_support_format_raw)                                                                 \
  X(archive_read_open_fd)                                                                            \
  X(archive_read_open_memory)                                                                        \
  X(archive_read_next_header)                                                                        \
  X(archive_read_data)                                                                               \
  X(archive_read_data_block)                                                                         \
  X(archive_write_new)                                                                               \
  X(archive_write_free)                                                                              \
  X(archive_write_set_format_pax_restricted)                                                         \
  X(archive_write_add_filter_zstd)                                                                   \
  X(archive_write_open_filename)                                                                     \
  X(archive_write_header)                                                                            \
  X(archive_write_data)                                                                              \
  X(archive_write_close)                                                                             \
  X(archive_entry_new)                                                                               \
  X(archive_entry_free)                                                                              \
  X(archive_entry_pathname)                                                                          \
  X(archive_entry_filetype)                                                                          \
  X(archive_entry_symlink)                                                                           \
  X(archive_entry_hardlink)                                                                          \
  X(archive_entry_size)                                                                              \
  X(archive_entry_size_is_set)                                                                       \
  X(archive_entry_set_pathname)                                                                      \
  X(archive_entry_set_filetype)                                                                      \
  X(archive_entry_set_perm)                                                                          \
  X(archive_entry_set_size)                                                                          \
  X(archive_entry_set_mtime)

/// The functions under libarchive's own names, with libarchive's own types: `la.archive_read_new()`.
struct Functions {
  // NOLINTNEXTLINE(bugprone-macro-parentheses): `name` declares a member; it cannot be parenthesised
#define CULPRIT_LIBARCHIVE_POINTER(name) decltype(&::name) name = nullptr;
  CULPRIT_LIBARCHIVE_FUNCTIONS(CULPRIT_LIBARCHIVE_POINTER)
#undef CULPRIT_LIBARCHIVE_POINTER
};

/// A library opened by open(): every function, or none and why.
struct Library {
  std::unique_ptr<const Functions> functions;  ///< null when the library or a function is missing
  std::string error;                           ///< what failed and what to do (empty on success)
};

/// The soname culprit was built against (`libarchive.so.13`).
extern const char* const kSoname;

/// Opens `soname` and looks up every function. The library is never closed: the functions stay
/// valid for the process. For tests (a missing library gives the message a run would give);
/// code calls get().
Library open(const char* soname);

/// libarchive's functions, opened on the first call (kSoname; thread-safe; the same answer
/// afterwards). Null when it cannot be loaded: the caller reports error() as a diagnostic about
/// the input it could not read, and the run goes on.
const Functions* get();
/// Why get() returned null (empty when it did not).
const std::string& error();

/// Why the last call on `a` failed, in libarchive's words ("unknown error" where it gives none).
std::string error_text(const Functions& la, archive* a);

/// zlib's inflate, from the libz.so.1 that libarchive itself loads: the one way to read a gzip
/// cut before libarchive's first 64 KiB output block (its filter fails the whole open then,
/// where zcat keeps what decoded). Null when it cannot be found; call after get().
struct Inflate {
  decltype(&::inflateInit2_) init = nullptr;
  decltype(&::inflate) inflate = nullptr;
  decltype(&::inflateEnd) end = nullptr;
};
const Inflate* inflate();

}  // namespace culprit::input::archive_library
