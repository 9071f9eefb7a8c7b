// Golden incident test: runs the culprit binary on one fixture incident (its `inputs/` folder, or
// the file of inputs/ named by "stdin" fed on standard input) with --format json, and compares the verdict,
// confidence, culprit, victim, root and echo hosts with the fixture's expected.json, which a
// person wrote from the evidence. Only the keys present in expected.json are compared.
//
// Usage: culprit_golden BINARY FIXTURE_DIR   (exit 0 when everything matches)
#include <simdjson.h>

#include <cstdio>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>

namespace fs = std::filesystem;
using simdjson::dom::element;

namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

std::string run(const std::string& cmd, int& status) {
  std::string out;
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  status = ::pclose(p);
  return out;
}

std::string as_text(element e) {
  if (e.is_null()) return "null";
  if (e.is_string()) return std::string(std::string_view(e.get_string().value()));
  if (e.is_int64()) return std::to_string(int64_t(e.get_int64().value()));
  if (e.is_uint64()) return std::to_string(uint64_t(e.get_uint64().value()));
  if (e.is_bool()) return e.get_bool().value() ? "true" : "false";
  return simdjson::minify(e);
}

struct Checker {
  std::vector<std::string> failures;
  void equal(const std::string& what, const std::string& want, const std::string& got) {
    if (want != got) failures.push_back(fmt::format("{}: expected {}, got {}", what, want, got));
  }
};

void compare_process(Checker& c, const std::string& what, element want, element got,
                     std::initializer_list<const char*> keys) {
  if (want.is_null()) {
    c.equal(what, "null", got.is_null() ? "null" : simdjson::minify(got));
    return;
  }
  if (got.is_null()) {
    c.failures.push_back(fmt::format("{}: expected {}, got null", what, simdjson::minify(want)));
    return;
  }
  for (const char* k : keys) {
    element w;
    if (want[k].get(w)) continue;  // not asserted
    element g;
    std::string got_text = got[k].get(g) ? "(absent)" : as_text(g);
    c.equal(what + "." + k, as_text(w), got_text);
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: culprit_golden BINARY FIXTURE_DIR\n");
    return 2;
  }
  const std::string binary = argv[1];
  const fs::path dir = argv[2];
  simdjson::dom::parser expect_parser, got_parser;
  element expected;
  if (auto err = expect_parser.load((dir / "expected.json").string()).get(expected)) {
    fmt::print(stderr, "{}: cannot read expected.json: {}\n", dir.string(), simdjson::error_message(err));
    return 2;
  }
  // The fixture's documentation and label (README.md, expected.json, report.*) sit beside
  // inputs/, so culprit reads exactly what a user would hand it: nothing is excluded.
  const fs::path inputs = dir / "inputs";
  if (!fs::is_directory(inputs)) {
    fmt::print(stderr, "{}: no inputs/ folder (a fixture keeps its logs in inputs/, apart from README.md and expected.json)\n",
               dir.string());
    return 2;
  }
  std::string cmd = shell_quote(binary) + " diagnose --format json --quiet";
  element args;
  if (!expected["args"].get(args))
    for (element a : args.get_array()) cmd += " " + shell_quote(std::string(std::string_view(a.get_string().value())));
  std::string_view stdin_file;
  if (!expected["stdin"].get(stdin_file)) cmd += " - < " + shell_quote((inputs / std::string(stdin_file)).string());
  else cmd += " " + shell_quote(inputs.string());
  int status = 0;
  const std::string out = run(cmd, status);  // stderr passes through for the ctest log
  element got;
  simdjson::padded_string padded(out);
  if (auto err = got_parser.parse(padded).get(got)) {
    fmt::print(stderr, "{}: culprit did not print JSON ({}):\n{}\n", dir.filename().string(), simdjson::error_message(err), out);
    return 1;
  }
  Checker c;
  for (const char* key : {"verdict", "confidence"}) {
    element w, g;
    if (expected[key].get(w)) continue;
    c.equal(key, as_text(w), got[key].get(g) ? "(absent)" : as_text(g));
  }
  element w, g;
  if (!expected["culprit"].get(w)) {
    if (got["culprit"].get(g)) g = element();
    compare_process(c, "culprit", w, g, {"host", "pid", "name", "role", "container", "place"});
  }
  if (!expected["victim"].get(w)) {
    if (got["victim"].get(g)) g = element();
    compare_process(c, "victim", w, g, {"host", "pid", "name"});
  }
  std::string_view root_host;
  if (!expected["root_host"].get(root_host)) {
    element root, host;
    std::string got_host = (!got["root"].get(root) && !root.is_null() && !root["host"].get(host)) ? as_text(host) : "(none)";
    c.equal("root.host", std::string(root_host), got_host);
  }
  element echo_hosts;
  if (!expected["echo_hosts"].get(echo_hosts)) {
    std::set<std::string> want_hosts, got_hosts;
    for (element h : echo_hosts.get_array()) want_hosts.insert(as_text(h));
    element echoes;
    if (!got["echoes"].get(echoes))
      for (element e : echoes.get_array()) {
        element host;
        if (!e["host"].get(host)) got_hosts.insert(as_text(host));
      }
    for (const auto& h : want_hosts)
      if (!got_hosts.count(h)) c.failures.push_back(fmt::format("echoes: expected an echo on host {}", h));
  }
  if (!c.failures.empty()) {
    fmt::print(stderr, "FAIL {}\n", dir.filename().string());
    for (const auto& f : c.failures) fmt::print(stderr, "  {}\n", f);
    return 1;
  }
  fmt::print("PASS {}\n", dir.filename().string());
  return 0;
}
