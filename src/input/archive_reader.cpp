// Archives and compressed files through libarchive (loaded on the first one: archive_library.hpp),
// streamed member by member into memory, never extracted to disk. Guards: the per-file and
// per-run byte limits, an expansion-ratio limit against archive bombs, and a nesting limit for
// archives inside archives.
#include <fnmatch.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <functional>
#include <memory>
#include <vector>

#include "culprit/input/reader.hpp"
#include "input/archive_library.hpp"
#include "input/archive_stream.hpp"
#include "input/read_context.hpp"
#include "input/source_pieces.hpp"

namespace culprit::input {
namespace detail {
namespace {

using Functions = archive_library::Functions;
using ArchivePtr = std::unique_ptr<archive, decltype(Functions::archive_read_free)>;

/// Only the compressions and formats logs come in. Not `_all()`: some filters run external
/// programs (lrzip, lzop, grzip), and text-based formats such as mtree take any text for an
/// archive and keep every line in memory — on hostile input, an unbounded allocation.
ArchivePtr new_reader(const Functions& la) {
  ArchivePtr a(la.archive_read_new(), la.archive_read_free);
  archive* r = a.get();
  la.archive_read_support_filter_gzip(r);
  la.archive_read_support_filter_bzip2(r);
  la.archive_read_support_filter_xz(r);
  la.archive_read_support_filter_lzma(r);
  la.archive_read_support_filter_zstd(r);
  la.archive_read_support_filter_lz4(r);
  la.archive_read_support_format_tar(r);  // ustar, pax, GNU
  la.archive_read_support_format_gnutar(r);
  la.archive_read_support_format_zip(r);
  la.archive_read_support_format_raw(r);  // a bare .gz / .zst / .xz: one stream, no members
  return a;
}

bool excluded(const std::string& name, const ReadOptions& options) {
  for (const auto& glob : options.excludes)
    if (fnmatch(glob.c_str(), name.c_str(), 0) == 0) return true;
  return false;
}

/// A member's path without a leading `./`.
std::string member_path(const Functions& la, archive_entry* entry) {
  const char* raw = la.archive_entry_pathname(entry);
  std::string path = raw && *raw ? raw : "data";
  while (path.rfind("./", 0) == 0) path.erase(0, 2);
  return path;
}

/// The one folder every file of the archive sits in (`incident-17` of `incident-17/node-03/
/// dmesg`), or '' when files sit at the top or in several folders: archives usually wrap
/// everything in a folder named after the job, and then hosts come from the level below it.
/// A first pass over the headers, bounded like the reading pass (ratio and total limits).
std::string single_root(const Functions& la, archive* a, const ReadOptions& o) {
  std::string root;
  archive_entry* entry = nullptr;
  while (la.archive_read_next_header(a, &entry) == ARCHIVE_OK) {
    if (la.archive_format(a) == ARCHIVE_FORMAT_RAW) return {};
    if (la.archive_entry_filetype(entry) != AE_IFREG) continue;
    const std::string path = member_path(la, entry);
    if (excluded(std::filesystem::path(path).filename().string(), o)) continue;
    const auto slash = path.find('/');
    if (slash == std::string::npos) return {};
    const std::string top = path.substr(0, slash);
    if (root.empty()) root = top;
    else if (root != top) return {};
    // Skip the data by reading it (archive_read_data_skip would decompress a huge member in
    // one call, past the bomb check), block by block in libarchive's own buffer: no copy.
    const void* block = nullptr;
    size_t size = 0;
    la_int64_t offset = 0;
    int n;
    while ((n = la.archive_read_data_block(a, &block, &size, &offset)) == ARCHIVE_OK) {
      const std::int64_t out = la.archive_filter_bytes(a, 0), in = std::max<la_int64_t>(la.archive_filter_bytes(a, -1), 1);
      if ((out > o.archive_ratio_floor && out > o.max_archive_ratio * in) || out > o.max_total_bytes) return root;
    }
    if (n != ARCHIVE_EOF) break;
  }
  return root;
}

/// The decoded size a bare compressed stream says it has, -1 when it does not say: a zstd frame
/// header's content size (zstd writes it when it knows the input's size), else gzip's ISIZE
/// (its last 4 bytes: the size mod 2^32 of the last member). `head`: the first bytes, `tail`:
/// the last 4. Only a hint to size the text's buffer once, instead of growing it by copies: a
/// wrong one (several members, damage, a lie) costs address space, not a different text, and
/// the caller bounds it as the reading is bounded.
std::int64_t stream_size_hint(std::string_view head, std::string_view tail) {
  auto byte = [&](std::size_t i) { return static_cast<std::uint64_t>(static_cast<unsigned char>(head[i])); };
  using namespace std::string_view_literals;
  if (head.size() >= 6 && head.substr(0, 4) == "\x28\xb5\x2f\xfd"sv) {
    const std::uint64_t descriptor = byte(4);
    const bool single_segment = (descriptor >> 5) & 1;
    static constexpr std::size_t kDictionaryBytes[] = {0, 1, 2, 4};
    static constexpr std::size_t kSizeBytes[] = {0, 2, 4, 8};
    const std::size_t at = 5 + (single_segment ? 0 : 1) + kDictionaryBytes[descriptor & 3];
    const std::size_t n = (descriptor >> 6) == 0 ? (single_segment ? 1 : 0) : kSizeBytes[descriptor >> 6];
    if (n == 0 || head.size() < at + n) return -1;
    std::uint64_t size = 0;
    for (std::size_t i = 0; i < n; ++i) size |= byte(at + i) << (8 * i);
    if (n == 2) size += 256;
    return size > static_cast<std::uint64_t>(INT64_MAX) ? -1 : static_cast<std::int64_t>(size);
  }
  if (head.size() >= 2 && head.substr(0, 2) == "\x1f\x8b"sv && tail.size() == 4) {
    std::int64_t size = 0;
    for (std::size_t i = 0; i < 4; ++i) size |= static_cast<std::int64_t>(static_cast<unsigned char>(tail[i])) << (8 * i);
    return size;
  }
  return -1;
}

/// libarchive's functions, loaded on the first archive (archive_library.hpp); null after a
/// warning naming `display` when they cannot be: the run goes on without this input.
const Functions* library(const std::string& display, ReadContext& ctx) {
  const Functions* la = archive_library::get();
  if (!la) ctx.warn(code::kArchive, display, fmt::format("cannot read this archive: {}", archive_library::error()));
  return la;
}

/// Reads every member of an opened archive. `root`: see single_root(). `raw_size`: the size a
/// bare compressed stream says it decodes to (stream_size_hint(); -1 unknown), `compressed`
/// its size. The decoding runs on an ArchiveStream's worker; this thread keeps every limit and
/// message, in stream order, and ingests a member (ctx.emit) while the worker decodes the next.
void read_members(const Functions& la, archive* a, const std::string& display, const std::string& host, const std::string& root,
                  const std::string& origin, ReadContext& ctx, int nesting, std::int64_t raw_size = -1,
                  std::int64_t compressed = 0) {
  const ReadOptions& o = ctx.options;
  std::int64_t produced = 0;  // decompressed bytes this archive gave us (the bomb check)
  int members = 0;
  std::int64_t read = 0;  // members read as sources (the max_archive_members bound)
  ArchiveStream stream(la, a, [&o](const std::string& base) { return excluded(base, o); });
  using Kind = Piece::Kind;
  for (Piece piece = stream.next(); piece.kind != Kind::end; piece = stream.next()) {
    if (piece.kind == Kind::damaged) {
      ctx.warn(code::kArchive, display,
               fmt::format("archive is damaged ({}); kept the members read before it", piece.error));
      return;
    }
    if (piece.kind == Kind::data) stream.release(piece.block);
    if (piece.kind != Kind::header) continue;  // never: a member's data is taken below
    if (piece.unrecognised) {
      // libarchive recognised neither a compression nor an archive format.
      ctx.warn(code::kArchive, display, "not an archive or compressed file that can be read (damaged?); skipped");
      return;
    }
    const auto number = static_cast<std::uint64_t>(++members);
    // Links, devices, FIFOs: never followed nor opened, and said so (unless --exclude names them).
    if (!piece.not_read.empty() && !excluded(std::filesystem::path(piece.member).filename().string(), o))
      ctx.warn(code::kNotFile, display + "!/" + piece.member, piece.not_read, core::DiagLevel::note);
    if (!piece.wanted) continue;  // folders, links, devices; excluded names (no data follows)
    if (o.max_archive_members > 0 && ++read > o.max_archive_members) {
      ctx.warn(code::kTooManyMembers, display,
               fmt::format("more than {} files in the archive; the rest are not read (a bound on what one archive may "
                           "hold)",
                           o.max_archive_members));
      return;
    }
    const bool raw = piece.raw;
    const std::string& member = piece.member;
    std::string path = member;
    while (path.rfind("./", 0) == 0) path.erase(0, 2);
    Source src;
    src.origin = origin;
    src.name = raw ? display : display + "!/" + member;
    if (!ctx.can_read(src.name)) return;
    src.host = host;
    src.host_from = ctx.host_from;
    if (!raw && src.host.empty()) {
      src.host = host_from_relative_path(root.empty() || path.size() <= root.size() ? path : path.substr(root.size() + 1));
      if (!src.host.empty()) src.host_from = host_from::kFolder;
    }
    // Members that are archives themselves are read whole (bounded), then opened from memory.
    const bool nested_name = !raw && nesting < o.max_archive_nesting && is_archive_name(member);
    const std::int64_t room = ctx.room();
    // The buffer is sized once: from the member's header, or what a bare stream says it
    // decodes to, no more than the room and the bomb check let it grow to.
    std::int64_t expected = piece.size;
    const bool hinted = raw && expected < 0 && raw_size > 0;
    if (hinted)
      expected = std::min(raw_size, std::max(o.archive_ratio_floor, o.max_archive_ratio * std::max<std::int64_t>(compressed, 1)));
    // A member that is an archive itself keeps its bytes (the cutter also stops at its magic).
    SourcePieces pieces(src, ctx, nested_name ? 0 : o.max_line_bytes, nested_name);
    if (expected > 0) pieces.reserve(std::min(expected, room));
    bool cut = false, bomb = false, failed = false, fatal = false;
    std::string failure;
    for (Piece part = stream.next(); part.kind == Kind::data || part.kind == Kind::data_error; part = stream.next()) {
      if (part.kind == Kind::data_error) {
        failed = true;
        fatal = part.rc == ARCHIVE_FATAL;
        failure = part.error;
        continue;
      }
      const auto got = static_cast<std::int64_t>(part.bytes);
      const bool left = cut || bomb;  // past a cut: data the old reading never asked for
      if (!left) {
        const std::int64_t keep = std::min<std::int64_t>(got, room - pieces.read_bytes());
        if (keep > 0) pieces.append(std::string_view(stream.block_data(part.block), static_cast<size_t>(keep)));
        produced += got;
        const std::int64_t consumed = std::max<std::int64_t>(part.consumed, 1);
        if (produced > o.archive_ratio_floor && produced > o.max_archive_ratio * consumed) {
          bomb = true;
          ctx.warn(code::kArchiveBomb, src.name,
                   fmt::format("expanded to {} from {} of compressed data (more than {}:1; an archive bomb?); "
                               "stopped reading this archive, kept what was read",
                               human_bytes(produced), human_bytes(consumed), o.max_archive_ratio));
        } else if (keep < got) {
          cut = true;
        }
        if (cut) stream.skip_member(number);
      }
      stream.release(part.block);
      if (bomb) break;
    }
    pieces.finish();
    // Less than the hint (cut lines, a stream that said more): give the rest back.
    if (hinted && src.text.capacity() - src.text.size() > (src.text.size() >> 3) + (64 << 10)) src.text.shrink_to_fit();
    // A data error after the cut was not read before the worker ran ahead; only a fatal one
    // (the archive cannot go on) still counts, as the damage the next header would have met.
    if (failed && !cut && !bomb)
      ctx.warn(code::kArchiveData, src.name,
               fmt::format("data is damaged ({}); kept the {} read before it", failure, human_bytes(pieces.read_bytes())));
    if (cut)
      ctx.warn(code::kTooLarge, src.name,
               fmt::format("stopped reading after {} (size limit for one file)", human_bytes(pieces.read_bytes())));
    const bool nested = nesting < o.max_archive_nesting && !raw &&
                        (nested_name || looks_like_archive(std::string_view(src.text).substr(0, 512)));
    if (nested) {
      const std::string bytes = std::move(src.text);  // freed when the nested read returns
      read_archive_bytes(std::string_view(bytes), src.name, src.host, origin, ctx, nesting + 1);
    } else if (!src.text.empty() || !failed || cut || bomb) {
      ctx.emit(src);
    }
    if (bomb) return;
    if (fatal && cut) {
      ctx.warn(code::kArchive, display,
               fmt::format("archive is damaged ({}); kept the members read before it", failure));
      return;
    }
    if (fatal) return;  // the reader cannot go on; the message above says so
  }
  if (members == 0) ctx.warn(code::kArchive, display, "an archive with no files in it; nothing to read");
}

/// A gzip stream libarchive could not open — cut before its gzip filter's first 64 KiB output
/// block, the filter fails the whole open ("truncated gzip input") — decoded with zlib up to the
/// damage, as zcat does, and read as the stream it is, with a note. False (nothing said, nothing
/// read) when it is no gzip, zlib is not at hand or nothing decodes: the caller says it cannot
/// open it. The limits are read_members' own: the room left and the bomb ratio.
bool read_truncated_gzip(std::string_view compressed, const std::string& display, const std::string& host,
                         const std::string& origin, ReadContext& ctx, int nesting) {
  const ReadOptions& o = ctx.options;
  const archive_library::Inflate* z = archive_library::inflate();
  if (!z || compressed.size() < 18 || compressed.substr(0, 2) != "\x1f\x8b") return false;
  z_stream stream{};
  if (z->init(&stream, 15 + 16, ZLIB_VERSION, static_cast<int>(sizeof stream)) != Z_OK) return false;
  std::string text;
  const std::int64_t room = ctx.room();
  const std::int64_t most = std::min(room, std::max(o.archive_ratio_floor,
                                                    o.max_archive_ratio * static_cast<std::int64_t>(compressed.size())));
  stream.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(compressed.data()));
  stream.avail_in = static_cast<uInt>(compressed.size());
  int rc = Z_OK;
  char out[1 << 16];
  while (rc == Z_OK && static_cast<std::int64_t>(text.size()) < most) {
    stream.next_out = reinterpret_cast<Bytef*>(out);
    stream.avail_out = sizeof out;
    rc = z->inflate(&stream, Z_NO_FLUSH);
    const std::size_t got = sizeof out - stream.avail_out;
    text.append(out, std::min<std::size_t>(got, static_cast<std::size_t>(most - static_cast<std::int64_t>(text.size()))));
    if (got == 0 && rc == Z_OK) break;  // no progress: the input ended inside the stream
  }
  z->end(&stream);
  if (text.empty()) return false;
  const std::string why = rc == Z_STREAM_END ? "data after the gzip stream"
                          : stream.msg       ? std::string(stream.msg)
                                             : "truncated gzip input";
  ctx.warn(code::kArchiveData, display,
           fmt::format("data is damaged ({}); kept the {} that decoded before it, as zcat does", why,
                       human_bytes(static_cast<std::int64_t>(text.size()))));
  if (nesting < o.max_archive_nesting && looks_like_archive(std::string_view(text).substr(0, 512))) {
    read_archive_bytes(text, display, host, origin, ctx, nesting + 1);  // a cut .tar.gz: its members
    return true;
  }
  Source src;
  src.origin = origin;
  src.name = display;
  if (!ctx.can_read(src.name)) return true;
  src.host = host;
  src.host_from = ctx.host_from;
  SourcePieces pieces(src, ctx, o.max_line_bytes, false);
  pieces.append(text);
  pieces.finish();
  ctx.emit(src);
  return true;
}

}  // namespace

bool is_archive_name(std::string_view name) {
  static constexpr std::string_view kSuffixes[] = {".tar", ".tgz", ".tar.gz", ".tar.zst", ".tzst", ".tar.xz", ".txz",
                                                   ".tar.bz2", ".tbz2", ".zip", ".gz", ".zst", ".xz", ".bz2", ".lz4"};
  for (auto s : kSuffixes)
    if (name.size() >= s.size() && name.substr(name.size() - s.size()) == s) return true;
  return false;
}

namespace {

/// The dictionary a block header declares (its LZMA2 filter's property), or -1 (xz-file-format
/// 3.1: the header's size byte, its flags — filter count, optional sizes —, each filter's id and
/// properties).
std::int64_t block_dictionary(std::string_view header) {
  if (header.size() < 2 || header[0] == 0) return -1;
  std::size_t at = 2;
  const auto byte = [&](std::size_t i) { return static_cast<std::uint8_t>(header[i]); };
  const auto vli = [&](std::uint64_t& out) {
    out = 0;
    for (int i = 0; i < 9 && at < header.size(); ++i, ++at) {
      out |= static_cast<std::uint64_t>(byte(at) & 0x7F) << (7 * i);
      if ((byte(at) & 0x80) == 0) {
        ++at;
        return true;
      }
    }
    return false;
  };
  const std::uint8_t flags = byte(1);
  std::uint64_t ignored = 0;
  if ((flags & 0x40) && !vli(ignored)) return -1;  // compressed size
  if ((flags & 0x80) && !vli(ignored)) return -1;  // uncompressed size
  std::int64_t dictionary = -1;
  for (int f = 0; f <= (flags & 3); ++f) {
    std::uint64_t id = 0, size = 0;
    if (!vli(id) || !vli(size) || at + size > header.size()) return dictionary;
    if (id == 0x21 && size == 1) {  // LZMA2: bits 0-5 of its one property byte
      const int d = byte(at) & 0x3F;
      dictionary = d > 40 ? INT64_MAX : d == 40 ? std::int64_t{0xFFFFFFFF} : std::int64_t{2 | (d & 1)} << (d / 2 + 11);
    }
    at += size;
  }
  return dictionary;
}

constexpr std::string_view kXzMagic("\xfd" "7zXZ\x00", 6);

}  // namespace

std::int64_t xz_dictionary_bytes(std::string_view head) {
  // The stream header (magic, flags, CRC: 12 bytes), then the first block header.
  if (head.size() < 14 || head.substr(0, 6) != kXzMagic) return -1;
  return block_dictionary(head.substr(12));
}

std::int64_t xz_max_dictionary(const std::function<std::string(std::int64_t, std::size_t)>& read, std::int64_t size) {
  const auto le32 = [](std::string_view s, std::size_t i) {
    return static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[i])) |
           static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[i + 1])) << 8 |
           static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[i + 2])) << 16 |
           static_cast<std::uint32_t>(static_cast<std::uint8_t>(s[i + 3])) << 24;
  };
  std::int64_t largest = -1, pos = size;
  std::size_t blocks = 0;
  while (pos >= 24) {
    while (pos >= 4 && read(pos - 4, 4) == std::string(4, '\0')) pos -= 4;  // stream padding
    if (pos < 24) break;
    const std::string footer = read(pos - 12, 12);
    if (footer.size() != 12 || footer.compare(10, 2, "YZ") != 0) return -1;
    const std::int64_t index_size = (static_cast<std::int64_t>(le32(footer, 4)) + 1) * 4;
    const std::int64_t index_start = pos - 12 - index_size;
    if (index_size > kMaxXzIndexBytes || index_start < 12) return -1;
    const std::string index = read(index_start, static_cast<std::size_t>(index_size));
    if (index.size() != static_cast<std::size_t>(index_size) || index[0] != 0) return -1;
    std::size_t at = 1;
    const auto vli = [&](std::uint64_t& out) {
      out = 0;
      for (int i = 0; i < 9 && at < index.size(); ++i, ++at) {
        out |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(index[at]) & 0x7F) << (7 * i);
        if ((static_cast<std::uint8_t>(index[at]) & 0x80) == 0) {
          ++at;
          return true;
        }
      }
      return false;
    };
    std::uint64_t records = 0;
    if (!vli(records)) return -1;
    std::vector<std::int64_t> padded;
    std::int64_t blocks_bytes = 0;
    for (std::uint64_t r = 0; r < records; ++r) {
      std::uint64_t unpadded = 0, uncompressed = 0;
      if (!vli(unpadded) || !vli(uncompressed) || unpadded > static_cast<std::uint64_t>(size)) return -1;
      padded.push_back(static_cast<std::int64_t>((unpadded + 3) & ~std::uint64_t{3}));
      blocks_bytes += padded.back();
    }
    const std::int64_t stream_start = index_start - blocks_bytes - 12;
    if (stream_start < 0 || read(stream_start, 6) != kXzMagic) return -1;
    std::int64_t block = stream_start + 12;
    for (const std::int64_t bytes : padded) {
      if (++blocks > kMaxXzBlocksChecked) return largest;  // the bound: the rest unchecked
      const std::string size_byte = read(block, 1);
      if (size_byte.empty()) return -1;
      const std::size_t header_size = (static_cast<std::uint8_t>(size_byte[0]) + 1u) * 4u;
      largest = std::max(largest, block_dictionary(read(block, header_size)));
      block += bytes;
    }
    pos = stream_start;
  }
  return largest;
}

