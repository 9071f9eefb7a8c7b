// Turns what the user named (files, folders, archives, `-` for stdin) into sources: named
// streams of text with a host. Inputs are opened read-only and never written.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "culprit/core/diagnostic.hpp"

namespace culprit::input {

struct Source {
  std::string name;    ///< display name: path relative to the input (`spark-b/worker.log`)
  std::string host;    ///< from the folder layout (`spark-b/…`) or --host; may be empty
  std::string origin;  ///< the input path as given
  std::string text;    ///< the bytes (not validated as UTF-8)
  bool from_stdin = false;
};

struct ReadOptions {
  std::string default_host;                 ///< --host: for inputs that name none
  std::vector<std::string> excludes;        ///< file-name globs to skip (`expected.json`, `*.md`)
  std::int64_t max_file_bytes = 1LL << 30;  ///< larger files are cut here, with a note
  std::int64_t max_total_bytes = 8LL << 30; ///< archive bombs stop here, with a note
};

/// Reads every input. Unreadable paths, loops and oversize files become diagnostics; the rest
/// is still read. Folder members are sorted by path so runs are reproducible.
std::vector<Source> read_inputs(const std::vector<std::string>& inputs, const ReadOptions& options,
                                core::Diagnostics& problems);

/// The host a path names by convention: the first folder under the input root when the root
/// holds one folder per node (`spark-b/sglang.log` -> `spark-b`), `host=NAME` components.
std::string host_from_relative_path(const std::string& relative);

}  // namespace culprit::input
