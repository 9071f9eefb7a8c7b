// A diagnostic names files and archive members that strangers named (issue 36, redteam
// finding 1): its one line reaches stderr without an escape sequence or a forged line.
#include <catch2/catch.hpp>

#include "culprit/core/diagnostic.hpp"

using culprit::core::DiagLevel;
using culprit::core::Diagnostic;

TEST_CASE("Diagnostic::to_string shows a hostile member name escaped, on one line", "[core]") {
  const Diagnostic title{DiagLevel::warning, "input-binary", "escnames.tar!/bin\x1b]0;PWNED\x07\x1b[2J.log",
                         "binary data; skipped"};
  CHECK(title.to_string() == "escnames.tar!/bin\\x1b]0;PWNED\\x07\\x1b[2J.log: warning[input-binary]: binary data; skipped");
  const Diagnostic forged{DiagLevel::warning, "input-empty", "logs/nl\nfake: error[input-x]: forged\n.log", "empty input"};
  const std::string line = forged.to_string();
  CHECK(line.find('\n') == std::string::npos);
  CHECK(line == "logs/nl\\nfake: error[input-x]: forged\\n.log: warning[input-empty]: empty input");
  const Diagnostic clip{DiagLevel::note, "input-x", "", "quoted \x1b]52;c;cm0gLXJmIH4K\x07 text"};
  CHECK(clip.to_string() == "note[input-x]: quoted \\x1b]52;c;cm0gLXJmIH4K\\x07 text");
}
