// `culprit scan --prometheus`: the exposition text counts incidents per verdict and per culprit
// role, lists every verdict and the main roles even at 0, and escapes label values as the text
// format says (`promtool check metrics` runs on a real scan's file in tests/scan/prometheus.sh).
#include <catch2/catch.hpp>

#include "cli/prometheus_metrics.hpp"

using culprit::cli::prometheus_label_value;
using culprit::cli::prometheus_text;
using culprit::cli::ScanRow;

namespace {

ScanRow row(const std::string& verdict, const std::string& role) {
  ScanRow r;
  r.verdict = verdict;
  r.role = role;
  return r;
}

}  // namespace

TEST_CASE("prometheus: counts per verdict and per culprit role", "[prometheus]") {
  const std::string t = prometheus_text({row("cuda_oom", "foreign"), row("cuda_oom", "job"), row("kernel_oom", "job"),
                                         row("not_oom", ""), row("unknown", "")});
  CHECK(t.find("# HELP culprit_scan_incidents ") != std::string::npos);
  CHECK(t.find("# TYPE culprit_scan_incidents gauge\n") != std::string::npos);
  CHECK(t.find("culprit_scan_incidents{verdict=\"cuda_oom\"} 2\n") != std::string::npos);
  CHECK(t.find("culprit_scan_incidents{verdict=\"kernel_oom\"} 1\n") != std::string::npos);
  CHECK(t.find("culprit_scan_incidents{verdict=\"cgroup_oom\"} 0\n") != std::string::npos);
  CHECK(t.find("culprit_scan_incidents{verdict=\"not_oom\"} 1\n") != std::string::npos);
  CHECK(t.find("# TYPE culprit_scan_culprits gauge\n") != std::string::npos);
  CHECK(t.find("culprit_scan_culprits{role=\"job\"} 2\n") != std::string::npos);
  CHECK(t.find("culprit_scan_culprits{role=\"foreign\"} 1\n") != std::string::npos);
  CHECK(t.find("culprit_scan_culprits{role=\"unknown\"} 0\n") != std::string::npos);
  CHECK(t.find("culprit_scan_culprits{role=\"none\"} 2\n") != std::string::npos);
  // One HELP / TYPE pair per metric, before its samples.
  CHECK(t.find("# TYPE culprit_scan_incidents") < t.find("culprit_scan_incidents{"));
  CHECK(t.find("# TYPE culprit_scan_culprits") < t.find("culprit_scan_culprits{"));
}

TEST_CASE("prometheus: an empty scan lists the known series at 0", "[prometheus]") {
  const std::string t = prometheus_text({});
  CHECK(t.find("culprit_scan_incidents{verdict=\"cuda_oom\"} 0\n") != std::string::npos);
  CHECK(t.find("culprit_scan_culprits{role=\"none\"} 0\n") != std::string::npos);
}

TEST_CASE("prometheus: label values escape backslash, double quote and line feed", "[prometheus]") {
  CHECK(prometheus_label_value("plain") == "plain");
  CHECK(prometheus_label_value("a\\b") == "a\\\\b");
  CHECK(prometheus_label_value("say \"x\"") == "say \\\"x\\\"");
  CHECK(prometheus_label_value("two\nlines") == "two\\nlines");
  const std::string t = prometheus_text({row("odd\"verdict\n", "r\\ole")});
  CHECK(t.find("culprit_scan_incidents{verdict=\"odd\\\"verdict\\n\"} 1\n") != std::string::npos);
  CHECK(t.find("culprit_scan_culprits{role=\"r\\\\ole\"} 1\n") != std::string::npos);
}
