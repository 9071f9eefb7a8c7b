// Rendering of run diagnostics: `where: level[code]: message`, the shape compilers use.
#include "culprit/core/diagnostic.hpp"

#include <fmt/format.h>

namespace culprit::core {

std::string Diagnostic::to_string() const {
  const char* lvl = level == DiagLevel::error ? "error" : level == DiagLevel::warning ? "warning" : "note";
  if (where.empty()) return fmt::format("{}[{}]: {}", lvl, code, message);
  return fmt::format("{}: {}[{}]: {}", where, lvl, code, message);
}

}  // namespace culprit::core
