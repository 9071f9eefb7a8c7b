// The terminal report: the one-line verdict, the sections, the width contract, and log text
// that tries to break the layout (escapes, tabs, CR, invalid UTF-8, endless lines).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "culprit/report/renderer.hpp"
#include "unit/report/sample_verdicts.hpp"
#include "unit/test_text.hpp"

namespace text_renderer_tests {

using namespace culprit::report;
namespace d = culprit::diagnose;

namespace {

using culprit::test::lines_of;
using culprit::test::contains;
using culprit::test::has_line;
using culprit::test::valid_utf8;

// Columns of text without wide characters: one per code point (UTF-8 lead bytes).
int columns(const std::string& s) {
  int n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

void require_width(const std::string& text, int width) {
  for (const auto& line : lines_of(text)) {
    INFO(line);
    CHECK(columns(line) <= width);
  }
}

}  // namespace

TEST_CASE("text: CUDA OOM verdict line says what, where, when, who and how sure", "[report]") {
  const auto v = test::cuda_oom_foreign();
  const std::string full =
      "CUDA OOM on spark-b GPU 0 at 2026-04-09 00:47:13Z — pid 48211 VLLM::EngineCore (foreign) [high]";
  SECTION("one shape at every width that holds it") {
    for (int width : {0, 100, 160}) {
      const auto lines = lines_of(render(v, Format::text, {false, width}));
      REQUIRE_FALSE(lines.empty());
      CHECK(lines[0] == full);
    }
  }
  SECTION("narrower: the name is shortened, the time, pid, role and confidence stay") {
    const auto lines = lines_of(render(v, Format::text, {false, 90}));
    REQUIRE_FALSE(lines.empty());
    CHECK(columns(lines[0]) <= 90);
    CHECK(lines[0].rfind("CUDA OOM on spark-b GPU 0 at 2026-04-09 00:47:13Z — pid 48211 V", 0) == 0);
    CHECK(contains(lines[0], "… (foreign) [high]"));
  }
  SECTION("the name is the one shortened even when it repeats the pid's digits") {
    auto same = v;
    same.culprit->name = std::to_string(*same.culprit->pid) + "-worker-of-the-embeddings-server";
    const auto lines = lines_of(render(same, Format::text, {false, 100}));
    REQUIRE_FALSE(lines.empty());
    CHECK(columns(lines[0]) <= 100);
    CHECK(contains(lines[0], "— pid 48211 48211-"));
    CHECK(contains(lines[0], "… (foreign) [high]"));
  }
}

TEST_CASE("text: CUDA OOM sections fit 100 columns and carry the ledger", "[report]") {
  const std::string out = render(test::cuda_oom_foreign(), Format::text);
  require_width(out, 100);
  CHECK_FALSE(contains(out, "\x1b["));  // no colour unless asked

  for (const char* heading : {"Culprit", "Memory budget — spark-b GPU 0 (unified memory)", "Root failure",
                              "Echoes (1)", "Evidence", "Ruled out", "Advice", "Skipped inputs",
                              "Sources (3)"})
    CHECK(has_line(out, heading));
  // Sections come in the documented order.
  CHECK(out.find("\nCulprit\n") < out.find("\nMemory budget"));
  CHECK(out.find("\nMemory budget") < out.find("\nRoot failure\n"));
  CHECK(out.find("\nRoot failure\n") < out.find("\nEchoes (1)\n"));
  CHECK(out.find("\nEchoes (1)\n") < out.find("\nEvidence\n"));

  CHECK(has_line(out, "  role       foreign"));
  CHECK(has_line(out, "  container  vllm-embeddings"));
  // The ledger: labels aligned, sizes right-aligned, shares of the total.
  CHECK(has_line(out, "  total                                 119.70 GiB"));
  CHECK(has_line(out, "  free                                    1.20 GiB    1.0%"));
  CHECK(has_line(out, "  requested                               2.00 GiB"));
  CHECK(has_line(out, "  shortfall                             819.20 MiB"));
  CHECK(has_line(out, "  job pid 51877 (python3)                30.00 GiB   25.1%"));
  CHECK(has_line(out, "  foreign pid 48211 (VLLM::EngineCore)   84.00 GiB   70.2%"));
  CHECK(has_line(out, "  unexplained                             4.50 GiB    3.8%"));
  CHECK(has_line(out, "  119.70 GiB total = 1.20 GiB free + 30.00 GiB job + 84.00 GiB foreign + 4.50 GiB "
                      "unexplained"));
  CHECK(contains(out, "Unified memory: the GPU and the host share one pool"));

  CHECK(has_line(out, "  2026-04-09T00:47:13.412Z  spark-b  CUDA out of memory while a foreign process held "
                      "the GPU [high]"));
  CHECK(has_line(out, "  2026-04-09T00:57:13.612Z  spark-a  NCCL watchdog timeout (peer died) [medium]"));
  CHECK(has_line(out, "  - Check `nvidia-smi` before starting a job on a shared GPU."));
  CHECK(has_line(out, "  - spark-b/core.48211: binary file"));
}

TEST_CASE("text: evidence is source:line then the text, cut at a word with an ellipsis", "[report]") {
  const auto v = test::cuda_oom_foreign();
  const std::string out = render(v, Format::text);
  const auto lines = lines_of(out);
  std::size_t label = 0;
  while (label < lines.size() && lines[label] != "  spark-b/train-rank0.log:1184  2026-04-09T00:47:13.412Z")
    ++label;
  REQUIRE(label + 1 < lines.size());
  const std::string shown = lines[label + 1];
  REQUIRE(shown.rfind("    ", 0) == 0);
  REQUIRE(shown.size() > 4 + 3);
  const std::string ellipsis = "…";
  REQUIRE(shown.compare(shown.size() - ellipsis.size(), ellipsis.size(), ellipsis) == 0);
  const std::string kept = shown.substr(4, shown.size() - 4 - ellipsis.size());
  const std::string& full = v.evidence[0].text;
  REQUIRE(full.rfind(kept, 0) == 0);   // a prefix of the line…
  CHECK(full[kept.size()] == ' ');     // …ending at a word boundary
  CHECK(kept.size() > 60);             // and not needlessly short
  CHECK(columns(shown) <= 100);
}

TEST_CASE("text: kernel OOM names the hog as culprit and the victim separately", "[report]") {
  const auto v = test::kernel_oom_victim_not_hog();
  SECTION("wide") {
    const auto lines = lines_of(render(v, Format::text, {false, 200}));
    CHECK(lines[0] ==
          "Host kernel OOM on node-3 at 2026-03-02 14:05:09Z — pid 4242 python3 (job); "
          "killed: pid 5151 postgres [high]");
  }
  SECTION("100 columns") {
    const std::string out = render(v, Format::text);
    require_width(out, 100);
    const auto lines = lines_of(out);
    CHECK(lines[0] ==
          "Host kernel OOM on node-3 at 2026-03-02 14:05:09Z — pid 4242 python3 (job) [high]");
    CHECK(has_line(out, "Victim (killed, not the culprit)"));
    CHECK(has_line(out, "  pid   5151"));
    CHECK(has_line(out, "  name  postgres"));
    CHECK(out.find("\nCulprit\n") < out.find("\nVictim"));
    // The task table keeps one line per row (never wrapped into each other).
    bool hog_row = false;
    for (const auto& l : lines) hog_row = hog_row || l.rfind("    [   4242]  1000  4242 16090001", 0) == 0;
    CHECK(hog_row);
    CHECK_FALSE(contains(out, "Memory budget"));
  }
}

TEST_CASE("text: unknown verdict with nothing found still says so in one line", "[report]") {
  const std::string out = render(test::unknown_nothing(), Format::text);
  require_width(out, 100);
  const auto lines = lines_of(out);
  CHECK(lines[0] == "Unknown — no failure recognised in 2 sources (252 lines) [low]");
  CHECK(has_line(out, "  <stdin>:213  (ps,app_log, 40 lines)"));  // a paste's formats, no clock note
  CHECK_FALSE(contains(out, "\nCulprit\n"));
  CHECK_FALSE(contains(out, "\nEvidence\n"));
  CHECK(has_line(out, "Skipped inputs"));
  CHECK(has_line(out, "  - <stdin>:213: format not recognised (40 lines)"));

  d::Verdict empty;
  CHECK(lines_of(render(empty, Format::text))[0] ==
        "Unknown — no failure recognised (no sources were read) [low]");
}

TEST_CASE("text: colour only when asked", "[report]") {
  const std::string plain = render(test::cuda_oom_foreign(), Format::text, {false, 100});
  const std::string coloured = render(test::cuda_oom_foreign(), Format::text, {true, 100});
  CHECK_FALSE(contains(plain, "\x1b"));
  CHECK(contains(coloured, "\x1b["));
  CHECK(contains(coloured, "VLLM::EngineCore"));
}

TEST_CASE("text: hostile log text cannot break the layout", "[report]") {
  auto v = test::cuda_oom_foreign();
  d::Evidence e;
  e.source = "spark-b/\x1b[31mevil\x1b[0m.log";
  e.line = 7;
  e.text = std::string("\x1b[1;31mERROR\x1b[0m\tcolumns\there\r\nsecond line \xff\xfe bad bytes \xe2\x82\r\n") +
           std::string(5000, 'x') + "\n" + std::string(3000, ' ') + "\n\x07\x01 bell";
  v.evidence.push_back(e);
  v.culprit->why = std::string(400, 'w') + " " + std::string(30, 'y');
  v.advice.push_back(std::string("tab\tand\nnewline in advice ") + std::string(300, 'a'));
  v.root->title = std::string(250, 'T');

  for (int width : {100, 60, 40, 12}) {
    const std::string out = render(v, Format::text, {false, width});
    INFO("width " << width);
    require_width(out, std::max(width, 40));
    CHECK(valid_utf8(out));
    CHECK_FALSE(contains(out, "\x1b"));
    CHECK_FALSE(contains(out, "\r"));
    CHECK_FALSE(contains(out, "\t"));
    CHECK_FALSE(contains(out, "\x07"));
  }
  const std::string out = render(v, Format::text);
  CHECK(has_line(out, "  spark-b/evil.log:7"));
  CHECK(has_line(out, "    ERROR columns here"));
  CHECK(has_line(out, "    second line \xef\xbf\xbd\xef\xbf\xbd bad bytes \xef\xbf\xbd"));
}

TEST_CASE("text: a long evidence block is capped with a count of what was left", "[report]") {
  auto v = test::kernel_oom_victim_not_hog();
  std::string block;
  for (int i = 0; i < 60; ++i) block += "[ " + std::to_string(1000 + i) + "]  1000  task\n";
  v.evidence = {{"node-3/kern.log", 100, block, "node-3", std::nullopt, 0}};
  const std::string out = render(v, Format::text);
  CHECK(has_line(out, "    … (40 more lines)"));
  CHECK(contains(out, "[ 1019]"));
  CHECK_FALSE(contains(out, "[ 1020]"));
}

TEST_CASE("text: the ledger shows each holder once, with the engine's own labels", "[report]") {
  auto v = test::cuda_oom_foreign();
  auto& b = *v.budget;
  b.entries = {
      {"job: the failing process (pid 51877)", "job", 51877, 30 * test::kGiB},
      {"foreign: pid 48211 VLLM::EngineCore", "foreign", 48211, 84 * test::kGiB},
      {"unknown: pid 7001 Xorg", "unknown", 7001, 512 * test::kMiB},
      {"unexplained (unified memory: host OS, page cache, CPU processes)", "rest", std::nullopt,
       *b.unexplained - 512 * test::kMiB},
  };
  b.unexplained = *b.unexplained - 512 * test::kMiB;
  const std::string out = render(v, Format::text);
  require_width(out, 100);
  auto count = [&](const std::string& needle) {
    std::size_t n = 0;
    for (auto pos = out.find(needle); pos != std::string::npos; pos = out.find(needle, pos + 1)) ++n;
    return n;
  };
  CHECK(count("  job: the failing process (pid 51877) ") == 1);
  CHECK(count("  foreign: pid 48211 VLLM::EngineCore ") == 1);
  CHECK(count("  unknown: pid 7001 Xorg ") == 1);
  // A label longer than the capped label column wraps within it (issue 37, finding 31).
  CHECK(count("  unexplained (unified memory: host OS, page cache,") == 1);
  CHECK(count("\n    CPU processes)\n") == 1);
  CHECK(count("\n  unexplained  ") == 0);  // no second, bare "unexplained" row
  const std::string md = render(v, Format::markdown);
  CHECK(md.find("| unknown: pid 7001 Xorg | unknown | 7001 | 512.00 MiB | 536870912 | 0.4% |") != std::string::npos);
}

TEST_CASE("text: a culprit of no known role says `role  unknown`, `(role unknown)` beside its name", "[report]") {
  auto v = test::cuda_oom_foreign();
  REQUIRE(v.culprit);
  v.culprit->role = "unknown";
  const std::string out = render(v, Format::text);
  CHECK(has_line(out, "  role       unknown"));
  CHECK_FALSE(contains(out, "role       role unknown"));
  CHECK(contains(lines_of(out)[0], "(role unknown) [high]"));
}

TEST_CASE("text: a long evidence path is cut from the left: the time stays", "[report]") {
  auto v = test::cuda_oom_foreign();
  REQUIRE_FALSE(v.evidence.empty());
  v.evidence[0].source = "incidents/2026-04-09/a-very-long-folder-of-node-logs/spark-b/sglang-worker-rank1-of-2.log";
  const std::string out = render(v, Format::text);
  require_width(out, 100);
  bool found = false;
  for (const auto& l : lines_of(out)) {
    if (l.find("sglang-worker-rank1-of-2.log:") == std::string::npos) continue;
    found = true;
    CHECK(l.rfind("  …", 0) == 0);
    CHECK(contains(l, "2026-04-09T00:47:13.412Z"));
  }
  CHECK(found);
}

// Issue 37, finding 10: a culprit known by neither pid nor name (an unnamed foreign holder the
// ledger inferred) is not the victim, a process of the job with a pid: "Victim (the culprit
// itself)" was printed because two empty names compared equal.
TEST_CASE("an unnamed foreign culprit is not its victim", "[report][text][victim]") {
  d::Verdict v;
  v.verdict = "cuda_oom";
  v.confidence = d::Confidence::medium;
  d::ProcessRef holder;
  holder.role = "foreign";
  v.culprit = holder;
  d::ProcessRef victim;
  victim.pid = 61234;
  v.victim = victim;
  RenderOptions o;
  const std::string text = render(v, Format::text, o);
  CHECK(text.find("Victim (the culprit itself)") == std::string::npos);
  CHECK(text.find("not the culprit") != std::string::npos);
  // The job as a whole, without a pid, is its own failing process's culprit.
  v.culprit->role = "job";
  CHECK(render(v, Format::text, o).find("Victim (the culprit itself)") != std::string::npos);
}

}  // namespace text_renderer_tests
