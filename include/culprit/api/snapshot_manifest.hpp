// `culprit-snapshot.json`: what `culprit run` / `culprit collect` know about a node folder that
// no log says — the job's pid, user, start and exit (culprit started it), and each snapshot
// command that was missing, refused or timed out. Written beside the snapshot files; read back
// by the library's incident pipeline (src/api/incident.cpp) (a folder, or an archive of one, diagnoses the same later): the job's pid
// becomes a `job` process (evidence `culprit run`), how it ended a `job_end` event the rules read
// (rules/diagnoses/job_end.toml), and every tool that did not answer is named once in the
// report's sources.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::api {

inline constexpr std::string_view kManifestName = "culprit-snapshot.json";

/// How one snapshot command went, as the report's sources name it.
struct ToolStatus {
  std::string tool;     ///< `nvidia-smi`, `dmesg`
  std::string file;     ///< the file written ('' none)
  std::string status;   ///< ok | missing | refused | failed | timed out | empty
  std::string detail;   ///< `not found on PATH`, `dmesg: read kernel buffer failed: Operation not permitted`
};

struct JobRecord {
  std::int64_t pid = 0;
  std::string user;
  double started = 0;                 ///< UTC seconds
  std::vector<std::string> command;
  double ended = 0;                   ///< UTC seconds when it ended (0: not recorded)
  int exit_code = -1;                 ///< when it exited
  int signal = 0;                     ///< when a signal ended it
};

struct Manifest {
  std::string made_by;                ///< `culprit run` | `culprit collect`
  std::string host;                   ///< the node's name (gethostname, or the ssh host)
  double taken = 0;                   ///< UTC seconds
  std::optional<JobRecord> job;
  std::vector<ToolStatus> tools;      ///< every command's status, ok ones included
  /// Whether the node's kernel log was read: `ok` when a kernel-log command (dmesg, else
  /// journalctl -k) answered — then a kernel OOM kill since the job started is in the
  /// snapshot — else the first one's status (`refused`, `missing`, …); '' when none was asked.
  std::string kernel_log;
};

std::string manifest_json(const Manifest& m);

/// UTC seconds → `2026-04-09T00:47:19Z` (with `fraction`: `.123456`): the manifest's stamps, and
/// the snapshot's stamp lines.
std::string iso_utc(double seconds, bool fraction = false);

/// nullopt when `text` is not a culprit snapshot manifest.
std::optional<Manifest> parse_manifest(std::string_view text);

/// True when a source of this name could be a manifest (its base name is kManifestName).
bool is_manifest_name(std::string_view source_name);

}  // namespace culprit::api
