// TEMPORARY (wt-kernel): stand-in for the lead's src/core/diagnostic.cpp. Delete after merging main.
#include "culprit/core/diagnostic.hpp"

namespace culprit::core {

std::string Diagnostic::to_string() const {
  const char* lvl = level == DiagLevel::note ? "note" : level == DiagLevel::warning ? "warning" : "error";
  return where + ": " + lvl + "[" + code + "]: " + message;
}

}  // namespace culprit::core
