// CSV per RFC 4180: fields separated by commas, records ended by CRLF, a field quoted when it
// holds a comma, a double quote, CR or LF (inner quotes doubled). An absent value (SQL NULL,
// no pid) is an empty unquoted field; an empty string is `""`, so the two stay apart.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace culprit::report {

/// Appends one record (with its CRLF) to `out`.
///   append_csv_record(out, {"id", "message"});  append_csv_record(out, {"1", std::nullopt});
void append_csv_record(std::string& out, const std::vector<std::optional<std::string>>& fields);

}  // namespace culprit::report
