// The HTML report in a real browser: renders a fixture incident's report with the built culprit,
// loads it in headless Chromium twice (a 1280x2000 screenshot, then the DOM as the browser built
// it) and checks that the page loaded offline without errors and shows the verdict. Skips
// (exit 77) with a message when Chromium is not installed (Debian: `apt-get install chromium`).
// The PNG stays in WORK_DIR for people to look at.
//
// Usage: culprit_report_browser BINARY FIXTURE_DIR WORK_DIR   (CULPRIT_CHROMIUM=path overrides)
#include <simdjson.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <vector>

#include "fixture_command.hpp"

namespace fs = std::filesystem;
using culprit::test::fixture_command;
using culprit::test::run_command;
using culprit::test::shell_quote;

namespace {

constexpr int kSkip = 77;

std::string find_browser() {
  if (const char* env = std::getenv("CULPRIT_CHROMIUM"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin:/bin");
  std::string dir;
  std::vector<std::string> all;
  while (std::getline(dirs, dir, ':')) all.push_back(dir);
  for (const char* name : {"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"})
    for (const auto& d : all) {
      const fs::path p = fs::path(d) / name;
      if (!d.empty() && ::access(p.c_str(), X_OK) == 0) return p.string();
    }
  return {};
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

bool contains(const std::string& hay, const std::string& needle) { return hay.find(needle) != std::string::npos; }

std::uint32_t be32(const std::string& s, std::size_t at) {
  std::uint32_t v = 0;
  for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(s[at + i]);
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: culprit_report_browser BINARY FIXTURE_DIR WORK_DIR\n");
    return 2;
  }
  const std::string binary = argv[1];
  const fs::path fixture = argv[2];
  const std::string browser = find_browser();
  if (browser.empty()) {
    std::printf("SKIP: Chromium is not installed (Debian: apt-get install chromium), so the HTML report was not "
                "checked in a browser\n");
    return kSkip;
  }
  const fs::path work = fs::absolute(fs::path(argv[3]) / fixture.filename());
  std::error_code ec;
  fs::remove_all(work, ec);
  fs::create_directories(work);
  const fs::path html = work / "report.html", png = work / "report.png", log = work / "chromium.log";
  std::vector<std::string> failures;

  int status = 0;
  run_command(fixture_command(binary, fixture, "--format html -o " + shell_quote(html.string())), status);
  const std::string json = run_command(fixture_command(binary, fixture, "--format json"), status);
  const std::string page = read_file(html);
  if (page.empty()) {
    std::fprintf(stderr, "FAIL %s: culprit wrote no HTML report\n", fixture.filename().c_str());
    return 1;
  }
  // Self-contained: nothing for the browser to fetch.
  for (const char* bad : {"<script", "src=", "href=", "@import", "url("})
    if (contains(page, bad)) failures.push_back(std::string("the report references an external resource: ") + bad);

  std::string verdict, culprit_name;
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  simdjson::padded_string padded(json);
  if (!parser.parse(padded).get(doc)) {
    std::string_view s;
    if (!doc["verdict"].get(s)) verdict = std::string(s);
    if (!doc["culprit"]["name"].get(s)) culprit_name = std::string(s);
  }
  if (verdict.empty()) failures.push_back("culprit --format json gave no verdict");

  const fs::path profile = work / "profile";
  const std::string flags =
      " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
      " --disable-component-update --disable-sync --disable-dev-shm-usage --enable-logging=stderr --v=0"
      " --user-data-dir=" + shell_quote(profile.string());
  const std::string url = shell_quote("file://" + html.string());
  run_command("timeout 120 " + shell_quote(browser) + flags + " --screenshot=" + shell_quote(png.string()) +
                  " --window-size=1280,2000 " + url + " 2>" + shell_quote(log.string()),
              status);
  const std::string shot = read_file(png);
  if (shot.size() < 24 || shot.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0) {
    failures.push_back("no PNG screenshot (chromium exit " + std::to_string(status) + ", see " + log.string() + ")");
  } else {
    const auto w = be32(shot, 16), h = be32(shot, 20);
    if (w != 1280 || h != 2000)
      failures.push_back("screenshot is " + std::to_string(w) + "x" + std::to_string(h) + ", not 1280x2000");
    if (shot.size() < 30000)  // a blank page compresses to a few KB; a rendered report is far larger
      failures.push_back("screenshot is only " + std::to_string(shot.size()) + " bytes: the page looks empty");
  }
  fs::remove_all(profile, ec);

  const fs::path dom_log = work / "chromium-dom.log";
  const std::string dom = run_command("timeout 120 " + shell_quote(browser) + flags + " --dump-dom " + url + " 2>" +
                                          shell_quote(dom_log.string()),
                                      status);
  fs::remove_all(profile, ec);
  std::ofstream(work / "dom.html", std::ios::binary) << dom;
  if (!contains(dom, "id=\"culprit-report\"")) failures.push_back("the DOM has no report (chromium exit " +
                                                                   std::to_string(status) + ")");
  if (!verdict.empty() && !contains(dom, "data-verdict=\"" + verdict + "\""))
    failures.push_back("the DOM does not carry the verdict " + verdict);
  if (!contains(dom, "<h1 id=\"verdict\">")) failures.push_back("the DOM has no verdict headline");
  if (!culprit_name.empty() && !contains(dom, culprit_name))
    failures.push_back("the DOM does not name the culprit " + culprit_name);
  // A report draws its timeline chart when the inputs had times; then the browser must show it.
  if (contains(page, "<svg") && !contains(dom, "<svg")) failures.push_back("the DOM has no chart");
  for (const char* bad : {"chrome-error://", "ERR_FILE_NOT_FOUND", "ERR_ACCESS_DENIED"})
    if (contains(dom, bad)) failures.push_back(std::string("the browser showed an error page: ") + bad);
  for (const fs::path& l : {log, dom_log}) {
    const std::string text = read_file(l);
    for (const char* bad : {"Uncaught", "net::ERR_", "CONSOLE"})
      if (contains(text, bad)) failures.push_back(std::string("the browser log has `") + bad + "` (" + l.string() + ")");
  }

  if (!failures.empty()) {
    std::fprintf(stderr, "FAIL %s\n", fixture.filename().c_str());
    for (const auto& f : failures) std::fprintf(stderr, "  %s\n", f.c_str());
    return 1;
  }
  std::printf("PASS %s: %s (%zu bytes), verdict %s shown\n", fixture.filename().c_str(), png.c_str(), shot.size(),
              verdict.c_str());
  return 0;
}
