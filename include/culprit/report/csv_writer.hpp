// CSV per RFC 4180: fields separated by commas, records ended by CRLF, a field quoted when it
// holds a comma or a double quote (inner quotes doubled). An absent value (SQL NULL, no pid) is
// an empty unquoted field; an empty string is `""`, so the two stay apart. Tab-separated rows
// for a terminal beside it. Both print cells as utf8::visible shows them: a value from a log or
// a received timeline holds no escape sequence, newline or tab when printed (`\x1b`, `\n`,
// `\t`; invalid UTF-8 as `\xff`; a blob comes as hex, `x'1bff00'`, from culprit::cell_text), so
// one record is one line and nothing reaches the terminal raw. JSON output keeps the exact value.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace culprit::report {

/// Appends one record (with its CRLF) to `out`.
///   append_csv_record(out, {"id", "message"});  append_csv_record(out, {"1", std::nullopt});
void append_csv_record(std::string& out, const std::vector<std::optional<std::string>>& fields);

/// Appends one tab-separated row (with its LF) to `out`: `culprit query`'s table.
void append_tsv_record(std::string& out, const std::vector<std::string>& cells);

}  // namespace culprit::report
