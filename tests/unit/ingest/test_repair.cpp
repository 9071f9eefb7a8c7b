// Text repair before matching (src/ingest/repair.hpp): each repair with the shape it undoes,
// written from the real producer's format (named in each case), and a look-alike it must leave
// alone. The last cases run the whole pipeline: evidence still cites the input's own lines.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "culprit/ingest/pipeline.hpp"
#include "culprit/rules/loader.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/repair.hpp"
#include "unit/ingest/recording_sink.hpp"

using culprit::ingest::LineMap;
using culprit::ingest::detail::repair_text;
using culprit::ingest::detail::RepairOptions;
using culprit::ingest::detail::RepairReport;

namespace {

const culprit::text::SignalSet& signals() {
  static const auto loaded = culprit::rules::load_rules(culprit::rules::builtin_rules());
  return loaded.rules.signals;
}

struct Repaired {
  std::string text;
  LineMap map;
  RepairReport report;
  bool copied = false;
};

Repaired repair(std::string_view in, bool structured = false) {
  Repaired r;
  std::string storage;
  RepairOptions o;
  o.structured = structured;
  const auto out = repair_text(in, &signals(), storage, r.map, r.report, o);
  r.copied = out.data() != in.data();
  r.text = std::string(out);
  return r;
}

/// repair() without signals: the wrap and unescape stages are off, so a text is repaired by the
/// chrome, gutter and escape stages alone.
Repaired repair_without_signals(std::string_view in) {
  Repaired r;
  std::string storage;
  const auto out = repair_text(in, nullptr, storage, r.map, r.report, RepairOptions{});
  r.copied = out.data() != in.data();
  r.text = std::string(out);
  return r;
}

std::vector<std::string> split_lines_of(std::string_view s) {
  std::vector<std::string> out;
  for (auto l : culprit::text::split_lines(s)) out.emplace_back(l);
  return out;
}

/// Wraps `line` at `width` columns the way a terminal does: hard cuts, mid-word.
std::string terminal_wrap(std::string_view line, std::size_t width) {
  std::string out;
  for (std::size_t i = 0; i < line.size(); i += width) {
    if (i) out += '\n';
    out.append(line.substr(i, width));
  }
  return out;
}

// vLLM's start-up check (vllm/v1/worker/gpu_worker.py, the f-string "Free memory on device
// {device} ({free}/{total} GiB) on startup is less than desired GPU memory utilization
// ({util}, {requested} GiB). Decrease GPU memory utilization or reduce GPU memory used by other
// processes.").
constexpr std::string_view kVllmStartup =
    "ValueError: Free memory on device cuda:1 (40.05/79.25 GiB) on startup is less than desired GPU memory "
    "utilization (0.9, 71.33 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.";

// Ray's raylet summary (src/ray/raylet/node_manager.cc: "{n} Workers (tasks / actors) killed due
// to memory pressure (OOM), {m} Workers crashed due to other reasons at node (ID: {id}, IP: {ip})
// over the last time period. To see more information about the Workers killed on this node,
// use `ray logs raylet.out -ip {ip}`"), as the driver prints it with the `(raylet)` tag.
constexpr std::string_view kRaylet =
    "(raylet) [2026-03-02 11:20:31,402 E 4410 4410] node_manager.cc:3069: 3 Workers (tasks / actors) killed due to "
    "memory pressure (OOM), 0 Workers crashed due to other reasons at node (ID: 7c1e0b5d2f0a4c66b1e2, IP: "
    "10.1.2.3) over the last time period. To see more information about the Workers killed on this node, use "
    "`ray logs raylet.out -ip 10.1.2.3`";

}  // namespace

TEST_CASE("ordinary logs come back as they are, without a copy or a map", "[repair]") {
  const std::string log =
      "[  120.000001] docker0: port 1(veth1) entered forwarding state\n"
      "(VllmWorker rank=0 pid=3300) INFO 04-09 05:10:11 [metrics.py:455] Avg prompt throughput: 1.0 tokens/s\n"
      "Traceback (most recent call last):\n"
      "  File \"/usr/lib/python3/site-packages/vllm/worker.py\", line 97, in execute_model\n"
      "RuntimeError: the step failed on this rank\n";
  const auto r = repair(log);
  CHECK_FALSE(r.copied);
  CHECK(r.map.empty());
  CHECK_FALSE(r.report.any());
}

