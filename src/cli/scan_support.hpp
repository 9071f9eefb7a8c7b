// Pieces of `culprit scan` and `culprit merge`: finding incidents under the paths, stable
// sharding, and the per-incident output row (table line / JSON line).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "culprit/culprit.hpp"
#include "culprit/core/diagnostic.hpp"

namespace culprit::cli {

/// `--shard I/N`: incident belongs to shard I when fnv1a64(name) % N == I.
struct Shard {
  std::uint64_t index = 0, count = 1;
  bool takes(const std::string& incident_name) const;
};
std::optional<Shard> parse_shard(const std::string& text);
std::uint64_t stable_hash(const std::string& text);  ///< FNV-1a 64: the same on every machine

struct Incident {
  std::string name;                 ///< the path as given (or PATH/child)
  std::vector<std::string> inputs;  ///< the paths culprit::analyze reads
};
/// The on-disk size of the incident's inputs (a walk of its folders), for progress: asked only
/// where progress is shown, since it costs a stat() of every file.
std::int64_t incident_bytes(const Incident& incident);

/// An archive PATH is one incident; in a folder PATH each archive or folder is one and the loose
/// files together one more; with `each_path` every PATH is one. Sorted by name.
std::vector<Incident> find_incidents(const std::vector<std::string>& paths, bool each_path,
                                     core::Diagnostics& problems);

struct ScanRow {
  std::string incident, verdict, confidence, culprit, where;
  std::string json;  ///< `{"incident":…}` and the JSON report, one line; '' unless make_row was asked for it
  std::string when;  ///< the root failure's time, `2024-05-15 10:22:31` UTC, or '' when unplaced
  std::string role;  ///< the culprit's role (job | foreign | unknown …), '' when none is named
  bool readable = true;
};
/// The incident's row; unreadable when no source was read (`analysis.sources` 0). `json`: whether
/// the row carries the incident's JSON report (`--format json`, `--db`); a table or Markdown
/// does not print it, and rendering it was a tenth of a scan of many small files.
ScanRow make_row(const Incident& incident, const culprit::Analysis& analysis, bool json);

std::string format_table(const std::vector<ScanRow>& rows);
std::string format_markdown(const std::vector<ScanRow>& rows);  ///< the table as Markdown
std::string format_jsonl(const std::vector<ScanRow>& rows);

void print_progress(std::size_t done, std::size_t total, std::int64_t bytes_done, std::int64_t bytes_total,
                    std::chrono::steady_clock::time_point started);

int run_scan(const std::vector<std::string>& args);
int run_merge(const std::vector<std::string>& args);

}  // namespace culprit::cli
