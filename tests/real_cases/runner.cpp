// Real-case runner (ctest label `real-cases`): runs culprit on every case of the shared real-case
// set (../shared/real-cases beside the repository: real incidents from public bug reports, each
// a folder of logs with a hand-written expected.json; never copied into the project), scores each
// with score.py's rules (scoring.hpp), prints every miss and the totals, and fails when
//   - a case the ratchet lists stops passing an aspect the ratchet names,
//   - culprit crashes (a signal, an exit code above 2), times out or prints no JSON on any case,
//   - a listed difference passes against its label (the row is wrong or stale).
// Misses that the ratchet does not list are printed, not failed on: the ratchet only goes up.
//
// Usage: culprit_real_cases (--culprit BIN [--keep DIR] | --replay DIR) --cases DIR [--ratchet FILE]
//          [--differences FILE] [--write-ratchet FILE] [--scorer PYTHON SCORE_PY] [--timeout S]
//          [--jobs N] [-v]
//        culprit_real_cases replay DIR diagnose --format json --exclude expected.json CASE
// --keep DIR keeps each case's outcome in DIR, with DIR/culprit, a script that replays them;
// --replay DIR scores the outcomes kept there instead of running culprit, and gives score.py
// DIR/culprit (kept_outcome.hpp). The ctests run culprit once (`real_cases.reports`) and replay.
// Exit: 0 pass, 1 fail, 2 usage or unreadable files, 77 (ctest: skipped) when DIR is absent.
#include <simdjson.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "kept_outcome.hpp"
#include "ratchet.hpp"
#include "scoring.hpp"
#include "subprocess.hpp"

namespace fs = std::filesystem;
using namespace real_cases;

