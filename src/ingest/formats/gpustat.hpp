// gpustat's line shapes (wookayin/gpustat, gpustat/core.py: GPUStat.print_to and
// GPUStatCollection.print_formatted, 0.3 → 1.x). Shared by its parser and its detector.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::ingest::gpustat {

/// One process of a GPU line: `[user][:command][/pid](<MiB>M)`, by the flags -u, -c, -p.
struct Process {
  std::string user, command;  ///< empty where the flags printed none (a lone word is the user's)
  std::optional<std::int64_t> pid;
  std::optional<std::int64_t> mem;  ///< bytes (printed in MiB); nullopt for `(?M)`
};

/// One GPU line: `[0] NVIDIA GeForce RTX 3090 | 45°C,   0 % | 15234 / 24576 MB | alice(15228M)`.
struct GpuLine {
  int index = 0;
  std::string name;
  std::optional<std::int64_t> used, total;  ///< bytes (printed in MiB as `MB`); nullopt for `??`
  std::vector<Process> processes;
  bool processes_not_supported = false;  ///< `(Not Supported)`
};

/// The GPU line `line` holds (colour codes already stripped); nullopt when it is not one: `[n]`,
/// a name, a `°C` / `'C` temperature cell, a `used / total MB` cell, `|` between them.
std::optional<GpuLine> parse_gpu_line(std::string_view line);
/// Whether `line` may be a GPU line: its first byte after blanks is `[`, and it holds ` MB`. A
/// cheap superset of parse_gpu_line (of a line without colour codes).
bool may_be_gpu_line(std::string_view line);

/// The header `print_formatted` writes above the GPU lines: `host  Mon Apr  9 00:47:22 2026  535.104.05`
/// (the hostname padded, two blanks, the time in the locale's D_T_FMT, two blanks, the driver
/// version; 0.5 and older print no driver).
struct Header {
  std::string host;
  std::string time;    ///< as printed
  std::string driver;  ///< empty where none
};
std::optional<Header> parse_header(std::string_view line);

/// A `--show-full-cmd` line under a GPU line: ` ├─  48448 (  85%,  257MB): python` (or `└─`).
bool is_full_cmd_line(std::string_view line);

}  // namespace culprit::ingest::gpustat
