// What the HTML report's SVG charts share, one home for each: the figure's width and right margin
// (every chart), the memory charts' frame (GPU memory, host and cgroup memory: room at the left
// for the size labels, above for the marks' labels, below for the time axis and its label) and
// their size axis. Each chart keeps the dimensions only it uses (its plot height, its panels).
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <string>

#include "report/wording.hpp"

namespace culprit::report::charts {

/// Every chart's width and right margin, in SVG units.
inline constexpr double kWidth = 1080, kRight = 24;

/// The memory charts' left, top and bottom margins; their plot heights are their own.
inline constexpr double kLeft = 86, kTop = 26, kBottom = 46;

/// A mebibyte: the memory charts' smallest size-axis step (the steps double from it).
inline constexpr std::int64_t kMiB = 1024 * 1024;

/// `64 GiB`, `512 MiB`: size-axis labels for power-of-two steps.
inline std::string axis_size(std::int64_t bytes) {
  if (bytes == 0) return "0";
  if (bytes >= 1024 * kMiB && bytes % (1024 * kMiB) == 0) return fmt::format("{} GiB", bytes / (1024 * kMiB));
  if (bytes % kMiB == 0) return fmt::format("{} MiB", bytes / kMiB);
  return size_text(bytes);
}

}  // namespace culprit::report::charts
