// How the report tests run culprit on a fixture incident: the same inputs as the golden test
// (its inputs/ folder, or expected.json's "stdin" file of inputs/ on standard input, plus its
// "args"). The fixture's own files (expectations, notes, golden reports) sit beside inputs/.
#pragma once

#include <simdjson.h>

#include <cstdio>
#include <filesystem>
#include <string>

namespace culprit::test {

inline std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

/// Runs `cmd` through the shell; returns its standard output and sets `status` (exit code, or
/// -1 when it could not run).
inline std::string run_command(const std::string& cmd, int& status) {
  std::string out;
  status = -1;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int raw = ::pclose(p);
  status = raw >= 0 && WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  return out;
}

/// `BINARY diagnose --quiet <excludes> <args> OPTIONS (DIR | - < FILE)`.
inline std::string fixture_command(const std::string& binary, const std::filesystem::path& dir,
                                   const std::string& options) {
  const std::filesystem::path inputs = dir / "inputs";  // the logs; docs and label sit beside it
  std::string cmd = shell_quote(binary) + " diagnose --quiet " + options;
  simdjson::dom::parser parser;
  simdjson::dom::element expected;
  std::string_view stdin_file;
  bool have_stdin = false;
  if (!parser.load((dir / "expected.json").string()).get(expected)) {
    simdjson::dom::array args;
    if (!expected["args"].get(args))
      for (auto a : args) {
        std::string_view s;
        if (!a.get(s)) cmd += " " + shell_quote(std::string(s));
      }
    have_stdin = !expected["stdin"].get(stdin_file);
    if (have_stdin) cmd += " - < " + shell_quote((inputs / std::string(stdin_file)).string());
  }
  if (!have_stdin) cmd += " " + shell_quote(inputs.string());
  return cmd;
}

}  // namespace culprit::test