namespace {

constexpr int kSkip = 77;

struct Options {
  std::string culprit, cases, ratchet, differences, write_ratchet, python, scorer, keep, replay;
  double timeout = 20;  // seconds per case, as score.py
  unsigned jobs = 2;
  bool verbose = false;
};

struct Case {
  std::string name;
  std::string expected;  // expected.json's text
  CaseScore score;
  double ms = 0;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// score.py's run(): the same command line (run now, or its outcome kept by an earlier run), the
// same reading of the outcome.
CaseScore run_case(const Options& o, const fs::path& dir, const std::string& expected) {
  const std::string name = dir.filename().string();
  Outcome r;
  if (!o.replay.empty()) {
    auto kept = kept_outcome(o.replay, name);
    if (!kept) {
      CaseScore missing;
      missing.error = fmt::format("no outcome kept in {} (run the ctest real_cases.reports)", o.replay);
      return missing;
    }
    r = std::move(*kept);
  } else {
    r = run_command({o.culprit, "diagnose", "--format", "json", "--exclude", "expected.json", dir.string()}, o.timeout);
    if (!o.keep.empty()) keep_outcome(o.keep, name, r);
  }
  CaseScore s;
  const std::string tail = r.err.size() > 200 ? r.err.substr(r.err.size() - 200) : r.err;
  if (r.timed_out) {
    s.error = fmt::format("timeout (over {} s)", o.timeout);
  } else if (r.signal != 0 || r.exit_code < 0 || r.exit_code > 2) {
    s.error = fmt::format("crash ({}): {}", r.signal ? fmt::format("signal {}", r.signal) : fmt::format("exit {}", r.exit_code), tail);
  } else {
    s = score_case(expected, r.out);
    if (!s.error.empty()) s.error = fmt::format("invalid JSON (exit {}): {}", r.exit_code, tail);
  }
  return s;
}

int usage() {
  std::fputs("usage: culprit_real_cases (--culprit BIN [--keep DIR] | --replay DIR) --cases DIR [--ratchet FILE]\n"
             "         [--differences FILE] [--write-ratchet FILE] [--scorer PYTHON SCORE_PY] [--timeout S]\n"
             "         [--jobs N] [-v]\n"
             "       culprit_real_cases replay DIR diagnose --format json --exclude expected.json CASE\n", stderr);
  return 2;
}

// The aspects of one case that pass, by name.
Aspects passing_aspects(const CaseScore& s) {
  Aspects a;
  if (!s.error.empty()) return a;
  if (s.verdict_ok) a.insert("verdict");
  if (s.culprit_ok == true) a.insert("culprit");
  if (s.victim_ok == true) a.insert("victim");
  return a;
}

// Runs the shared scorer itself and compares its totals line with ours (`--scorer`).
bool scorer_agrees(const Options& o, const Totals& totals) {
  const std::string culprit = o.replay.empty() ? o.culprit : (fs::path(o.replay) / "culprit").string();
  const Outcome r = run_command({o.python, o.scorer, "--culprit", culprit, "--cases", o.cases}, 60 * 20);
  std::string last;
  std::istringstream lines(r.out);
  for (std::string l; std::getline(lines, l);)
    if (!l.empty()) last = l;
  if (last == totals.line()) {
    fmt::print("score.py agrees: {}\n", last);
    return true;
  }
  fmt::print("FAIL: score.py's totals differ from this runner's (the shared rules changed? update scoring.cpp)\n"
             "  score.py: {}\n  runner:   {}\n", last.empty() ? "(no output) " + r.err : last, totals.line());
  return false;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc > 1 && std::string(argv[1]) == "replay") return replay_main(argc, argv);
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--culprit") o.culprit = next();
    else if (a == "--cases") o.cases = next();
    else if (a == "--ratchet") o.ratchet = next();
    else if (a == "--differences") o.differences = next();
    else if (a == "--write-ratchet") o.write_ratchet = next();
    else if (a == "--scorer") { o.python = next(); o.scorer = next(); }
    else if (a == "--timeout") o.timeout = std::atof(next().c_str());
    else if (a == "--keep") o.keep = next();
    else if (a == "--replay") o.replay = next();
    else if (a == "--jobs") o.jobs = std::max(1, std::atoi(next().c_str()));
    else if (a == "-v" || a == "--verbose") o.verbose = true;
    else return usage();
  }
  if (o.culprit.empty() == o.replay.empty() || (!o.keep.empty() && o.culprit.empty()) || o.cases.empty() ||
      o.timeout <= 0)
    return usage();
  std::error_code ec;
  if (!fs::is_directory(o.cases, ec)) {
    fmt::print("SKIP: no real-case set at {} (set CULPRIT_REAL_CASES_DIR to the folder of cases)\n", o.cases);
    return kSkip;
  }
  if (!o.scorer.empty() && (!fs::exists(o.scorer) || o.python.empty() || o.python.find("NOTFOUND") != std::string::npos)) {
    fmt::print("SKIP: the shared scorer ({}) or python3 is not there\n", o.scorer);
    return kSkip;
  }

  std::map<std::string, Aspects> ratchet;
  std::vector<Difference> differences;
  try {
    if (!o.ratchet.empty()) ratchet = read_ratchet(o.ratchet);
    if (!o.differences.empty()) differences = read_differences(o.differences);
  } catch (const std::exception& e) {
    fmt::print(stderr, "{}\n", e.what());
    return 2;
  }

  std::vector<Case> cases;
  for (const auto& entry : fs::directory_iterator(o.cases, ec))
    if (entry.is_directory() && fs::is_regular_file(entry.path() / "expected.json"))
      cases.push_back({entry.path().filename().string(), read_file(entry.path() / "expected.json"), {}, 0});
  std::sort(cases.begin(), cases.end(), [](const Case& a, const Case& b) { return a.name < b.name; });
  if (cases.empty()) {
    fmt::print("SKIP: {} holds no case (a folder with expected.json)\n", o.cases);
    return kSkip;
  }
  if (!o.keep.empty()) {
    // A fresh folder: an outcome left from an earlier set must not be replayed for this one.
    fs::remove_all(o.keep, ec);
    fs::create_directories(o.keep, ec);
    try {
      const fs::path self = fs::read_symlink("/proc/self/exe", ec);
      write_replay_script(fs::absolute(o.keep), ec ? fs::absolute(argv[0]) : self);
    } catch (const std::exception& e) {
      fmt::print(stderr, "{}\n", e.what());
      return 2;
    }
  }

