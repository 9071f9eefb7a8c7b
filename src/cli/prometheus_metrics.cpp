// The Prometheus text of a scan (prometheus_metrics.hpp). The format: prometheus/docs,
// content/docs/instrumenting/exposition_formats.md ("Text-based format"): `# HELP name text`
// (`\` and line feed escaped), `# TYPE name gauge`, then `name{label="value"} number` lines, the
// label value escaping `\`, `"` and line feed; one group of lines per metric name.
#include "cli/prometheus_metrics.hpp"

#include <fmt/format.h>

#include <map>

#include "culprit/diagnose/finding.hpp"

namespace culprit::cli {
namespace {

/// One gauge's lines: HELP, TYPE, and a sample per label value (`counts`, in its order).
std::string gauge(std::string_view name, std::string_view help, std::string_view label,
                  const std::map<std::string, long>& counts) {
  std::string out = fmt::format("# HELP {} {}\n# TYPE {} gauge\n", name, help, name);
  for (const auto& [value, n] : counts) out += fmt::format("{}{{{}=\"{}\"}} {}\n", name, label, prometheus_label_value(value), n);
  return out;
}

}  // namespace

std::string prometheus_label_value(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

std::string prometheus_text(const std::vector<ScanRow>& rows) {
  namespace dv = diagnose::verdict;
  std::map<std::string, long> verdicts, roles;
  for (const char* v : {dv::kCudaOom, dv::kKernelOom, dv::kCgroupOom, dv::kUserspaceOomKill, dv::kHostAllocFail,
                        dv::kNotOom, dv::kUnknown})
    verdicts[v] = 0;
  for (const char* r : {"job", "foreign", "unknown", "none"}) roles[r] = 0;
  for (const ScanRow& row : rows) {
    ++verdicts[row.verdict.empty() ? std::string(dv::kUnknown) : row.verdict];
    ++roles[row.role.empty() ? std::string("none") : row.role];
  }
  return gauge("culprit_scan_incidents", "Incidents of the last culprit scan, by verdict.", "verdict", verdicts) +
         gauge("culprit_scan_culprits",
               "Incidents of the last culprit scan, by the role of the culprit they name (none: no culprit named).",
               "role", roles);
}

}  // namespace culprit::cli