namespace {
/// False, with the warning, when the file (`read` over its `size` bytes) is an xz stream whose
/// decoder would need more than kMaxDictionaryBytes in any of its blocks: every block header the
/// streams' indexes list (up to kMaxXzBlocksChecked), else — no readable index: a cut file — the
/// first block's.
bool decoder_memory_ok(const std::function<std::string(std::int64_t, std::size_t)>& read, std::int64_t size,
                       const std::string& display, ReadContext& ctx) {
  const std::string head = read(0, 256);
  if (head.size() < 6 || std::string_view(head).substr(0, 6) != kXzMagic) return true;
  std::int64_t dictionary = xz_max_dictionary(read, size);
  if (dictionary < 0) dictionary = xz_dictionary_bytes(head);
  if (dictionary <= kMaxDictionaryBytes) return true;
  ctx.warn(code::kArchiveMemory, display,
           fmt::format("an xz stream whose dictionary is {} (more than {}, xz -9's); not read", human_bytes(dictionary),
                       human_bytes(kMaxDictionaryBytes)));
  return false;
}
}  // namespace

void read_archive_fd(int fd, const std::string& display, const std::string& host, const std::string& origin,
                     ReadContext& ctx, int nesting) {
  const Functions* loaded = library(display, ctx);
  if (!loaded) return;
  {
    struct stat info {};
    const bool regular = ::fstat(fd, &info) == 0 && S_ISREG(info.st_mode);
    const auto read_at = [fd](std::int64_t offset, std::size_t n) {
      std::string out(n, '\0');
      const ssize_t got = ::pread(fd, out.data(), n, offset);
      out.resize(got > 0 ? static_cast<std::size_t>(got) : 0);
      return out;
    };
    if (!decoder_memory_ok(read_at, regular ? info.st_size : 0, display, ctx)) return;
  }
  const Functions& la = *loaded;
  std::string root;
  if (host.empty()) {
    auto scan = new_reader(la);
    if (la.archive_read_open_fd(scan.get(), fd, 1 << 16) == ARCHIVE_OK) root = single_root(la, scan.get(), ctx.options);
    scan.reset();
    if (::lseek(fd, 0, SEEK_SET) < 0) {
      ctx.warn(code::kArchive, display, fmt::format("cannot read the archive again: {}", std::strerror(errno)));
      return;
    }
  }
  // What a bare compressed file says it decodes to (its first bytes and its last 4).
  std::int64_t raw_size = -1, compressed = 0;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 18) {
    char head[32], tail[4];
    const ssize_t h = ::pread(fd, head, sizeof head, 0);
    const ssize_t t = ::pread(fd, tail, sizeof tail, st.st_size - 4);
    compressed = st.st_size;
    if (h > 0) raw_size = stream_size_hint(std::string_view(head, static_cast<size_t>(h)),
                                           std::string_view(tail, t == 4 ? 4 : 0));
  }
  auto a = new_reader(la);
  if (la.archive_read_open_fd(a.get(), fd, 1 << 16) != ARCHIVE_OK) {
    // A gzip cut early fails the open; what it holds is read from its bytes (a small file: a
    // longer one opens, and its damage is met while reading).
    std::string bytes;
    if (compressed > 0 && compressed <= (16 << 20)) {
      bytes.resize(static_cast<std::size_t>(compressed));
      const ssize_t n = ::pread(fd, bytes.data(), bytes.size(), 0);
      bytes.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
    }
    if (!read_truncated_gzip(bytes, display, host, origin, ctx, nesting))
      ctx.warn(code::kArchive, display, fmt::format("cannot open archive: {}", archive_library::error_text(la, a.get())));
    return;
  }
  read_members(la, a.get(), display, host, root, origin, ctx, nesting, raw_size, compressed);
}