  // Each case is its own culprit process; a few at a time (ctest runs other tests beside us).
  std::atomic<size_t> next_case{0};
  std::atomic<bool> broken{false};  // a label unread or an outcome not kept
  auto worker = [&] {
    for (size_t i; (i = next_case++) < cases.size();) {
      const auto t0 = std::chrono::steady_clock::now();
      try {
        cases[i].score = run_case(o, fs::path(o.cases) / cases[i].name, cases[i].expected);
      } catch (const std::exception& e) {  // an unreadable label, or an outcome that cannot be kept
        cases[i].score.error = e.what();
        broken = true;
      }
      cases[i].ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned j = 0; j < std::min<size_t>(o.jobs, cases.size()); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();

  Totals totals;
  std::vector<std::string> failures, newly_passing;
  std::map<std::string, Aspects> passing;
  double total_ms = 0;
  const Case* slowest = &cases.front();
  for (const auto& c : cases) {
    totals.add(c.expected, c.score);
    total_ms += c.ms;
    if (c.ms > slowest->ms) slowest = &c;
    const Aspects ok = passing_aspects(c.score);
    passing[c.name] = ok;
    if (!c.score.error.empty()) {
      fmt::print("MISS {}: {}\n", c.name, c.score.error);
      failures.push_back(fmt::format("{}: {}", c.name, c.score.error));
      continue;
    }
    std::string listed;
    for (const auto& d : differences)
      if (d.case_name == c.name) {
        if (ok.count(d.aspect))
          failures.push_back(fmt::format("{}: differences.md lists its {} as mislabelled, but culprit agrees with the label", c.name, d.aspect));
        else
          listed += fmt::format(" [{} listed in differences.md: {}]", d.aspect, d.reason);
      }
    if (c.score.wrong()) fmt::print("{} {}: {}{}\n", listed.empty() ? "MISS" : "DIFF", c.name, c.score.detail, listed);
    else if (o.verbose) fmt::print("ok   {}: {}\n", c.name, c.score.detail);
    const auto r = ratchet.find(c.name);
    Aspects gained = ok;
    if (r != ratchet.end())
      for (const auto& a : r->second) {
        gained.erase(a);
        if (!ok.count(a)) failures.push_back(fmt::format("{}: the ratchet says its {} passes; now it does not ({})", c.name, a, c.score.detail));
      }
    if (!gained.empty() && !o.ratchet.empty()) {
      std::string g = c.name;
      for (const auto& a : gained) g += " " + a;
      newly_passing.push_back(g);
    }
  }
  for (const auto& [name, aspects] : ratchet)
    if (!passing.count(name)) failures.push_back(fmt::format("{}: the ratchet lists a case that is not in {}", name, o.cases));

  fmt::print("{}\n", totals.line());
  if (o.replay.empty())
    fmt::print("{} cases in {:.1f} s of culprit time (slowest {} {:.0f} ms)\n", cases.size(), total_ms / 1000,
               slowest->name, slowest->ms);
  else
    fmt::print("{} cases replayed from {}\n", cases.size(), o.replay);
  if (!o.ratchet.empty()) {
    size_t held = 0;
    for (const auto& [name, aspects] : ratchet) held += aspects.size();
    fmt::print("ratchet: {} aspects of {} cases must hold\n", held, ratchet.size());
  }
  if (!newly_passing.empty()) {
    fmt::print("passing now but not in the ratchet (add them: --write-ratchet):\n");
    for (const auto& g : newly_passing) fmt::print("  {}\n", g);
  }
  if (!o.write_ratchet.empty()) {
    std::ofstream out(o.write_ratchet, std::ios::binary | std::ios::trunc);
    out << format_ratchet(passing);
    if (!out) {
      fmt::print(stderr, "{}: cannot write the ratchet\n", o.write_ratchet);
      return 2;
    }
    fmt::print("wrote {}\n", o.write_ratchet);
  }
  bool ok = failures.empty() && !broken;
  for (const auto& f : failures) fmt::print("FAIL {}\n", f);
  if (!o.scorer.empty()) ok = scorer_agrees(o, totals) && ok;
  return ok ? 0 : 1;
}
