// ingest::ingest end to end on strings: skip notes (binary, empty, only NULs), one note per
// kind of normalisation naming the input and line, the per-input line limit (the last lines
// are read, line numbers stay true), and the run's event budget (--max-events).
#include <algorithm>
#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "culprit/ingest/pipeline.hpp"
#include "culprit/rules/loader.hpp"
#include "unit/ingest/recording_sink.hpp"

using culprit::core::Diagnostics;
using culprit::ingest::IngestInput;
using culprit::ingest::IngestOptions;
using culprit::test::RecordingSink;

namespace {

const culprit::rules::RuleSet& builtin() {
  static const auto loaded = culprit::rules::load_rules(culprit::rules::builtin_rules());
  return loaded.rules;
}

const culprit::core::Diagnostic* find(const Diagnostics& d, std::string_view code) {
  for (const auto& p : d)
    if (p.code == code) return &p;
  return nullptr;
}

constexpr std::string_view kOomLine =
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of "
    "119.70 GiB of which 1.06 MiB is free.";

}  // namespace

TEST_CASE("binary, empty and NUL-only inputs are skipped with a note naming them", "[pipeline]") {
  RecordingSink sink;
  Diagnostics d;
  std::string bin;
  for (int i = 0; i < 4096; ++i) bin += static_cast<char>(i * 7 % 32);
  culprit::ingest::ingest(IngestInput{"core.bin", "", "in", bin}, builtin().signals, sink, d);
  culprit::ingest::ingest(IngestInput{"empty.log", "", "in", ""}, builtin().signals, sink, d);
  const std::string zeros(5000, '\0');
  culprit::ingest::ingest(IngestInput{"zeros.log", "", "in", zeros}, builtin().signals, sink, d);
  REQUIRE(d.size() == 3);
  CHECK(d[0].code == "input-binary");
  CHECK(d[0].where == "core.bin");
  CHECK(d[1].code == "input-empty");
  CHECK(d[1].where == "empty.log");
  CHECK(d[2].code == "input-empty");
  CHECK(d[2].message.find("only NUL bytes") != std::string::npos);
  REQUIRE(sink.sources.size() == 3);  // still listed as sources
  CHECK(sink.sources[0].format == "binary");
  CHECK(sink.events.empty());
}

TEST_CASE("normalisation notes name the input and the first line, once per kind", "[pipeline]") {
  RecordingSink sink;
  Diagnostics d;
  using namespace std::string_literals;
  std::string text = "INFO starting\nINFO caf\xe9\nINFO a\0b\nINFO \xff again\n"s;
  text += std::string(kOomLine) + "\n";
  IngestOptions o;
  culprit::ingest::ingest(IngestInput{"worker.log", "node-1", "in", text, 10}, builtin().signals, sink, d, o);
  const auto* utf8 = find(d, "input-invalid-utf8");
  REQUIRE(utf8 != nullptr);
  CHECK(utf8->where == "worker.log:11");  // line 2 of a text that starts at line 10
  CHECK(utf8->message.find("2 lines") != std::string::npos);
  const auto* nul = find(d, "input-nul");
  REQUIRE(nul != nullptr);
  CHECK(nul->where == "worker.log:12");
  bool oom = false;
  for (const auto& e : sink.events)
    if (e.message.find("CUDA out of memory") != std::string::npos) {
      oom = true;
      CHECK(e.line == 14);
    }
  CHECK(oom);
}

TEST_CASE("past the line limit only the last lines are read, with true numbers", "[pipeline]") {
  RecordingSink sink;
  Diagnostics d;
  std::string text;
  for (int i = 1; i <= 99; ++i) text += "INFO filler line " + std::to_string(i) + "\n";
  text += std::string(kOomLine) + "\n";  // line 100
  IngestOptions o;
  o.max_lines = 10;
  culprit::ingest::ingest(IngestInput{"big.log", "", "in", text}, builtin().signals, sink, d, o);
  const auto* note = find(d, "input-too-many-lines");
  REQUIRE(note != nullptr);
  CHECK(note->where == "big.log:91");
  CHECK(note->message.find("100 lines; only the last 10") != std::string::npos);
  REQUIRE_FALSE(sink.sources.empty());
  CHECK(sink.sources.front().first_line == 91);
  bool found = false;
  for (const auto& e : sink.events)
    if (e.message.find("CUDA out of memory") != std::string::npos) found = e.line == 100;
  CHECK(found);
}

