#include "kept_outcome.hpp"

#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace real_cases {

namespace {

constexpr int kBadReplay = 3;  // above 2: score.py and the schema check read it as a crash
constexpr int kTimedOut = 124;  // timeout(1)'s status

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out) throw std::runtime_error(fmt::format("{}: cannot write", p.string()));
}

std::optional<std::string> read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string status_line(const Outcome& o) {
  if (o.timed_out) return "timeout";
  if (o.signal != 0) return fmt::format("signal {}", o.signal);
  return fmt::format("exit {}", o.exit_code);
}

// A shell word that is `s` verbatim: single quotes, each ' written as '\''.
std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

int refuse(const std::string& why) {
  std::fprintf(stderr, "culprit_real_cases replay: %s\n", why.c_str());
  return kBadReplay;
}

}  // namespace

void keep_outcome(const fs::path& dir, const std::string& name, const Outcome& o) {
  write_file(dir / (name + ".out"), o.out);
  write_file(dir / (name + ".err"), o.err);
  write_file(dir / (name + ".status"), status_line(o) + "\n");
}

std::optional<Outcome> kept_outcome(const fs::path& dir, const std::string& name) {
  const auto status = read_file(dir / (name + ".status"));
  const auto out = read_file(dir / (name + ".out"));
  const auto err = read_file(dir / (name + ".err"));
  if (!status || !out || !err) return std::nullopt;
  Outcome o;
  o.out = *out;
  o.err = *err;
  int n = 0;
  if (status->rfind("timeout", 0) == 0) o.timed_out = true;
  else if (std::sscanf(status->c_str(), "signal %d", &n) == 1) o.signal = n;
  else if (std::sscanf(status->c_str(), "exit %d", &n) == 1) o.exit_code = n;
  else return std::nullopt;
  return o;
}

fs::path write_replay_script(const fs::path& dir, const fs::path& runner) {
  const fs::path script = dir / "culprit";
  write_file(script, fmt::format("#!/bin/sh\n# Replays culprit's kept reports (tests/real_cases/kept_outcome.hpp).\nexec {} replay {} \"$@\"\n",
                                 shell_quote(runner.string()), shell_quote(dir.string())));
  fs::permissions(script, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec |
                              fs::perms::others_read | fs::perms::others_exec);
  return script;
}

int replay_main(int argc, char** argv) {
  // argv: runner replay DIR diagnose --format json --exclude expected.json CASE
  const std::vector<std::string> args(argv + 1, argv + argc);
  const std::vector<std::string> expected_head{"replay", "", "diagnose", "--format", "json", "--exclude", "expected.json"};
  bool as_scored = args.size() == expected_head.size() + 1;
  for (size_t i = 0; as_scored && i < expected_head.size(); ++i)
    if (i != 1 && args[i] != expected_head[i]) as_scored = false;
  if (!as_scored) {
    std::string line;
    for (const auto& a : args) line += " " + a;
    return refuse("not the command culprit's reports were kept for:" + line);
  }
  const fs::path case_dir = fs::path(args.back()).lexically_normal();
  const std::string name = (case_dir.has_filename() ? case_dir : case_dir.parent_path()).filename().string();
  const auto o = kept_outcome(args[1], name);
  if (!o) return refuse(fmt::format("no report kept for {} in {} (run the ctest real_cases.reports)", name, args[1]));
  std::fwrite(o->out.data(), 1, o->out.size(), stdout);
  std::fwrite(o->err.data(), 1, o->err.size(), stderr);
  std::fflush(stdout);
  std::fflush(stderr);
  if (o->timed_out) return kTimedOut;
  if (o->signal != 0) {
    std::signal(o->signal, SIG_DFL);
    std::raise(o->signal);
  }
  return o->exit_code;
}

}  // namespace real_cases