TEST_CASE("a hand-wrapped known message is joined: its line map spans both lines", "[repair][wrap]") {
  // Cut mid-sentence by a person pasting into an issue (the ValueError above, two lines).
  const std::string wrapped = std::string(kVllmStartup.substr(0, 72)) + "\n" + std::string(kVllmStartup.substr(73)) +
                              "\nINFO 04-24 18:22:16 shutting down\n";
  const auto r = repair(wrapped);
  const auto lines = split_lines_of(r.text);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0] == kVllmStartup);
  CHECK(r.map.first_of(1) == 1);
  CHECK(r.map.last_of(1) == 2);
  CHECK(r.map.first_of(2) == 3);
  CHECK(r.report.join.lines == 2);
  CHECK(r.report.join.first_line == 1);
}

TEST_CASE("a message wrapped by a terminal at 80 or 120 columns, mid-word, is joined", "[repair][wrap]") {
  for (std::size_t width : {80u, 120u}) {
    const std::string text = terminal_wrap(kRaylet, width) + "\n(raylet) done\n";
    const auto r = repair(text);
    const auto lines = split_lines_of(r.text);
    INFO("width " << width);
    REQUIRE_FALSE(lines.empty());
    CHECK(lines[0].find("3 Workers (tasks / actors) killed due to memory pressure (OOM)") != std::string::npos);
    CHECK(r.map.first_of(1) == 1);
    CHECK(r.map.last_of(1) >= 2);
  }
}

TEST_CASE("lines that merely end and go on are not wraps", "[repair][wrap]") {
  // Prose-like lines without any signal in their join: nothing to gain, nothing joined.
  CHECK_FALSE(repair("the worker started on device\ncuda:0 and loaded the model\n").copied);
  // The next line is a new record (a stamp, a bracket prefix): never a tail.
  CHECK_FALSE(repair("ValueError: Free memory on device cuda:0 (1.0/79.25 GiB) on startup is less than\n"
                     "2026-03-02 11:20:31,402 INFO desired GPU memory utilization (0.9, 71.33 GiB).\n")
                  .copied);
  // Two lines that each match a signal are two matches, not one wrapped message.
  const std::string two =
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB.\n";
  CHECK_FALSE(repair(two).copied);
}

TEST_CASE("a table whose rows share the widest width is not a terminal wrap", "[repair][wrap]") {
  // nvidia-smi's box: every line is exactly as wide, and no join gains a signal.
  const std::string table =
      "+-----------------------------------------------------------------------------+\n"
      "| Processes:                                                                  |\n"
      "|  GPU   GI   CI        PID   Type   Process name                  GPU Memory |\n"
      "|    0   N/A  N/A      1395      C   python                          25081MiB |\n"
      "+-----------------------------------------------------------------------------+\n";
  CHECK_FALSE(repair(table).copied);
}

TEST_CASE("Markdown fences and quote markers are dropped", "[repair][chrome]") {
  // GitHub issue bodies: ```text fences; a reply quoting the log with `> `.
  const auto r = repair("```text\n> RuntimeError: step failed\n> \n>   File \"x.py\", line 3\n```\n");
  const auto lines = split_lines_of(r.text);
  REQUIRE(lines.size() == 3);
  CHECK(lines[0] == "RuntimeError: step failed");
  CHECK(lines[1].empty());
  CHECK(lines[2] == "  File \"x.py\", line 3");
  CHECK(r.map.first_of(1) == 2);  // the fence's line is gone, the numbers stay the input's
  CHECK(r.report.fence.lines == 2);
  CHECK(r.report.quote.lines == 3);
  // Look-alikes: a Python prompt, a redirect, backticks inside a line.
  CHECK_FALSE(repair(">>> import torch\n>out.txt\nrun `nvidia-smi` and ```see```\n").copied);
}