TEST_CASE("the event budget drops later events with one note naming where", "[pipeline]") {
  RecordingSink sink;
  Diagnostics d;
  std::string text;
  for (int i = 0; i < 5; ++i) text += std::string(kOomLine) + "\n";
  culprit::ingest::EventBudget budget;
  budget.max = 2;
  IngestOptions o;
  o.budget = &budget;
  culprit::ingest::ingest(IngestInput{"a.log", "", "in", text}, builtin().signals, sink, d, o);
  culprit::ingest::ingest(IngestInput{"b.log", "", "in", text}, builtin().signals, sink, d, o);
  CHECK(sink.events.size() == 2);
  CHECK(budget.used == 2);
  CHECK(budget.dropped >= 8);
  int notes = 0;
  for (const auto& p : d)
    if (p.code == "input-max-events") {
      ++notes;
      CHECK(p.where == "a.log:3");
    }
  CHECK(notes == 1);
  CHECK(sink.sources.size() == 2);  // sources are still recorded
}

TEST_CASE("culprit's own reports saved next to the logs are skipped, not read as logs", "[pipeline]") {
  // The report fixtures are culprit's output; their "Ruled out" lines quote signal words
  // (OOMKilled, oom_kill) that would otherwise become findings.
  const auto read = [](const std::string& rel) {
    std::ifstream in(std::string(CULPRIT_SOURCE_DIR) + "/" + rel, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string html = read("fixtures/incidents/device-side-assert/report.html");
  const std::string md = read("fixtures/incidents/device-side-assert/report.md");
  REQUIRE(!html.empty());
  REQUIRE(!md.empty());
  const std::string json = R"({"schema_version":1,"verdict":"not_oom","confidence":"high","summary":"x"})";
  const std::string text =
      "Not an OOM: CUDA error (not out of memory) [high]\n\nA CUDA error…\n\nRuled out\n"
      "  - cgroup / container OOM: no memory cgroup OOM, no OOMKilled container or Slurm oom_kill in the inputs\n\n"
      "Sources (1)\n  train.log  (app_log, 21 lines)\n";
  RecordingSink sink;
  Diagnostics d;
  for (const auto& [name, body] : std::vector<std::pair<std::string, std::string>>{
           {"report.html", html}, {"report.md", md}, {"report.json", json}, {"report.txt", text}})
    culprit::ingest::ingest(IngestInput{name, "", "in", body}, builtin().signals, sink, d);
  REQUIRE(d.size() == 4);
  for (const auto& p : d) CHECK(p.code == "input-own-report");
  CHECK(d[0].where == "report.html");
  CHECK(sink.events.empty());
  REQUIRE(sink.sources.size() == 4);
  CHECK(sink.sources[0].format == "culprit_report");

  // A log that merely mentions culprit, or starts like a headline, is still a log.
  RecordingSink logs;
  Diagnostics none;
  culprit::ingest::ingest(IngestInput{"notes.log", "", "in", "Unknown command 'culprit'\n" + std::string(kOomLine) + "\n"},
                          builtin().signals, logs, none);
  CHECK(none.empty());
  CHECK(logs.events.size() >= 1);
}

TEST_CASE("a tool's table is not repaired: a ps command line holding a backslash-n stays one row", "[pipeline][repair]") {
  // `ps -e -ww -o user:32,pid,ppid,state,lstart,rss,cgroup,cmd` as `culprit run` takes it (procps-ng
  // 4.0.2, Debian 12), with a shell whose argument holds a literal backslash-n — a CI runner's
  // `sh -c '… echo "a\nb"'`; before, the row was split at the `\n` and every row after it was
  // read as an application log (CI's run_foreign lost the stale holder's user).
  const std::string listing =
      "USER                                 PID    PPID S                  STARTED   RSS CGROUP                      CMD\n"
      "root                               29181       1 S Tue Dec  1 14:29:19 2026  1684 4:memory:/ci sh -c sleep 30; echo \"a\\nb\"\n"
      "nobody                             29205       1 S Tue Dec  1 14:29:22 2026  3236 4:memory:/ci sleep 60\n";
  RecordingSink sink;
  Diagnostics d;
  culprit::ingest::ingest(IngestInput{"vm/ps.txt", "vm", "in", listing}, builtin().signals, sink, d);
  REQUIRE(sink.processes.size() == 2);
  CHECK(sink.processes[0].cmdline == "sh -c sleep 30; echo \"a\\nb\"");
  CHECK(sink.processes[1].user == "nobody");
  CHECK(find(d, "input-repaired") == nullptr);
  REQUIRE(sink.sources.size() == 1);
  CHECK(sink.sources[0].format == "ps");
}

TEST_CASE("sniffing never swallows a line: a log line inside a table's segment still reaches the signals",
          "[pipeline][sniff]") {
  // `nvidia-smi --query-gpu=index,name,memory.used,memory.total --format=csv` (its header and row
  // shapes, nvidia-smi 550+), then the job's own error: PyTorch 2.x's CUDA OOM message, which holds
  // `, ` like a CSV row does. The CSV block takes the line; its parser, finding no column for it,
  // hands it on instead of skipping it.
  const std::string paste =
      "index, name, memory.used [MiB], memory.total [MiB]\n"
      "0, NVIDIA GB10, 1200 MiB, 122570 MiB\n"
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
      "119.70 GiB of which 1.06 MiB is free. Including non-PyTorch memory, this process has 614.00 MiB memory in "
      "use. Of the allocated memory 0 bytes is allocated by PyTorch, and 0 bytes is reserved by PyTorch but "
      "unallocated.\n";
  RecordingSink sink;
  Diagnostics d;
  culprit::ingest::ingest(IngestInput{"paste.txt", "", "in", paste}, builtin().signals, sink, d);
  const auto ooms = sink.of_kind("cuda_oom");
  REQUIRE(ooms.size() == 1);
  CHECK(ooms[0].line == 3);
}

TEST_CASE("a paste given twice is read once, with a note", "[pipeline][repeat]") {
  // `cat paste paste | culprit -`: every event, process and evidence line would count twice.
  const std::string once =
      "alice@spark-b:~$ python train.py\n" + std::string(kOomLine) + "\n" +
      "alice@spark-b:~$ docker ps\n"
      "CONTAINER ID   IMAGE                      COMMAND                  CREATED      STATUS      PORTS     NAMES\n"
      "3f2a9c1d7e44   vllm/vllm-openai:v0.6.3    \"python3 -m vllm.ent…\"   2 days ago   Up 2 days             vllm-embeddings\n";
  RecordingSink one, two;
  Diagnostics d1, d2;
  culprit::ingest::ingest(IngestInput{"<stdin>", "", "in", once}, builtin().signals, one, d1);
  culprit::ingest::ingest(IngestInput{"<stdin>", "", "in", once + once}, builtin().signals, two, d2);
  CHECK(find(d1, "input-repeat") == nullptr);
  const auto* note = find(d2, "input-repeat");
  REQUIRE(note);
  CHECK(note->where == "<stdin>:6");
  CHECK(note->message == "lines 6-10 repeat lines 1-5 (pasted twice?); read once");
  // Only the first half is read: no block of the second is met again (and noted again).
  CHECK(std::count_if(d2.begin(), d2.end(), [](const auto& p) { return p.code == "input-repeat"; }) == 1);
  CHECK(two.sources.size() == one.sources.size());
  CHECK(two.events.size() == one.events.size());
  CHECK(two.containers.size() == one.containers.size());
  CHECK(two.of_kind("cuda_oom").size() == 1);

  // A block pasted again inside a longer paste (after other output) is read once too.
  const std::string again = once + "alice@spark-b:~$ uptime\n 10:02:11 up 3 days\n" + once.substr(once.find("alice@spark-b:~$ docker ps"));
  RecordingSink three;
  Diagnostics d3;
  culprit::ingest::ingest(IngestInput{"<stdin>", "", "in", again}, builtin().signals, three, d3);
  CHECK(find(d3, "input-repeat") != nullptr);
  CHECK(three.containers.size() == one.containers.size());
  // Short repeats (a one-line `Killed` after the same prompt) are two runs, not a paste: kept.
  const std::string killed = "$ ./run.sh\nKilled\n$ ./run.sh\nKilled\n";
  RecordingSink four;
  Diagnostics d4;
  culprit::ingest::ingest(IngestInput{"<stdin>", "", "in", killed}, builtin().signals, four, d4);
  CHECK(find(d4, "input-repeat") == nullptr);

  // A piece of a big input (a stream read in 4 MiB pieces) starts past line 1: the ranges are
  // the input's own line numbers, as the cited line is (issue 36, redteam finding 27).
  const std::string twice = once + once;
  IngestInput piece{"<stdin>", "", "in", twice};
  piece.first_line = 903201;
  RecordingSink five;
  Diagnostics d5;
  culprit::ingest::ingest(piece, builtin().signals, five, d5);
  const auto* later = find(d5, "input-repeat");
  REQUIRE(later);
  CHECK(later->where == "<stdin>:903206");
  CHECK(later->message == "lines 903206-903210 repeat lines 903201-903205 (pasted twice?); read once");
}

// `culprit run` records the job's output as `job.stderr.log` (core/job_output.hpp): its last
// non-blank lines after its last event are kept as events, so a job's own last words can be
// cited; another file's, or a line an event already holds, are not.
TEST_CASE("a culprit run job's last output lines are kept as events, after its last event", "[pipeline]") {
  const std::string text =
      "2026-04-09T00:47:10.000001Z Traceback (most recent call last):\n"
      "2026-04-09T00:47:10.000002Z   File \"train.py\", line 3, in <module>\n"
      "2026-04-09T00:47:10.000003Z KeyError: 'lr'\n"
      "2026-04-09T00:47:11.000000Z retrying with defaults\n"
      "2026-04-09T00:47:12.000000Z \n"
      "2026-04-09T00:47:13.000000Z giving up after 3 tries\n";
  RecordingSink sink;
  Diagnostics d;
  culprit::ingest::ingest(IngestInput{"run/gpu-7/job.stderr.log", "gpu-7", "in", text}, builtin().signals, sink, d);
  std::vector<std::pair<std::int64_t, std::string>> tail;
  for (const auto& e : sink.events)
    if (e.rule == "job_output_tail") tail.emplace_back(e.line, e.message);
  REQUIRE(tail.size() == 2);  // the traceback is an event already; the blank line is nothing
  CHECK(tail[0] == std::make_pair(std::int64_t{4}, std::string("retrying with defaults")));
  CHECK(tail[1] == std::make_pair(std::int64_t{6}, std::string("giving up after 3 tries")));
  for (const auto& e : sink.events)
    if (e.rule == "job_output_tail") {
      CHECK(e.kind == "log");
      CHECK(e.ts);  // its arrival stamp
    }

  // Any other log keeps no tail; nor does a piece that the next piece goes on from.
  for (const auto& input : {IngestInput{"run/gpu-7/train.log", "gpu-7", "in", text},
                            IngestInput{"run/gpu-7/job.stderr.log", "gpu-7", "in", text, 1, "", -1, 0, 0, true}}) {
    RecordingSink other;
    culprit::ingest::ingest(input, builtin().signals, other, d);
    CHECK(std::none_of(other.events.begin(), other.events.end(),
                       [](const auto& e) { return e.rule == "job_output_tail"; }));
  }
}