void read_archive_bytes(std::string_view bytes, const std::string& display, const std::string& host,
                        const std::string& origin, ReadContext& ctx, int nesting) {
  const Functions* loaded = library(display, ctx);
  if (!loaded) return;
  const auto read_at = [bytes](std::int64_t offset, std::size_t n) {
    if (offset < 0 || static_cast<std::size_t>(offset) >= bytes.size()) return std::string();
    return std::string(bytes.substr(static_cast<std::size_t>(offset), n));
  };
  if (!decoder_memory_ok(read_at, static_cast<std::int64_t>(bytes.size()), display, ctx)) return;
  const Functions& la = *loaded;
  std::string root;
  if (host.empty()) {
    auto scan = new_reader(la);
    if (la.archive_read_open_memory(scan.get(), bytes.data(), bytes.size()) == ARCHIVE_OK)
      root = single_root(la, scan.get(), ctx.options);
  }
  auto a = new_reader(la);
  if (la.archive_read_open_memory(a.get(), bytes.data(), bytes.size()) != ARCHIVE_OK) {
    if (!read_truncated_gzip(bytes, display, host, origin, ctx, nesting))
      ctx.warn(code::kArchive, display, fmt::format("cannot open archive: {}", archive_library::error_text(la, a.get())));
    return;
  }
  const std::int64_t raw_size =
      bytes.size() >= 18 ? stream_size_hint(bytes.substr(0, 32), bytes.substr(bytes.size() - 4)) : -1;
  read_members(la, a.get(), display, host, root, origin, ctx, nesting, raw_size, static_cast<std::int64_t>(bytes.size()));
}

}  // namespace detail

