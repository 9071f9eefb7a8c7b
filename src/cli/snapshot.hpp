// The node snapshot `culprit run` takes when a job fails and `culprit collect` takes on demand:
// one table of commands (nvidia-smi, ps, /proc/meminfo, free, the kernel log, docker, the cgroup's
// memory files, the environment that matters), each with a time-out, run here or over ssh, each
// output written to a file of a node folder in the form culprit's parsers read. A tool that is
// missing, refused or timed out is recorded once, in the folder's manifest (snapshot_manifest.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/child_process.hpp"
#include "culprit/api/snapshot_manifest.hpp"

namespace culprit::cli {

/// One command of the snapshot. Run as `sh -c shell` with LC_ALL=C and TZ=UTC (ps start times,
/// dmesg stamps in UTC; English messages), so the files parse the same on every machine.
struct SnapshotItem {
  std::string_view file;          ///< written in the node folder
  std::string_view tool;          ///< the program it needs ('' none); missing → named once, not run again
  std::string_view shell;         ///< the command line, as the README lists it
  double timeout_s;
  std::string_view fallback_for;  ///< only used when the item writing this file failed (journalctl for dmesg)
  bool kernel_log = false;        ///< it reads the kernel log (kernel_log_status)
};

/// The table, in the order the commands run.
const std::vector<SnapshotItem>& snapshot_items();

/// The per-interval sample of `culprit run`: GPU and per-process GPU memory, host memory, the
/// cgroup's memory. Each sample's files are `sample-NNNN-<file>`.
const std::vector<SnapshotItem>& sample_items();

/// The `ps` line of the table (also taken once when the job starts).
const SnapshotItem& ps_item();

/// The recorded /proc facts of the GPU holders and the job's pid (proc-status.txt; also taken
/// once when the job starts, while the job's own pid is alive).
const SnapshotItem& proc_status_item();
/// The job's own resource limits (CULPRIT_JOB_PID's /proc/PID/limits), for `culprit run`'s samples.
const SnapshotItem& limits_item();

/// How one command went (defined beside the manifest that records it).
using api::ToolStatus;

struct SnapshotOptions {
  std::optional<double> since;  ///< the job's start (UTC s): kernel log lines before it are left out
  std::string prefix;           ///< file name prefix (`sample-0003-`)
  long job_pid = 0;             ///< the job's pid (`culprit run`): proc-status.txt records it too
};

/// Runs `items` on this machine and writes their output into `dir` (created). Returns one
/// status per command run or skipped (a tool already found missing is not tried again).
std::vector<ToolStatus> take_snapshot(const std::string& dir, const std::vector<SnapshotItem>& items,
                                      const SnapshotOptions& options);

/// The shell script that runs `items` on another machine (over `ssh HOST sh -s`) and frames each
/// command's exit status, output and error output for read_remote_snapshot.
std::string remote_snapshot_script(const std::vector<SnapshotItem>& items);

/// Splits a remote script's output into per-command results (in `items` order; an item the output
/// lacks is not started) and writes the node folder as take_snapshot does.
std::vector<ToolStatus> write_remote_snapshot(const std::string& dir, const std::vector<SnapshotItem>& items,
                                              std::string_view output);

/// Whether the kernel log was read, for the manifest (api::Manifest::kernel_log): `ok` when a
/// command of the table that reads it answered, else the status of the first that was run;
/// '' when `statuses` hold none of them.
std::string kernel_log_status(const std::vector<ToolStatus>& statuses);

/// The status of one command's result (exported for the unit tests).
ToolStatus classify(const SnapshotItem& item, const CommandResult& r);

/// The lines of a `dmesg --time-format iso` capture stamped at or after `since` (UTC s); lines
/// without a stamp follow the line before them.
std::string kernel_lines_since(std::string_view text, double since);

/// `text` with the values of secrets masked as `***`, before it is written to a snapshot file
/// (incident folders are shared and archived): a variable or option whose name holds a secret's
/// word (KEY, TOKEN, SECRET, PASSWORD, PASSWD, CREDENTIAL(S), APIKEY; `VLLM_API_KEY=…`,
/// `--api-key=…`, `"HF_TOKEN=…"` in docker inspect) and the password of a URL (`://user:***@`).
/// Counts such as `--max-num-batched-tokens` are no secret (the word must be the name's own).
std::string mask_secrets(std::string_view text);

/// The job's command with its secrets masked (mask_secrets, and the argument after an option
/// such as `--api-key` or `--token`), for the manifest.
std::vector<std::string> mask_command(const std::vector<std::string>& command);

/// Writes `text` to `path` (created 0600: snapshots hold what the job's environment and processes
/// show). Returns the system's reason it could not ("No space left on device"), or empty; a file
/// that could not be written whole is removed.
std::string write_private_file(const std::string& path, std::string_view text);

/// This machine's short host name (`gethostname` up to the first dot), as logs name the node.
std::string local_host_name();

/// The wall clock, UTC seconds.
double now_utc();

/// UTC seconds → `20260409T004719Z` (for file names: no `:`, which tar and scp read as a host).
std::string compact_utc(double seconds);

/// UTC seconds → `2026-04-09T00:47:19Z` (defined beside the manifest, which writes it).
using api::iso_utc;

}  // namespace culprit::cli
