// Golden reports: renders a fixture incident as Markdown and as HTML with the built culprit and
// compares each byte for byte with the fixture's report.md / report.html, which a person
// reviewed. CULPRIT_UPDATE_GOLDEN=1 rewrites them instead (then review the diff).
//
// Usage: culprit_report_golden BINARY FIXTURE_DIR   (exit 0 when both match)
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "fixture_command.hpp"

namespace fs = std::filesystem;
using culprit::test::fixture_command;
using culprit::test::run_command;

namespace {

std::string read_file(const fs::path& p, bool& ok) {
  std::ifstream in(p, std::ios::binary);
  ok = static_cast<bool>(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

/// The first differing line, for the failure message.
std::string first_difference(const std::string& want, const std::string& got) {
  std::istringstream a(want), b(got);
  std::string la, lb;
  for (int n = 1;; ++n) {
    const bool ha = static_cast<bool>(std::getline(a, la));
    const bool hb = static_cast<bool>(std::getline(b, lb));
    if (!ha && !hb) return "(identical lines; line endings differ)";
    if (la != lb || ha != hb)
      return "line " + std::to_string(n) + ":\n  expected: " + (ha ? la : "(end)") + "\n  got:      " + (hb ? lb : "(end)");
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: culprit_report_golden BINARY FIXTURE_DIR\n");
    return 2;
  }
  const std::string binary = argv[1];
  const fs::path dir = argv[2];
  const char* update_env = std::getenv("CULPRIT_UPDATE_GOLDEN");
  const bool update = update_env && std::string(update_env) == "1";
  int failures = 0;
  for (const char* format : {"markdown", "html"}) {
    const fs::path golden = dir / (std::string("report.") + (std::string(format) == "html" ? "html" : "md"));
    int status = 0;
    const std::string got = run_command(fixture_command(binary, dir, std::string("--format ") + format), status);
    if (status < 0 || status > 1 || got.empty()) {
      std::fprintf(stderr, "%s: culprit --format %s failed (exit %d)\n", dir.filename().c_str(), format, status);
      ++failures;
      continue;
    }
    if (update) {
      std::ofstream(golden, std::ios::binary | std::ios::trunc) << got;
      std::printf("UPDATED %s\n", golden.c_str());
      continue;
    }
    bool ok = false;
    const std::string want = read_file(golden, ok);
    if (!ok) {
      std::fprintf(stderr, "%s: no %s (run with CULPRIT_UPDATE_GOLDEN=1 to write it, then review it)\n",
                   dir.filename().c_str(), golden.filename().c_str());
      ++failures;
    } else if (want != got) {
      std::fprintf(stderr, "FAIL %s %s differs at %s\n(CULPRIT_UPDATE_GOLDEN=1 rewrites it; review the diff)\n",
                   dir.filename().c_str(), golden.filename().c_str(), first_difference(want, got).c_str());
      ++failures;
    }
  }
  if (failures == 0 && !update) std::printf("PASS %s\n", dir.filename().c_str());
  return failures == 0 ? 0 : 1;
}
