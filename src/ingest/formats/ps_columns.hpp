// The column model of procps `ps` listings (`ps aux`, `ps -ef`, `ps -eo pid,user,stat,lstart,…`):
// a header line names the columns, and each row is read token by token in that order. Shared by
// the ps parser and the paste segmenter (which needs to know where a listing starts and ends).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::ingest::ps {

/// What a header name means. Columns culprit does not use are `other` (one token each).
enum class Col { pid, ppid, user, stat, start, elapsed, rss, command, other };

struct Header {
  std::vector<Col> cols;
  std::vector<std::string> names;  ///< as printed (`PID`, `STARTED`, `%MEM`)
};

/// The columns of a ps header (`USER PID %CPU … COMMAND`, `UID PID PPID C STIME TTY TIME CMD`,
/// `    PID USER     STAT                  STARTED   RSS CMD`); nullopt when `line` is not one:
/// every token an upper-case column name, PID among them, and a command or user column.
std::optional<Header> parse_header(std::string_view line);
/// Whether a header or a header-less row may start with byte `c` (its first after blanks): a
/// column name's first byte, or a user name's. False for most log lines (`[`, ESC, `(`).
bool may_start_listing(char c);
/// Whether `line` may be a header or a header-less row, by its first two tokens alone (blanks
/// before them skipped as trim() skips them): the first a run of user-name or column-name bytes,
/// then a column name's first byte, or a row's PID and %CPU or PPID (digits, the second maybe
/// with a dot, each closed by a blank or the line's end). Every line ps_shape accepts passes; a log line (`INFO 04-09 …`, `Apr  8 12:00:01`)
/// fails within its first dozen bytes, before the readers below split anything.
bool may_open_listing(std::string_view line);
/// parse_header's first checks, reading at most the first two tokens: false when `line` cannot
/// be a header (over 400 bytes, or its first or second token no column name).
bool may_be_header(std::string_view line);

/// One row split by the header: the text of each column (empty when the row ran out of tokens).
/// `ok` is false when the row does not fit (no tokens for the PID, or PID not a number).
struct Row {
  bool ok = false;
  std::vector<std::string_view> cells;
};

/// Splits `line` by `header`. STARTED / START / STIME take the tokens their form needs (lstart's
/// five, `Apr 08`'s two, `00:12`'s one); a command column that is last takes the rest of the line.
Row split_row(std::string_view line, const Header& header);

/// The header a header-less row was printed under, told by the row's shape alone: `ps aux | grep
/// X` and `ps -ef | grep X` lose the header to grep, and so do `ps ux` / `ps -f` (the same two
/// procps layouts). Every token must fit its column — aux (`u`): USER PID %CPU %MEM VSZ RSS TTY
/// STAT START TIME COMMAND; -ef (`-f`): UID PID PPID C STIME TTY TIME CMD — with TTY `?`,
/// `pts/N`, `ttyN` or `console`, STAT `[DRSTtWXZIP][<NnsLl+]*`, START `HH:MM` / `MonDD` / `YYYY`
/// and TIME `[D-]M:SS[:SS]`. nullptr when the line is not such a row (a log line with numbers).
const Header* headerless_layout(std::string_view line);

}  // namespace culprit::ingest::ps
