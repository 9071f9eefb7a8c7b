// `culprit scan --prometheus FILE`: the scan's incidents counted per verdict and per culprit role
// in Prometheus' text exposition format (version 0.0.4), for node_exporter's textfile collector
// (which reads every *.prom file of a folder: the file is replaced atomically, never seen half
// written) or any scraper of a file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cli/scan_support.hpp"

namespace culprit::cli {

/// The exposition text: `culprit_scan_incidents{verdict="…"}` and
/// `culprit_scan_culprits{role="…"}` gauges, each with its HELP and TYPE lines. Every verdict of
/// the JSON contract and the roles job, foreign and unknown are listed, 0 when no incident has
/// them (a series that vanishes reads as missing data, not as none); `none` counts the incidents
/// that name no culprit.
std::string prometheus_text(const std::vector<ScanRow>& rows);

/// A label value escaped as the format says: `\` as `\\`, `"` as `\"`, a line feed as `\n`.
std::string prometheus_label_value(std::string_view value);

}  // namespace culprit::cli