TEST_CASE("CI viewer chrome: Buildkite line actions, GitHub Actions commands", "[repair][chrome]") {
  // Buildkite's web UI copied as text: each log line is followed by "Actions for L<n>" and "<n>".
  const auto bk = repair("first line\nActions for L1512\n1512\nsecond line\nActions for L1513\n1513\n");
  CHECK(split_lines_of(bk.text) == std::vector<std::string>{"first line", "second line"});
  CHECK(bk.map.first_of(2) == 4);
  CHECK(bk.report.ci_chrome.lines == 4);
  // A bare number that follows no "Actions for" line is data.
  CHECK_FALSE(repair("rows:\n1512\n").copied);
  // GitHub Actions raw log: seven-digit stamps, `##[group]` / `##[endgroup]` / `##[error]`.
  const auto gh = repair(
      "2024-05-01T10:00:00.1234567Z ##[group]Run python train.py\n"
      "2024-05-01T10:00:01.0000000Z epoch 1\n"
      "2024-05-01T10:00:02.0000000Z ##[endgroup]\n"
      "##[error]Process completed with exit code 137.\n");
  const auto gl = split_lines_of(gh.text);
  REQUIRE(gl.size() == 3);
  CHECK(gl[0] == "2024-05-01T10:00:00.1234567Z Run python train.py");
  CHECK(gl[2] == "Process completed with exit code 137.");
  CHECK(gh.map.first_of(3) == 4);
  // `##` in a message or a Markdown heading is not a command.
  CHECK_FALSE(repair("## Logs\nstep ##[3] done\n").copied);
}

TEST_CASE("tmux and screen status lines are dropped", "[repair][chrome]") {
  const auto r = repair("python train.py\nKilled\n[detached (from session 0)]\n[screen is terminating]\n");
  CHECK(split_lines_of(r.text) == std::vector<std::string>{"python train.py", "Killed"});
  CHECK(r.report.terminal.lines == 2);
  CHECK_FALSE(repair("[rank0]: step 10\n[exited] is what the tool printed\n").copied);
}

TEST_CASE("a line-number gutter on consecutive lines is dropped", "[repair][gutter]") {
  // `cat -n` (right-aligned number, tab), `less -N` / vim `:set nu` (number, space), web
  // viewers' `  45| ` and `L123 `.
  CHECK(split_lines_of(repair("     7\tfirst\n     8\tsecond\n     9\tthird\n").text) ==
        std::vector<std::string>{"first", "second", "third"});
  CHECK(split_lines_of(repair(" 98 alpha\n 99 beta\n100 gamma\n").text) ==
        std::vector<std::string>{"alpha", "beta", "gamma"});
  CHECK(split_lines_of(repair("  44| a\n  45| b\n  46|\n  47| d\n").text) ==
        std::vector<std::string>{"a", "b", "", "d"});
  const auto l = repair("L120 one\nL121 two\nL122 three\n");
  CHECK(split_lines_of(l.text) == std::vector<std::string>{"one", "two", "three"});
  CHECK(l.report.gutter.lines == 3);
  CHECK(l.map.empty());  // no line moved: the numbers were already the input's
}

TEST_CASE("a number column that is data is not a gutter", "[repair][gutter]") {
  // ps rows (pids), Ray's top-memory table (pid, GB, command), nvidia-smi -q values.
  CHECK_FALSE(repair("3300 python train.py\n3417 python worker.py\n9120 sleep 100\n").copied);
  CHECK_FALSE(repair("95412   14.05   ray::Actor\n95410   13.86   ray::Actor\n95414   13.85   ray::Actor\n").copied);
  // Mostly unnumbered text around a few counted lines.
  CHECK_FALSE(repair("Top users:\n1 python\n2 java\n3 node\nthat is all\nbye\n").copied);
}

TEST_CASE("ANSI colour codes written as text become escapes", "[repair][escape]") {
  // rsyslog's control-character escaping (#033), and escapes printed by a repr or a JSON dump.
  const auto r = repair("#033[2m#033[33m(raylet)#033[0m hello\nA \\033[1;31mred\\033[0m and \\x1b[0m end\n");
  const auto lines = split_lines_of(r.text);
  REQUIRE(lines.size() == 2);
  CHECK(culprit::text::strip_ansi(lines[0]) == "(raylet) hello");
  CHECK(culprit::text::strip_ansi(lines[1]) == "A red and  end");
  CHECK(r.report.ansi_text.lines == 2);
  // An issue number, a hex value and a backslash without a CSI after it stay.
  CHECK_FALSE(repair("see #0331 and #033 and \\x1b alone and 0x1b[ index\n").copied);
}

