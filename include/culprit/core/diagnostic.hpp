// A message about the run itself (a skipped file, a bad rule), as a value, never an exception.
#pragma once

#include <string>
#include <vector>

namespace culprit::core {

enum class DiagLevel { note, warning, error };

/// What, where and why: `where` is `file[:line[:column]]`; `code` is stable (tests match it).
struct Diagnostic {
  DiagLevel level = DiagLevel::warning;
  std::string code;
  std::string where;
  std::string message;

  std::string to_string() const;  ///< `where: level[code]: message`
};

using Diagnostics = std::vector<Diagnostic>;

}  // namespace culprit::core
