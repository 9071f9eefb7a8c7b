// TEMPORARY (wt-rules): Diagnostic::to_string until main's diagnostic.cpp lands.
#include "culprit/core/diagnostic.hpp"

namespace culprit::core {

std::string Diagnostic::to_string() const {
  const char* lvl = level == DiagLevel::error ? "error" : level == DiagLevel::warning ? "warning" : "note";
  std::string out;
  if (!where.empty()) out += where + ": ";
  out += lvl;
  if (!code.empty()) out += "[" + code + "]";
  out += ": " + message;
  return out;
}

}  // namespace culprit::core