TEST_CASE("escaped newlines in a quoted value become lines", "[repair][unescape]") {
  // kubectl get pod -o yaml: a container's termination message, double-quoted YAML.
  const auto k = repair(
      "      message: \"Traceback (most recent call last):\\n  File \\\"train.py\\\", line 9, in <module>\\n"
      "RuntimeError: step failed\\n\"\n      reason: Error\n");
  const auto kl = split_lines_of(k.text);
  REQUIRE(kl.size() == 5);
  CHECK(kl[0] == "      message: \"Traceback (most recent call last):");
  CHECK(kl[1] == "  File \"train.py\", line 9, in <module>");
  CHECK(kl[2] == "RuntimeError: step failed");
  CHECK(k.map.first_of(3) == 1);
  CHECK(k.map.first_of(5) == 2);
  CHECK(k.report.unescape.lines == 1);
  // Rust's panic before 1.73: `thread 'main' panicked at '<msg>', src/main.rs:L:C`.
  const auto rust = repair("thread 'main' panicked at 'load failed:\\ncannot allocate memory', src/main.rs:4:5\n");
  CHECK(split_lines_of(rust.text).size() == 2);
  // Python's repr of an exception, as Ray and logging print it.
  const auto py = repair("error=RuntimeError('step failed\\n\\tat stage 2')\n");
  CHECK(split_lines_of(py.text) == std::vector<std::string>{"error=RuntimeError('step failed", "\tat stage 2')"});
}

TEST_CASE("backslash-n that is not an escaped newline stays", "[repair][unescape]") {
  CHECK_FALSE(repair("opened \"C:\\new\\table.csv\" for reading\n").copied);   // a Windows path
  CHECK_FALSE(repair("path 'D:\\temp\\notes' missing\n").copied);
  CHECK_FALSE(repair("regex \"\\d+\\n\\q\" is odd\n").copied);                  // \q: not a known escape
  CHECK_FALSE(repair("printf uses \\n outside quotes\n").copied);
  CHECK_FALSE(repair("{\"log\":\"step\\nfailed\\n\",\"stream\":\"stderr\"}\n").copied);  // a JSON document
  CHECK_FALSE(repair("message: \"a\\nb\"\n", /*structured=*/true).copied);
}

TEST_CASE("repair keeps the input's line numbers in the pipeline's evidence", "[repair][pipeline]") {
  // A fenced paste with a hand-wrapped vLLM error after a gutterless preamble.
  const std::string paste = "```\nINFO 04-24 18:22:00 starting\n" + std::string(kVllmStartup.substr(0, 58)) + "\n" +
                            std::string(kVllmStartup.substr(59)) + "\n```\n";
  culprit::test::RecordingSink sink;
  culprit::core::Diagnostics d;
  culprit::ingest::ingest(culprit::ingest::IngestInput{"paste.txt", "", "in", paste}, signals(), sink, d);
  bool found = false;
  for (const auto& e : sink.events) {
    if (e.rule.find("startup") == std::string::npos && e.message.find("Free memory on device") == std::string::npos)
      continue;
    found = true;
    CHECK(e.line == 3);
    CHECK(e.line_end == 4);
  }
  CHECK(found);
  bool noted = false;
  for (const auto& p : d) noted = noted || (p.code == "input-repaired" && p.where == "paste.txt:3");
  CHECK(noted);
  REQUIRE_FALSE(sink.sources.empty());
  CHECK(sink.sources.front().first_line == 2);
}

