// Turns what the user named (files, folders, archives, `-` for stdin) into sources: named
// streams of text with a host. Inputs are opened read-only and never written; every limit
// below stops reading with a diagnostic naming the input, and the run goes on.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/core/diagnostic.hpp"

namespace culprit::input {

struct Source {
  std::string name;    ///< display name: path relative to the input (`spark-b/worker.log`), under the
                       ///< input folder's own name when that folder is a host (`culprit spark-b/`)
  std::string host;    ///< from the folder layout (`spark-b/…`) or --host; may be empty
  std::string host_from;  ///< where `host` came from: host_from::kFolder or kOption ('' no host)
  std::string origin;  ///< the input path as given
  std::string text;    ///< the bytes (not validated as UTF-8)
  /// Line number of the text's first line in the file: 1, or more when a file over
  /// max_file_bytes was read from its tail (the end of a log is where a failure is).
  std::int64_t first_line = 1;
  bool from_stdin = false;
  /// Lines over ReadOptions::max_line_bytes lose their tail while read (ingest cuts them to
  /// that length anyway): then the bytes read, else -1 (text.size()); and the first line cut
  /// (1-based in text, 0: none) with its whole length, for ingest's long-line note.
  std::int64_t read_bytes = -1;
  std::int64_t cut_line = 0;
  std::int64_t cut_line_bytes = 0;
  /// More of this input follows in the next source handed on: an input past
  /// ReadOptions::piece_bytes is handed on in pieces, each ending at a line end, so that it is
  /// never held whole. Every piece names the input; first_line numbers its lines.
  bool more = false;
  std::int64_t size() const { return read_bytes >= 0 ? read_bytes : static_cast<std::int64_t>(text.size()); }
};

/// Stable diagnostic codes (tests match them). All start with `input-`, so the report lists
/// them as skipped input.
namespace code {
inline constexpr std::string_view kMissing = "input-missing";          ///< error: no such path
inline constexpr std::string_view kUnreadable = "input-unreadable";    ///< open/read failed (errno text)
inline constexpr std::string_view kNotFile = "input-not-file";         ///< FIFO, device, socket in a folder
inline constexpr std::string_view kLink = "input-link";                ///< broken link, link loop, duplicate
inline constexpr std::string_view kTooDeep = "input-too-deep";         ///< folder nesting over max_depth
inline constexpr std::string_view kTooLarge = "input-too-large";       ///< file cut at max_file_bytes
inline constexpr std::string_view kTotalLimit = "input-total-limit";   ///< max_total_bytes reached
inline constexpr std::string_view kArchiveMemory = "input-archive-memory";  ///< a decoder would need over kMaxDictionaryBytes
inline constexpr std::string_view kTooManyMembers = "input-too-many-members";  ///< max_archive_members reached
inline constexpr std::string_view kArchive = "input-archive";          ///< damaged / unrecognised archive
inline constexpr std::string_view kArchiveData = "input-archive-data"; ///< a member's data is damaged
inline constexpr std::string_view kArchiveBomb = "input-archive-bomb"; ///< expansion ratio limit
inline constexpr std::string_view kDocumentation = "input-documentation"; ///< note: README / Markdown prose not read
}  // namespace code

/// Where a source's host came from, as the report names it. Ingest adds kPrompt (a shell prompt
/// or the `ssh HOST` of the command) and the store kContent (the folder's own log lines name
/// another host) and kOnlyHost (the one host the incident names).
namespace host_from {
inline constexpr std::string_view kFolder = "folder name";   ///< node folder or the input folder
inline constexpr std::string_view kOption = "--host";
inline constexpr std::string_view kPrompt = "prompt";        ///< `user@host:~$`, `ssh host cmd`
inline constexpr std::string_view kContent = "log lines";    ///< syslog host field, NCCL `host:pid:tid`, …
inline constexpr std::string_view kLauncher = "launcher line"; ///< `srun: error: HOST: task N: …`
inline constexpr std::string_view kOnlyHost = "the only host named";
}  // namespace host_from

/// The smallest piece: past the probes that read an input's head (binary, UTF-16, archives).
/// The largest xz (LZMA2) dictionary a stream may declare: xz -9's, the largest preset. liblzma
/// fills a dictionary as it decodes and libarchive sets no memory limit, so a header asking 4 GiB
/// cost 1 GiB per file (and per --jobs); a larger one is not read. (libarchive's zstd reader
/// refuses windows over 128 MiB itself.)
inline constexpr std::int64_t kMaxDictionaryBytes = std::int64_t{64} << 20;
/// Block headers of an xz file read for their dictionary (a 100 GB file of xz -T's 24 MiB blocks
/// has about 4 000); past it the rest go unchecked.
inline constexpr std::size_t kMaxXzBlocksChecked = 65536;
/// An xz stream's index culprit reads to find its blocks (16 bytes a block at most).
inline constexpr std::int64_t kMaxXzIndexBytes = std::int64_t{16} << 20;

/// ReadOptions::max_archive_members by default.
inline constexpr std::int64_t kMaxArchiveMembers = 100000;

inline constexpr std::int64_t kMinPieceBytes = std::int64_t{128} << 10;

/// What ReadOptions::piece_end says of an input that is not to be split.
inline constexpr std::size_t kWholeInput = static_cast<std::size_t>(-1);
/// What ReadOptions::piece_end says where no end is here and none is likely before the piece
/// must end (the text is crowded with what opens blocks): the reader asks again only then. Said
/// when it must, it is "not here" (0): the piece still stops at 64 times piece_bytes.
inline constexpr std::size_t kEndWhenMust = static_cast<std::size_t>(-2);

struct ReadOptions {
  std::string default_host;                 ///< --host: for inputs that name none
  /// A folder named as an input (not a parent of node folders) is the host of its files, by its
  /// name (folder_host); false: it names none (scan's incident folders).
  bool folder_is_host = true;
  std::vector<std::string> excludes;        ///< file-name globs to skip (`expected.json`, `*.md`)
  /// A larger file is read from its last max_file_bytes (at a line start; line numbers stay
  /// true); a larger stream or archive member keeps its first max_file_bytes. Both with a note.
  std::int64_t max_file_bytes = 1LL << 30;
  std::int64_t max_total_bytes = 8LL << 30; ///< all inputs together, after decompression
  /// An archive that has expanded past `archive_ratio_floor` bytes and more than
  /// `max_archive_ratio` times the compressed bytes read so far is a bomb: reading it stops.
  std::int64_t max_archive_ratio = 200;
  std::int64_t archive_ratio_floor = 128LL << 20;
  /// Ingest's per-line limit: a longer line of a plain file, stream or archive member is cut
  /// while read, a few bytes past it, so it is never held whole (0: never).
  std::size_t max_line_bytes = 0;
  /// An input that reads as lines (not UTF-16, not an archive kept whole, not documentation)
  /// is handed on in pieces of about this many bytes, each ending at a line start piece_end
  /// chooses (0: whole).
  std::int64_t piece_bytes = 0;
  /// Where a piece may end in `text` (the settled bytes read since the last piece ended, at
  /// least piece_bytes; `head`: they start the input): a line start in (0, text.size()), 0 for
  /// "not here, read on", kEndWhenMust for "not here, ask again when you must", or kWholeInput
  /// for "never split this input" (a document or a table read as a whole). `must` says the
  /// piece has grown to twice piece_bytes; it still reads on while this returns 0, up to 64
  /// times piece_bytes, where it ends at its last line start.
  /// Empty: always at the last line start.
  std::function<std::size_t(std::string_view text, bool head, bool must)> piece_end;
  int max_depth = 16;          ///< folder levels below an input (deeper ones are skipped)
  int max_archive_nesting = 3; ///< archives inside archives (a .gz inside a .tar is 2)
  /// Files read from one archive: every source costs about 1 KiB held to the end of the run
  /// (its row, its name in the report), and a million tiny members cost 1.2 GB; past this many
  /// the rest of the archive is not read, with a warning.
  std::int64_t max_archive_members = kMaxArchiveMembers;
};

/// Receives each source as soon as it is read. The text may be moved out; it is freed when
/// the call returns, so memory holds one source at a time.
using SourceHandler = std::function<void(Source&)>;

/// A handler that moved the text of a piece with `more` out (to parse it on another thread)
/// gives its buffer back when done (the reader gives back the texts its handler left): the
/// reader fills the next pieces and inputs into given-back buffers, whose pages are already
/// mapped, instead of fresh ones (a page fault per 4 KiB). Keeps the four biggest; thread-safe.
void give_back_text(std::string&& text);

/// Frees the buffers give_back_text keeps: once an incident's reading ends they would only add
/// to the peak of its diagnosis (a scan's next incident takes new ones, a page fault per 2 MiB).
/// Thread-safe; a reader at work keeps the buffer it fills.
void drop_spare_texts();

/// Reads every input in order and hands each source to `on_source`. Unreadable paths, loops,
/// oversize files and damaged archives become diagnostics; the rest is still read. Folder
/// members are read in path order so runs are reproducible. A FIFO or pipe named on the
/// command line (`culprit <(journalctl -k)`) is read like stdin; inside a folder it is skipped.
void read_inputs(const std::vector<std::string>& inputs, const ReadOptions& options,
                 core::Diagnostics& problems, const SourceHandler& on_source);

/// The same, collecting every source (tests; small inputs).
std::vector<Source> read_inputs(const std::vector<std::string>& inputs, const ReadOptions& options,
                                core::Diagnostics& problems);

/// Reads an archive or compressed file held in memory (`display` names it in sources and
/// messages). Same limits as files on disk; used for nested archives, tests and fuzzing.
void read_archive_memory(std::string_view bytes, const std::string& display, const ReadOptions& options,
                         core::Diagnostics& problems, const SourceHandler& on_source);

/// True when `head` (the first bytes of a file) starts like a compressed file or an archive
/// (gzip, zstd, xz, lz4, bzip2, zip, tar).
bool looks_like_archive(std::string_view head);

/// The host a path names by convention: the first folder under the input root when the root
/// holds one folder per node (`spark-b/sglang.log` -> `spark-b`), `host=NAME` components.
std::string host_from_relative_path(const std::string& relative);

/// The host a folder named as an input stands for: its own name (`spark-b/` -> `spark-b`),
/// unless the name describes content (`logs`, `inputs`, `dmesg`, …), then ''.
std::string folder_host(const std::string& folder);

}  // namespace culprit::input
