// The RFC 4180 and tab-separated writers (csv_writer.hpp): cells shown through utf8::visible.
#include "culprit/report/csv_writer.hpp"

#include "culprit/core/utf8.hpp"

namespace culprit::report {

void append_csv_record(std::string& out, const std::vector<std::optional<std::string>>& fields) {
  bool first = true;
  for (const auto& field : fields) {
    if (!first) out += ',';
    first = false;
    if (!field) continue;
    const std::string s = core::utf8::visible(*field);
    if (!s.empty() && s.find_first_of(",\"") == std::string::npos) {
      out += s;
      continue;
    }
    out += '"';
    for (char c : s) {
      if (c == '"') out += '"';
      out += c;
    }
    out += '"';
  }
  out += "\r\n";
}

void append_tsv_record(std::string& out, const std::vector<std::string>& cells) {
  bool first = true;
  for (const auto& cell : cells) {
    if (!first) out += '\t';
    first = false;
    out += core::utf8::visible(cell);
  }
  out += '\n';
}

}  // namespace culprit::report
