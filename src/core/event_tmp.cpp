// TEMPORARY (wt-rules): the severity helpers the rules module needs until main's event.cpp lands.
#include "culprit/core/event.hpp"

namespace culprit::core {

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::debug: return "debug";
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
    case Severity::critical: return "critical";
  }
  return "info";
}

std::optional<Severity> parse_severity(std::string_view text) {
  if (text == "debug") return Severity::debug;
  if (text == "info") return Severity::info;
  if (text == "warning") return Severity::warning;
  if (text == "error") return Severity::error;
  if (text == "critical") return Severity::critical;
  return std::nullopt;
}

}  // namespace culprit::core
