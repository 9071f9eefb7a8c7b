// is_culprit_report: each renderer's fixed markers, looked for near the start only.
#include "own_report.hpp"

#include <array>

#include "culprit/text/lines.hpp"

namespace culprit::ingest {
namespace {

using text::starts_with;

}  // namespace

bool is_culprit_report(std::string_view head) {
  // HTML: the report's main element (after the inline style sheet).
  if (head.find("<main id=\"culprit-report\"") != std::string_view::npos) return true;
  // JSON: the diagnose contract's first key.
  if (starts_with(head, "{\"schema_version\":") && head.substr(0, 200).find("\"verdict\":") != std::string_view::npos)
    return true;
  // Markdown: the title line and the sources table's header.
  if (starts_with(head, "# Incident: ") &&
      head.find("| Name | Host | Format | Lines | Bytes | Clock |") != std::string_view::npos)
    return true;
  // Text: a verdict headline, then the report's own section titles.
  static constexpr std::array kHeadlines = {"CUDA OOM", "Host kernel OOM", "cgroup OOM", "User-space OOM",
                                            "Host allocation failure", "Not an OOM", "Unknown"};
  for (std::string_view h : kHeadlines)
    if (starts_with(head, h))
      return head.find("\nRuled out\n") != std::string_view::npos && head.find("\nSources (") != std::string_view::npos;
  return false;
}

}  // namespace culprit::ingest
