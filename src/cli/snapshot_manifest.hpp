// `culprit-snapshot.json`: what `culprit run` / `culprit collect` know about a node folder that
// no log says — the job's pid, user, start and exit (culprit started it), and each snapshot
// command that was missing, refused or timed out. Written beside the snapshot files; read back
// by run_incident (a folder, or an archive of one, diagnoses the same later): the job's pid
// becomes a `job` process (evidence `culprit run`), and every tool that did not answer is named
// once in the report's sources.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cli/snapshot.hpp"

namespace culprit::cli {

inline constexpr std::string_view kManifestName = "culprit-snapshot.json";

struct JobRecord {
  std::int64_t pid = 0;
  std::string user;
  double started = 0;                 ///< UTC seconds
  std::vector<std::string> command;
  int exit_code = -1;                 ///< when it exited
  int signal = 0;                     ///< when a signal ended it
};

struct Manifest {
  std::string made_by;                ///< `culprit run` | `culprit collect`
  std::string host;                   ///< the node's name (gethostname, or the ssh host)
  double taken = 0;                   ///< UTC seconds
  std::optional<JobRecord> job;
  std::vector<ToolStatus> tools;      ///< every command's status, ok ones included
};

std::string manifest_json(const Manifest& m);

/// nullopt when `text` is not a culprit snapshot manifest.
std::optional<Manifest> parse_manifest(std::string_view text);

/// True when a source of this name could be a manifest (its base name is kManifestName).
bool is_manifest_name(std::string_view source_name);

}  // namespace culprit::cli