TEST_CASE("repair is the same with the prefilter off (--no-prefilter)", "[repair][prefilter]") {
  // The literal shortcut that skips a join's check never changes what is joined or split.
  culprit::text::SignalSet off = signals();
  off.set_prefilter(false);
  const std::vector<std::string> inputs = {
      std::string(kVllmStartup.substr(0, 72)) + "\n" + std::string(kVllmStartup.substr(73)) + "\n",
      terminal_wrap(kRaylet, 80) + "\n",
      "the worker started on device\ncuda:0 and loaded the model\n",
      "      message: \"step\\nRuntimeError: step failed\\n\"\n",
      "```\n> a\n> b\n```\n",
  };
  for (const auto& in : inputs) {
    std::string s1, s2;
    LineMap m1, m2;
    RepairReport r1, r2;
    const std::string a(repair_text(in, &signals(), s1, m1, r1));
    const std::string b(repair_text(in, &off, s2, m2, r2));
    CHECK(a == b);
    CHECK(m1.first == m2.first);
    CHECK(m1.last == m2.last);
  }
}

TEST_CASE("a JSON document's escapes are its parser's", "[repair][escape]") {
  // docker's json-file log line and a pretty-printed key: `\u001b[` stays an escape in a string.
  CHECK_FALSE(repair("{\"log\":\"\\u001b[31mERROR\\u001b[0m step\",\"stream\":\"stderr\"}\n").copied);
  CHECK_FALSE(repair("  \"message\": \"\\u001b[31mfailed\\u001b[0m\",\n").copied);
  CHECK_FALSE(repair("text \\033[31mred\\033[0m\n", /*structured=*/true).copied);
}

TEST_CASE("a record after a record is not a wrap, even when the join captures more", "[repair][wrap]") {
  // NVRM lines (formats.md: the driver's `NVRM: Xid (PCI:…): <code>, …` and `NVRM: The NVIDIA
  // GPU <bdf> … fallen off the bus`) are two records.
  CHECK_FALSE(repair("NVRM: Xid (PCI:0000:3b:00.0): 79\n"
                     "NVRM: The NVIDIA GPU 0000:3c:00.0 fallen off the bus and is not responding to commands.\n")
                  .copied);
}

TEST_CASE("an unchanged text comes back with its split: a repaired one with none", "[repair]") {
  std::string storage;
  LineMap map;
  RepairReport report;
  std::vector<std::string_view> lines;
  const std::string plain = "INFO one\r\nINFO two\rprogress\n\nlast";
  const auto out = repair_text(plain, &signals(), storage, map, report, {}, &lines);
  REQUIRE(out.data() == plain.data());
  CHECK(lines == culprit::text::split_lines(plain));
  // A gutter is repaired: the text is new, and the caller splits it (no lines are given).
  lines.clear();
  const std::string gutter = "1 | first line of a log\n2 | second line of a log\n3 | third line of a log\n";
  const auto fixed = repair_text(gutter, &signals(), storage, map, report, {}, &lines);
  REQUIRE(fixed.data() != gutter.data());
  CHECK(lines.empty());
}

TEST_CASE("an NCCL line starts a record: a wrapped one still joins", "[repair][wrap]") {
  // NCCL_DEBUG lines (`host:pid:tid [device] NCCL …`), all as wide: records, never tails of the
  // line before (a big NCCL log tried every line as one, at ~20 MB/s).
  std::string nccl;
  for (int i = 0; i < 6; ++i)
    nccl += "node-3:4411:4490 [1] NCCL INFO Channel 0" + std::to_string(i) + "/0 : 1[1] -> 2[2] via P2P/IPC\n";
  CHECK_FALSE(repair(nccl).copied);
  // One wrapped by a 72-column terminal inside its message: the tail does not start with the
  // header, and joins (formats.md, NCCL: `Cuda failure 'out of memory'`).
  const std::string warn = "node-3:4411:4490 [1] include/alloc.h:103 NCCL WARN Cuda failure 'out of memory'";
  const std::string text = nccl + terminal_wrap(warn, 72) + "\n" + nccl;
  const auto r = repair(text);
  const auto lines = split_lines_of(r.text);
  REQUIRE(lines.size() > 6);
  CHECK(lines[6] == warn);
}

