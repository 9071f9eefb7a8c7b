// TEMPORARY stand-in for core::format_size until main's src/core/size.cpp lands.
// Delete this file when merging main brings the real implementation.
#include <cstdio>

#include "culprit/core/size.hpp"

namespace culprit::core {

std::string format_size(std::int64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " bytes";
  static const char* const kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes) / 1024.0;
  int unit = 0;
  while (value >= 1024.0 && unit < 3) {
    value /= 1024.0;
    ++unit;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %s", value, kUnits[unit]);
  return buf;
}

}  // namespace culprit::core
