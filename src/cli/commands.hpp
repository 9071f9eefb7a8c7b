// The subcommands of the culprit binary. Each takes its own arguments (after the subcommand
// name) and returns the process exit code: 0 verdict reached, 1 nothing known found, 2 errors.
#pragma once

#include <string>
#include <vector>

namespace culprit::cli {

inline constexpr int kExitVerdict = 0;
inline constexpr int kExitNothing = 1;
inline constexpr int kExitError = 2;

int run_diagnose(const std::vector<std::string>& args);
int run_query(const std::vector<std::string>& args);
int run_rules(const std::vector<std::string>& args);
int run_timeline(const std::vector<std::string>& args);
int run_run(const std::vector<std::string>& args);
int run_collect(const std::vector<std::string>& args);

/// True when standard input is a pipe, a regular file or a socket: `cat paste | culprit` and
/// `culprit < paste` read it when no INPUT is given, as grep and ripgrep do. A terminal or
/// /dev/null (character devices) is not read: `culprit` alone prints the usage.
bool stdin_has_input();

/// Writes all of `text` to `fd` (a short write or EINTR is carried on); errno of the failure, or 0.
int write_all(int fd, std::string_view text);

/// Writes `text` to `path` atomically (temporary file + rename): an interrupted run leaves
/// the old file intact. A symbolic link is written through (the file it names is replaced, the
/// link stays); a replaced file keeps its mode and, where allowed, its owner; a path that is no
/// regular file (a device, a FIFO) is refused. Returns an error message or empty.
std::string write_file_atomically(const std::string& path, const std::string& text);

/// Why the report may not be written to `output`, or empty: an existing file that is one of
/// `inputs` (same device and inode, however it is spelled or linked), or a file inside an input
/// folder (read as an input) that is not a report culprit wrote there.
std::string check_output_target(const std::string& output, const std::vector<std::string>& inputs);

}  // namespace culprit::cli
