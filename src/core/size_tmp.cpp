// TEMPORARY (wt-gpu): size parsing so the GPU parsers link before the lead's src/core/size.cpp
// lands on main. Delete this file when merging main.
#include <fmt/format.h>

#include <cctype>
#include <cmath>
#include <string>

#include "culprit/core/size.hpp"

namespace culprit::core {

std::optional<std::int64_t> parse_size(std::string_view text, std::int64_t default_unit) {
  std::size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::size_t start = i;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' ||
                             text[i] == ','))
    ++i;
  if (i == start) return std::nullopt;
  std::string num;
  for (char c : text.substr(start, i - start))
    if (c != ',') num += c;
  double value = 0;
  try {
    value = std::stod(num);
  } catch (...) {
    return std::nullopt;
  }
  while (i < text.size() && text[i] == ' ') ++i;
  std::string unit;
  while (i < text.size() && std::isalpha(static_cast<unsigned char>(text[i]))) unit += text[i++];
  double mult = static_cast<double>(default_unit);
  if (!unit.empty()) {
    std::string u;
    for (char c : unit) u += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (u == "b" || u == "bytes" || u == "byte") mult = 1;
    else if (u[0] == 'k') mult = 1024.0;
    else if (u[0] == 'm') mult = 1024.0 * 1024;
    else if (u[0] == 'g') mult = 1024.0 * 1024 * 1024;
    else if (u[0] == 't') mult = 1024.0 * 1024 * 1024 * 1024;
    else if (u[0] == 'p') mult = 1024.0 * 1024 * 1024 * 1024 * 1024;
    else return std::nullopt;
  }
  const double bytes = value * mult;
  if (!(bytes < 9.2e18)) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(bytes));
}

std::string format_size(std::int64_t bytes) {
  if (bytes < 1024) return fmt::format("{} bytes", bytes);
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = -1;
  while (v >= 1024 && u < 4) { v /= 1024; ++u; }
  return fmt::format("{:.2f} {}", v, kUnits[u]);
}

}  // namespace culprit::core
