// Ingest of one input's text: normalise (encodings, NULs, invalid UTF-8, overlong lines),
// segment (pastes), sniff each segment, parse it into the sink, within an event budget.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "culprit/core/diagnostic.hpp"
#include "culprit/core/event_sink.hpp"
#include "culprit/text/signal_set.hpp"

namespace culprit::ingest {

/// Stable diagnostic codes of the pipeline (tests match them). `input-` codes are listed in
/// the report as skipped or altered input.
namespace code {
inline constexpr std::string_view kBinary = "input-binary";          ///< not text; skipped
inline constexpr std::string_view kEmpty = "input-empty";            ///< nothing to read
inline constexpr std::string_view kOwnReport = "input-own-report";   ///< a report culprit wrote; skipped
inline constexpr std::string_view kEncoding = "input-encoding";      ///< decoded from UTF-16
inline constexpr std::string_view kNul = "input-nul";                ///< NUL bytes removed
inline constexpr std::string_view kInvalidUtf8 = "input-invalid-utf8";  ///< bytes read as U+FFFD
inline constexpr std::string_view kLongLine = "input-long-line";     ///< lines cut at max_line_bytes
inline constexpr std::string_view kTooManyLines = "input-too-many-lines";  ///< only the last max_lines read
inline constexpr std::string_view kMaxEvents = "input-max-events";   ///< --max-events reached
inline constexpr std::string_view kRepaired = "input-repaired";     ///< text repaired before matching (one per kind)
inline constexpr std::string_view kRepeat = "input-repeat";         ///< a block pasted twice, read once
}  // namespace code

/// The events one run may record (`--max-events`), shared by every input of the run. Once it
/// is spent, later events are dropped (with one note naming the first source and line that
/// lost one); sources are still listed. Not thread-safe: one budget per incident.
struct EventBudget {
  std::int64_t max = 0;      ///< 0: no limit
  std::int64_t used = 0;
  std::int64_t dropped = 0;
};

struct IngestInput {
  std::string name;    ///< display name used in evidence (`spark-b/worker.log`, `<stdin>`)
  std::string host;    ///< host from the input layout or --host ('' unknown)
  std::string origin;  ///< the input path
  std::string_view text;
  std::int64_t first_line = 1;  ///< the line number of text's first line (a file read from its tail)
  std::string host_from{};      ///< where `host` came from (input::host_from), for the report
  /// The input's size when the reader cut long lines (input::Source::read_bytes); -1: text's.
  std::int64_t bytes = -1;
  /// The first line the reader cut (in text's numbering; 0: none) and its whole length:
  /// normalisation sees only the part kept, so its long-line note takes the length from here.
  std::int64_t cut_line = 0;
  std::int64_t cut_line_bytes = 0;
  /// The input goes on in the next piece (input::Source::more): its last segment goes on there,
  /// so the line end it stops at is its own.
  bool more = false;
};

/// Default per-line limit: longer lines are cut to this for matching.
inline constexpr std::size_t kDefaultMaxLineBytes = 1 << 20;
/// Default per-input line limit: past it only the last lines are read. It bounds the memory
/// of the line tables parsers build (16 bytes a line, a copy or two at once).
inline constexpr std::int64_t kDefaultMaxLines = 1 << 24;

struct IngestOptions {
  int year_hint = 0;   ///< year for stamps without one (0: leave to clock alignment)
  std::size_t max_line_bytes = kDefaultMaxLineBytes;  ///< 0: no per-line limit
  std::int64_t max_lines = kDefaultMaxLines;          ///< 0: no line limit
  EventBudget* budget = nullptr;  ///< null: no event limit
};

/// What ingest did with one input, for the report's sources list and skip notes.
struct IngestStats {
  std::int64_t lines = 0;
  std::int64_t segments = 0;
  bool skipped = false;
};

/// Normalises `input.text`, segments it, gives every segment its own source row (format,
/// host, first line) and parses it. Binary or empty inputs are skipped, and every change to
/// the text (decoding, NULs, invalid UTF-8, cut lines) is noted once per input, naming it and
/// the first line concerned. The output `culprit run` recorded of its job
/// (core/job_output.hpp) keeps its last lines after its last event as events too. Never throws
/// for bad input.
IngestStats ingest(const IngestInput& input, const text::SignalSet& signals, core::EventSink& sink,
                   core::Diagnostics& diagnostics, const IngestOptions& options = {});

/// Where a piece of a big input may end (input::ReadOptions::piece_end), so that each piece
/// can be ingested on its own: the latest line start, in the last 256 KiB of `text` (1 MiB with
/// `must`), inside a quiet
/// stretch (256 lines before it and 64 from it on that hold none of the literals that open or
/// carry a block: the format table's anchors, the app-log and kernel-log parsers' markers) that
/// is not indented once its prefixes are peeled. A traceback, a kernel OOM report or an
/// nvidia-smi table then lies whole in one piece with the lines before it, unless it runs longer
/// than that without such a literal. 0 where there is no such line; with `must` (the piece has
/// grown long), then the line start deepest inside the longest quiet stretch, else the last
/// line start that is not inside a kernel OOM report's task table, else 0 (the table goes on).
/// `crowded`, where given, says whether a 0 came from a text whose search held no quiet run of a
/// quarter of that many lines (a log with a memory line in ten): no end is near, and a search
/// before the piece must end would most likely find none either.
std::size_t quiet_piece_end(std::string_view text, bool must = false, bool* crowded = nullptr);
/// True when an input that starts with `head` may be read in pieces: it sniffs as a line log
/// (application log, kernel log, journal JSON) and is not a terminal paste (a prompt's host
/// holds for everything after it). A table, a document or a paste is read whole.
bool reads_in_pieces(std::string_view head);

}  // namespace culprit::ingest