TEST_CASE("each stage's first look alone lets the repair run: nothing is skipped as unchanged", "[repair]") {
  // A text that needs no repair is handed back before any line list is built, by each stage's
  // own first look; here each text passes exactly one of those looks (no signals: no wrap or
  // unescape stage), and is repaired.
  const auto gutter = repair_without_signals("     7\tfirst\n     8\tsecond\n     9\tthird\n");
  CHECK(gutter.report.gutter.lines == 3);
  CHECK(split_lines_of(gutter.text) == std::vector<std::string>{"first", "second", "third"});
  const auto escape = repair_without_signals("x \\033[1;31mred\\033[0m end\n");
  CHECK(escape.report.ansi_text.lines == 1);
  const auto fence = repair_without_signals("```\nplain line\n```\n");
  CHECK(split_lines_of(fence.text) == std::vector<std::string>{"plain line"});
  // With signals, a wrapped known message alone (no chrome, gutter or escape).
  const auto wrapped = repair("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total\n"
                              "capacity of 79.10 GiB of which 1.02 GiB is free.\n");
  CHECK(wrapped.copied);
  CHECK(wrapped.report.join.lines >= 1);
  // And a text none of them passes comes back as it is.
  CHECK_FALSE(repair("[    7.527511] IPv6: ADDRCONF(NETDEV_CHANGE): veth2b61d8: link becomes ready\n"
                     "[    7.639800] docker0: port 4(veth99b1c) entered forwarding state\n").copied);
}

TEST_CASE("vLLM headers, worker prefixes and Python logging's default header start records", "[repair][wrap]") {
  // vLLM's logger (`INFO 04-09 05:10:11 [file.py:N] …`, vllm/logger.py's `%(levelname)s
  // %(asctime)s [%(filename)s:%(lineno)d]` with `%m-%d %H:%M:%S`), its worker processes' prefix
  // `(VllmWorker rank=1 pid=3301) ` and Python logging's default `%(levelname)s:%(name)s:`:
  // each line is a record, never the tail of the line before (a big worker log tried every line
  // as one). A message cut before such a line stays as it is.
  const std::string cut = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total\n";
  CHECK_FALSE(repair(cut + "INFO 04-09 05:10:11 [metrics.py:455] capacity of 79.10 GiB of which 1.02 GiB is free.\n").copied);
  CHECK_FALSE(repair(cut + "(VllmWorker rank=1 pid=3301) capacity of 79.10 GiB of which 1.02 GiB is free.\n").copied);
  CHECK_FALSE(repair(cut + "INFO:vllm.worker:capacity of 79.10 GiB of which 1.02 GiB is free.\n").copied);
  // Look-alikes that are message text, not headers, still continue a cut message.
  const auto tail = repair(cut + "capacity of 79.10 GiB of which 1.02 GiB is free. INFO 04-09 follows\n");
  CHECK(tail.copied);
  CHECK(tail.report.join.lines >= 1);
  // A message wrapped under a vLLM header still joins: its tail starts no record.
  const std::string head = "INFO 04-09 05:10:11 [worker.py:97] " + cut;
  const auto r = repair(head + "capacity of 79.10 GiB of which 1.02 GiB is free.\n");
  REQUIRE(r.copied);
  CHECK(split_lines_of(r.text).front() ==
        head.substr(0, head.size() - 1) + " capacity of 79.10 GiB of which 1.02 GiB is free.");
}

TEST_CASE("a tqdm bar redrawn after a carriage return is a record, not a tail", "[repair][wrap]") {
  // tqdm's `{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} [{elapsed}<{remaining},
  // {rate_fmt}{postfix}]`, redrawn after `\r` as a Slurm .out keeps it: each redraw is a line.
  std::string bars;
  for (int i = 0; i < 4; ++i)
    bars += "\rEpoch 1:  4" + std::to_string(i) + "%|####      | 4" + std::to_string(i) + "0/1000 [00:12<00:15, 36.2it/s, loss=2.31]";
  const std::string cut = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total\n";
  CHECK_FALSE(repair(cut + bars + "\n").copied);
  // A percentage in message text is no bar: the tail still joins.
  const auto tail = repair(cut + "capacity of 79.10 GiB of which 1.02 GiB is free (45% of it|cached).\n");
  CHECK(tail.report.join.lines >= 1);
}