bool looks_like_archive(std::string_view head) {
  auto at = [&](size_t offset, std::string_view magic) {
    return head.size() >= offset + magic.size() && head.substr(offset, magic.size()) == magic;
  };
  using namespace std::string_view_literals;
  if (at(0, "\x1f\x8b"sv)) return true;                      // gzip
  if (at(0, "\x28\xb5\x2f\xfd"sv)) return true;              // zstd
  if (at(0, "\xfd" "7zXZ\x00"sv)) return true;               // xz
  if (at(0, "\x04\x22\x4d\x18"sv)) return true;              // lz4
  if (at(0, "PK\x03\x04"sv) || at(0, "PK\x05\x06"sv)) return true;  // zip (an empty one too)
  if (at(257, "ustar"sv)) return true;                       // tar (POSIX and GNU)
  // bzip2: "BZh" + block size digit + the block magic (pi), so that a text line never matches.
  if (at(0, "BZh"sv) && head.size() >= 10 && head[3] >= '1' && head[3] <= '9' &&
      head.substr(4, 6) == "\x31\x41\x59\x26\x53\x59"sv)
    return true;
  return false;
}

void read_archive_memory(std::string_view bytes, const std::string& display, const ReadOptions& options,
                         core::Diagnostics& problems, const SourceHandler& on_source) {
  detail::ReadContext ctx{options, problems, on_source};
  detail::read_archive_bytes(bytes, display, options.default_host, display, ctx, 1);
}

}  // namespace culprit::input
