// The RFC 4180 writer (csv_writer.hpp).
#include "culprit/report/csv_writer.hpp"

namespace culprit::report {

void append_csv_record(std::string& out, const std::vector<std::optional<std::string>>& fields) {
  bool first = true;
  for (const auto& field : fields) {
    if (!first) out += ',';
    first = false;
    if (!field) continue;
    const std::string& s = *field;
    if (!s.empty() && s.find_first_of(",\"\r\n") == std::string::npos) {
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

}  // namespace culprit::report
