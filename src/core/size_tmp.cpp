// TEMPORARY (wt-kernel): stand-in for the lead's src/core/size.cpp so ingest tests link.
// Delete after merging main once the real size.cpp lands.
#include <cctype>
#include <cmath>
#include <cstdio>
#include <string>

#include "culprit/core/size.hpp"

namespace culprit::core {

std::optional<std::int64_t> parse_size(std::string_view text, std::int64_t default_unit) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::size_t start = i;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == start) return std::nullopt;
  double value = std::strtod(std::string(text.substr(start, i - start)).c_str(), nullptr);
  while (i < text.size() && text[i] == ' ') ++i;
  std::string unit(text.substr(i));
  while (!unit.empty() && std::isspace(static_cast<unsigned char>(unit.back()))) unit.pop_back();
  double mult = static_cast<double>(default_unit);
  if (!unit.empty()) {
    char c = static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0])));
    std::string rest = unit.substr(1);
    if (unit == "B" || unit == "bytes" || unit == "byte") mult = 1;
    else if (c == 'K' && (rest.empty() || rest == "B" || rest == "iB" || rest == "i")) mult = 1024.0;
    else if (c == 'M' && (rest.empty() || rest == "B" || rest == "iB" || rest == "i")) mult = 1024.0 * 1024;
    else if (c == 'G' && (rest.empty() || rest == "B" || rest == "iB" || rest == "i")) mult = 1024.0 * 1024 * 1024;
    else if (c == 'T' && (rest.empty() || rest == "B" || rest == "iB" || rest == "i")) mult = 1024.0 * 1024 * 1024 * 1024;
    else return std::nullopt;
  }
  return static_cast<std::int64_t>(std::llround(value * mult));
}

std::string format_size(std::int64_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) { v /= 1024; ++u; }
  char buf[64];
  if (u == 0) std::snprintf(buf, sizeof buf, "%lld bytes", static_cast<long long>(bytes));
  else std::snprintf(buf, sizeof buf, "%.2f %s", v, units[u]);
  return buf;
}

}  // namespace culprit::core
