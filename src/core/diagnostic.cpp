// Rendering of run diagnostics: `where: level[code]: message`, the shape compilers use.
#include "culprit/core/diagnostic.hpp"

#include <fmt/format.h>

#include "culprit/core/utf8.hpp"

namespace culprit::core {

std::string Diagnostic::to_string() const {
  const char* lvl = level == DiagLevel::error ? "error" : level == DiagLevel::warning ? "warning" : "note";
  // A file or archive member name (and the text a message quotes) is a stranger's: shown, never
  // run by the terminal, and one diagnostic stays one line (utf8::visible).
  if (where.empty()) return fmt::format("{}[{}]: {}", lvl, utf8::visible(code), utf8::visible(message));
  return fmt::format("{}: {}[{}]: {}", utf8::visible(where), lvl, utf8::visible(code), utf8::visible(message));
}

}  // namespace culprit::core
