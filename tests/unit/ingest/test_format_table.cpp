// The format table (src/ingest/format_table.hpp): its rows are well formed, and, lnav-style,
// every format's detector recognises its own samples (fixtures/formats/<sample dir>/), no
// detector that would win over it (a higher score, or an equal one in an earlier row) claims any
// line where it fires, and the segmenter puts those lines in a segment of that format.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <set>
#include <string>
#include <vector>

#include "culprit/ingest/parser.hpp"
#include "culprit/ingest/sniff.hpp"
#include "culprit/text/lines.hpp"
#include "culprit/text/literal_set.hpp"
#include "ingest/format_detect.hpp"
#include "ingest/format_table.hpp"
#include "unit/ingest/fixture_files.hpp"
#include "unit/ingest/host_test_signals.hpp"

using culprit::ingest::Detection;
using culprit::ingest::FormatSpec;
using culprit::ingest::Scan;
using culprit::ingest::Scope;
using culprit::ingest::format_table;
using culprit::ingest::formats_by_rank;

namespace {

/// Whether `a` wins over `b` where both claim a line: scope first (blocks are found before
/// line classes), then score, then table order.
bool outranks(const FormatSpec& a, const FormatSpec& b) {
  if (a.scope != b.scope) return a.scope < b.scope;
  if (a.score != b.score) return a.score > b.score;
  return &a < &b;  // rows of one table: the earlier row
}

/// What `f`'s detector claims at line i of the whole text (a sample is one section).
Detection detect_at(const FormatSpec& f, Scan& scan, std::size_t i) {
  if (f.scope == Scope::fallback) return {};
  return f.detect(scan, i);
}

std::vector<std::filesystem::path> samples_of(const FormatSpec& f) {
  std::vector<std::filesystem::path> out;
  for (std::string_view dir : f.samples)
    if (!dir.empty())
      for (auto& p : culprit::test::format_fixtures(std::string(dir))) out.push_back(p);
  return out;
}

}  // namespace

TEST_CASE("format table: one row per id, each complete for its scope", "[format_table]") {
  std::set<std::string_view> ids;
  int fallbacks = 0;
  for (const FormatSpec& f : format_table()) {
    INFO(f.id);
    CHECK(ids.insert(f.id).second);
    CHECK(f.parse != nullptr);
    CHECK((f.announced_by == nullptr) == (f.continues == nullptr));
    CHECK(!f.samples[0].empty());
    switch (f.scope) {
      case Scope::block: CHECK((f.detect && !f.claims_line)); break;
      case Scope::line: CHECK((f.detect && f.claims_line)); break;
      case Scope::fallback:
        ++fallbacks;
        CHECK((!f.detect && !f.claims_line));
        break;
    }
    CHECK(culprit::ingest::find_format(f.id) == &f);
  }
  CHECK(fallbacks == 1);
  CHECK(culprit::ingest::fallback_format().id == culprit::ingest::format::kAppLog);
  CHECK(culprit::ingest::find_format("binary") == nullptr);
  CHECK(culprit::ingest::find_format("no_such_format") == nullptr);
  // Blocks outscore line classes, which outscore the fallback.
  for (const FormatSpec& a : format_table())
    for (const FormatSpec& b : format_table())
      if (a.scope < b.scope) CHECK(a.score > b.score);
  // The rank lists hold every row of their scope, best first.
  std::size_t ranked = 0;
  for (Scope s : {Scope::block, Scope::line, Scope::fallback}) {
    const auto rank = formats_by_rank(s);
    ranked += rank.size();
    for (std::size_t k = 1; k < rank.size(); ++k) CHECK(outranks(*rank[k - 1], *rank[k]));
  }
  CHECK(ranked == format_table().size());
}

TEST_CASE("format table: each detector wins on its own samples (lnav's cross-sample check)", "[format_table][fixtures]") {
  for (const FormatSpec& f : format_table()) {
    const auto files = samples_of(f);
    INFO("format " << f.id);
    REQUIRE(!files.empty());
    for (const auto& path : files) {
      INFO("sample " << path.parent_path().filename().string() << "/" << path.filename().string());
      const std::string text = culprit::test::read_fixture(path);
      const auto lines = culprit::text::split_lines(text);
      Scan scan{lines, 0, lines.size()};
      // The whole sniffer, iterating the table: the segment holding each line `f` claims.
      const auto segments = culprit::ingest::segment_text(text);
      auto segment_format = [&](std::size_t i) -> std::string {
        const auto line = static_cast<std::int64_t>(i) + 1;
        for (const auto& seg : segments) {
          const auto n = static_cast<std::int64_t>(std::count(seg.text.begin(), seg.text.end(), '\n')) + 1;
          if (line >= seg.first_line && line < seg.first_line + n) return seg.format;
        }
        return "(none)";
      };
      std::size_t fired = 0;
      for (std::size_t i = 0; i < lines.size(); ++i) {
        // The lines `f` claims: its anchors (blocks), its class (lines), what nothing else
        // claims (the fallback).
        bool mine = false;
        if (f.scope == Scope::block) {
          const Detection d = f.detect(scan, i);
          mine = d.found() && !d.opaque;
        } else if (f.scope == Scope::line) {
          mine = f.claims_line(lines[i]);
        } else {
          mine = !culprit::text::trim(lines[i]).empty();
          for (const FormatSpec& g : format_table()) {
            if (g.scope == Scope::line) mine = mine && !g.claims_line(lines[i]);
            if (g.scope == Scope::block) mine = mine && !detect_at(g, scan, i).found();
          }
        }
        if (!mine) continue;
        ++fired;
        INFO("line " << i + 1 << ": " << lines[i]);
        for (const FormatSpec& g : format_table()) {
          if (&g == &f || !outranks(g, f) || g.scope == Scope::fallback) continue;
          INFO("also claimed by " << g.id << " (score " << g.score << " over " << f.score << ")");
          CHECK_FALSE(detect_at(g, scan, i).found());
        }
        // Anchors and kernel lines land in a segment of their format (a line nothing claims
        // may be another format's continuation: a `watch` header, an indented record line).
        if (f.scope != Scope::fallback) CHECK(segment_format(i) == f.id);
      }
      CHECK(fired > 0);
      // A sample of the fallback is mostly text nothing else claims.
      if (f.scope == Scope::fallback) CHECK(culprit::ingest::sniff_format(text) == f.id);
    }
  }
}

TEST_CASE("format table: parse_segment reads every id, and an unknown one as an app log", "[format_table]") {
  // Each row's parser runs on a line of kernel text without crashing; an unknown id falls back
  // to the app-log parser, which reads the kill line below as an event.
  struct Sink final : culprit::core::EventSink {
    int events = 0;
    std::int64_t add_source(const culprit::core::SourceInfo&) override { return 1; }
    std::int64_t add_event(const culprit::core::Event&) override { return ++events; }
    void add_gpu_snapshot(const culprit::core::GpuSnapshot&) override {}
    void add_host_memory(const culprit::core::HostMemory&) override {}
    void add_oom_report(const culprit::core::OomReport&) override {}
    void add_process(const culprit::core::ProcessSighting&) override {}
    void add_container(const culprit::core::ContainerInfo&) override {}
  };
  const auto signals = culprit::test::host_test_signals();
  auto run = [&](std::string_view id, std::string_view text) {
    Sink sink;
    culprit::core::Diagnostics diags;
    culprit::ingest::ParseContext ctx;
    ctx.sink = &sink;
    ctx.signals = &signals;
    ctx.diagnostics = &diags;
    ctx.source_name = "t.log";
    ctx.format = std::string(id);
    culprit::ingest::parse_segment(text, ctx);
    return sink.events;
  };
  const std::string_view line = "[ 12.345678] Out of memory: Killed process 4242 (python3) total-vm:1kB, anon-rss:1kB\n";
  for (const FormatSpec& f : format_table()) (void)run(f.id, line);
  CHECK(run(culprit::ingest::format::kAppLog, line) > 0);
  CHECK(run("no_such_format", line) == run(culprit::ingest::format::kAppLog, line));
}

namespace {

/// Whether `line` holds `literal`, ASCII case aside (as the sniffer's block pass compares).
bool holds_caseless(std::string_view line, std::string_view literal) {
  auto lower = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c; };
  return std::search(line.begin(), line.end(), literal.begin(), literal.end(),
                     [&](char a, char b) { return lower(a) == lower(b); }) != line.end();
}

/// Every text of the sample folders and the incident fixtures' inputs.
std::vector<std::filesystem::path> every_fixture_text() {
  std::vector<std::filesystem::path> out;
  for (const FormatSpec& f : format_table())
    for (auto& p : samples_of(f)) out.push_back(p);
  const auto incidents = std::filesystem::path(CULPRIT_SOURCE_DIR) / "fixtures/incidents";
  for (const auto& entry : std::filesystem::recursive_directory_iterator(incidents))
    if (entry.is_regular_file() && entry.path().parent_path().filename() == "inputs") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

}  // namespace

TEST_CASE("format table: every anchor line holds one of its format's anchors or passes its shape check",
          "[format_table][fixtures]") {
  // The sniffer asks a detector only at lines holding an anchor literal or passing `unanchored`
  // (FormatSpec::anchors); a line it would claim without either would be lost on big inputs.
  std::size_t by_literal_only = 0;
  for (const auto& path : every_fixture_text()) {
    INFO("text " << path.string());
    const std::string text = culprit::test::read_fixture(path);
    const auto lines = culprit::text::split_lines(text);
    Scan scan{lines, 0, lines.size()};
    for (std::size_t i = 0; i < lines.size(); ++i) {
      for (const FormatSpec& f : format_table()) {
        if (f.scope == Scope::fallback || (f.anchors.empty() && f.unanchored == nullptr)) continue;
        const bool claims = f.scope == Scope::block ? f.detect(scan, i).found() : f.claims_line(lines[i]);
        if (!claims) continue;
        bool literal = false;
        for (std::string_view a : f.anchors) literal = literal || holds_caseless(lines[i], a);
        // ...and a shape check that needs a pattern passes only on lines holding it (the
        // sniffer asks it nowhere else).
        const bool shape = f.unanchored != nullptr && f.unanchored(lines[i]) &&
                           (f.unanchored_pattern.empty() || culprit::text::contains_pattern(lines[i], f.unanchored_pattern, '?'));
        INFO("format " << f.id << ", line " << i + 1 << ": " << lines[i]);
        CHECK((literal || shape));
        if (literal && !shape) ++by_literal_only;
      }
    }
  }
  // The literals do work: lines no shape check passes are found by them alone.
  CHECK(by_literal_only > 0);
}

TEST_CASE("format table: a shape check passes only at lines starting with a byte its row names",
          "[format_table][fixtures]") {
  // The sniffer asks a row's `unanchored` only where the line's first byte after whitespace is
  // one `unanchored_first` names (shaped_by_rank): every fixture line, and every byte (after
  // blanks or none) before the tails of each shape, must keep to that.
  std::vector<std::string> lines;
  for (const auto& path : every_fixture_text()) {
    const std::string text = culprit::test::read_fixture(path);
    for (std::string_view line : culprit::text::split_lines(text)) lines.emplace_back(line);
  }
  const std::vector<std::string> tails = {"", "{\"a\": 1}", "[ {", "?xml version=\"1.0\" ?>", "PID TTY TIME CMD",
                                          "oot 1234 0.0 0.1 1000 200 ? Ss 10:00 0:00 python3 train.py",
                                          "\x1e{\"a\": 1}"};
  for (int c = 0; c < 256; ++c)
    for (const std::string& tail : tails)
      for (const std::string_view lead : {"", " ", "\t ", "\r"}) lines.push_back(std::string(lead) + static_cast<char>(c) + tail);
  // Lines a shape would pass but for how they open: a kernel boot stamp (ShapedRows::at asks the
  // block rows nothing there) or a colour code, before CSV cells with a bus id and a JSON value.
  for (const std::string_view open : {"[ 1478.687080] ", "[    7.500000] ", "  [12.5] ", "\x1b[1;36m", "\x1b[0m "})
    for (const std::string_view rest : {"0, 00000000:3B:00.0, 81559, 1024", "{\"a\": 1}", "PID TTY TIME CMD"})
      lines.push_back(std::string(open) + std::string(rest));
  std::size_t asked = 0, passed = 0;
  for (const std::string& line : lines) {
    const std::string_view t = culprit::text::trim_left(line);
    for (const FormatSpec& f : format_table()) {
      if (f.unanchored == nullptr || f.unanchored_first == nullptr) continue;
      ++asked;
      if (!f.unanchored(line)) continue;
      ++passed;
      INFO("format " << f.id << ": '" << line << "'");
      REQUIRE(!t.empty());
      CHECK(f.unanchored_first(t[0]));
      // ...and the sniffer's list for that line holds the row.
      const auto rows = culprit::ingest::shaped_by_rank(f.scope).at(line);
      CHECK(std::find(rows.begin(), rows.end(), &f) != rows.end());
    }
  }
  CHECK(asked > 10000);
  CHECK(passed > 100);  // the shapes pass somewhere: the check has lines to hold
  // Rows without a first-byte rule are asked at every line, an empty one too.
  for (const FormatSpec& f : format_table()) {
    if (f.scope == Scope::fallback || (f.unanchored == nullptr && !f.anchors.empty())) continue;
    if (f.unanchored_first != nullptr) continue;
    INFO("format " << f.id);
    for (const std::string_view line : {"", "   ", "\x1b[1;36m(VllmWorker pid=1)", "[    7.5] x"}) {
      const auto rows = culprit::ingest::shaped_by_rank(f.scope).at(line);
      CHECK(std::find(rows.begin(), rows.end(), &f) != rows.end());
    }
  }
  // Most log lines are asked no block shape at all: a coloured worker line, a dmesg line (its
  // `[` is also JSON's first byte), indented or not.
  const auto& block = culprit::ingest::shaped_by_rank(Scope::block);
  CHECK(block.at("\x1b[1;36m(VllmWorker rank=0 pid=3300)\x1b[0;0m INFO 04-09 00:08:09 [metrics.py:402] x").empty());
  CHECK(block.at("[ 1478.687080] nvidia 0000:3b:00.0: enabling device, 00000000:3B:00.0").empty());
  CHECK(block.at("  [    7.500000] x").empty());
  // ...but a `[` that opens no stamp still asks the JSON rows, and a CSV row the pattern-gated one.
  CHECK_FALSE(block.at("[").empty());
  CHECK_FALSE(block.at("[ 1478.687080 x").empty());
  CHECK_FALSE(block.at("0, 00000000:3B:00.0, 81559").empty());
  // The line scope asks its kernel row everywhere (a stamp is what it looks for).
  CHECK_FALSE(culprit::ingest::shaped_by_rank(Scope::line).at("[ 1478.687080] x").empty());
}

TEST_CASE("format table: anchor shape checks turn routine log lines away", "[format_table]") {
  using namespace culprit::ingest::detect;
  // An application log line (vLLM's metrics format) and a syslog line of another daemon's:
  // neither a task row, a JSON value, a PCI cell nor a ps row.
  const std::string_view app = "INFO 04-09 00:00:01 [metrics.py:400] Avg prompt throughput: 117.4 tokens/s, Running: 9 reqs";
  CHECK_FALSE(kernel_shape(app));
  CHECK_FALSE(json_shape(app));
  CHECK_FALSE(smi_csv_shape(app));
  CHECK_FALSE(ps_shape(app));
  CHECK_FALSE(smi_xml_shape(app));
  // Look-alikes that pass: a prefixed task row (oom_kill.c's dump_task format), a PCI cell.
  CHECK(kernel_shape("Apr 01 14:13:32 host: [   1234]     0  1234    12345"));
  CHECK(kernel_shape("[   12.345678] Out of memory: Killed process 4242 (python3)"));
  CHECK(kernel_shape("[ 1478.687080] [  1234]     0  1234   175081    31404"));  // behind a stamp
  CHECK(kernel_shape("[\t42]\t0 42 7"));
  // A `]` after a digit, then a number, is no task row unless a `[` and blanks open the pid:
  // TensorFlow's and glog's `file.cc:674] 2 …`, an SGLang rank tag.
  CHECK_FALSE(kernel_shape("2018-06-02 13:26:47.411476: I tensorflow/core/common_runtime/bfc_allocator.cc:674] 2 Chunks of size 277348352 totalling 529.00MiB"));
  CHECK_FALSE(kernel_shape("I0409 00:47:22.144169   3306 service.cc:168] 3 devices"));
  CHECK_FALSE(kernel_shape("[2026-04-09 00:47:22 TP7] 12 reqs"));
  CHECK_FALSE(kernel_shape("[x 12] 3"));
  CHECK(smi_csv_shape("0, NVIDIA A100-SXM4-80GB, 00000000:07:00.0, 81920"));
  CHECK(smi_csv_shape("0, NVIDIA A100-SXM4-80GB, 00000000:07:00.0"));     // the last cell
  CHECK(smi_csv_shape("0, NVIDIA A100-SXM4-80GB, 00000000:07:00.0 , 1"));  // a blank before the `, `
  // A clock with its fraction holds the bus id's `:??:??.` but no 16-byte cell around it.
  CHECK_FALSE(smi_csv_shape("2026-04-09T00:47:22.011932000Z INFO 04-09 00:47:22 [engine.py:291] Running: 22 reqs, Swapped: 0 reqs"));
  CHECK_FALSE(smi_csv_shape("I0409 00:47:22.144169   3306 service.cc:168] step 0, loss 2.5331"));
  CHECK(json_shape("  [{\"a\": 1}"));
  CHECK(ps_shape("  PID TTY          TIME CMD"));
  // A JSON start by its left end alone: a dmesg stamp's `[` is none; a bare `[` (a pretty array
  // opening, trailing blanks or not), a json-seq record and an indented object are.
  CHECK_FALSE(json_shape("[    7.527511] IPv6: ADDRCONF(NETDEV_CHANGE): veth2b61d8: link becomes ready"));
  CHECK_FALSE(json_shape("   \t"));
  CHECK(json_shape("["));
  CHECK(json_shape("[  \r"));
  CHECK(json_shape("[ {\"MESSAGE\": \"x\"}"));
  CHECK(json_shape("\x1e{\"a\": 1}"));
  CHECK(json_shape("\t{"));
  // A ps listing starts with a column name or a user name, a log line mostly with neither.
  CHECK(ps_shape("root      3300  98.2 12.1 81234567 7654321 ?   Sl   Apr08 912:01 python3 -m vllm"));
  CHECK_FALSE(ps_shape("(VllmWorker rank=0 pid=3300) PID 3300 ..."));
}

TEST_CASE("format table: the kernel class claims no line its shape check turns away by its first byte",
          "[format_table]") {
  // kernel_shape turns a line away at once when its first byte opens no kernel form (a colour
  // code, a worker's `(`, an indent). The sniffer asks kernel_line only where the shape passes or
  // an anchor literal is held, so kernel_line must claim no such line either: task rows (which
  // hold no anchor) after every first byte, bare, behind a stamp, a priority or a colour code.
  const FormatSpec* kernel = culprit::ingest::find_format(culprit::ingest::format::kKernelLog);
  REQUIRE(kernel != nullptr);
  const std::string row = "[   1234]     0  1234    12345     6789    90112        0             0 python3";
  std::size_t claimed = 0, turned_away = 0;
  const std::vector<std::string> rests = {row,        " " + row,  "[ 12.5] " + row, "<4>" + row,
                                         "\x1b[0m " + row, "7>" + row, "host: " + row,
                                         "[    7.500000] usb 1-1: new device"};
  for (int c = -1; c < 256; ++c)  // -1: no byte before `rest`
    for (const std::string& rest : rests)
      for (const std::string_view lead : {"", " ", "\t"}) {
        const std::string line = std::string(lead) + (c < 0 ? std::string() : std::string(1, static_cast<char>(c))) + rest;
        const bool claims = kernel->claims_line(line);
        claimed += claims;
        if (!culprit::ingest::detect::kernel_shape(line)) {
          ++turned_away;
          INFO("line: " << line);
          CHECK_FALSE(claims);
        }
      }
  // Both answers occur: the check has lines to hold.
  CHECK(claimed > 4);
  CHECK(turned_away > 1000);
  CHECK_FALSE(culprit::ingest::detect::kernel_shape("\x1b[1;36m(VllmWorker rank=1 pid=3301)\x1b[0;0m INFO 04-09 [a.py:402] 7"));
  CHECK_FALSE(culprit::ingest::detect::kernel_shape("(VllmWorker rank=1 pid=3301) [  1234]     0  1234"));
  CHECK(culprit::ingest::detect::kernel_shape("[  1234]     0  1234    12345"));
}

TEST_CASE("format table: a section's pattern lines are the lines holding the pattern, found in one pass",
          "[format_table]") {
  // Scan::holds_pattern: a match inside a line marks it; one across a line end marks neither
  // line; a section sees its own lines only; a second pattern is found on its own.
  const std::string text =
      "INFO 00:00:01 routine\n"             // 0: `:00:01 ` has no `.` where the pattern needs it
      "0, 00000000:3B:00.0, 81559 MiB\n"    // 1: a bus id
      "tail of a wrapped cell 0000:\n"      // 2: `:` ends the line...
      "3B:00.0 starts this one\n"           // 3: ...so `:??:??.` spans the line end: neither
      "x 0000:65:00.1 y 0000:66:00.2 z\n"   // 4: two in one line
      "last line 12:34:56.7";               // 5: a stamp's fraction has the shape too
  const auto lines = culprit::text::split_lines(text);
  REQUIRE(lines.size() == 6);
  Scan whole{lines, 0, lines.size()};
  std::vector<bool> held;
  for (std::size_t i = 0; i < lines.size(); ++i) held.push_back(whole.holds_pattern(":??:??.", i));
  CHECK(held == std::vector<bool>{false, true, false, false, true, true});
  for (std::size_t i = 0; i < lines.size(); ++i)  // each held line holds it, as a search of the line finds it
    CHECK(held[i] == culprit::text::contains_pattern(lines[i], ":??:??.", '?'));
  CHECK(whole.holds_pattern("MiB", 1));
  CHECK_FALSE(whole.holds_pattern("MiB", 4));
  CHECK(whole.pattern_lines.size() == 2);
  Scan part{lines, 2, 5};  // lines 2-4
  CHECK_FALSE(part.holds_pattern(":??:??.", 1));  // outside the section
  CHECK_FALSE(part.holds_pattern(":??:??.", 3));
  CHECK(part.holds_pattern(":??:??.", 4));
  CHECK_FALSE(part.holds_pattern(":??:??.", 5));
}

TEST_CASE("format table: a pattern with a place marks only the lines where a match fits it", "[format_table]") {
  // nvidia-smi CSV's bus id cell (detect::bus_id_cell_at): a docker -t or glog clock holds the
  // pattern in every line, never the 16-byte cell; the lines marked are those where
  // may_hold_bus_id_cell's per-line search finds a fitting match.
  const std::string text =
      "2026-04-09T00:47:22.011932000Z INFO 04-09 00:47:22 [engine.py:291] Avg prompt throughput: 2.0 tokens/s, x\n"
      "0, 00000000:3B:00.0, 81559 MiB\n"
      "I0409 00:47:22.123456  1234 gpu_device.cc:1928] Created device, memory: 79.1 GiB\n"
      "NVIDIA H100, 00000000:65:00.0\n"
      "ends in a cut cell 00000000:3B:00.\n"
      "00000000:3B:00.0,rest";
  const auto lines = culprit::text::split_lines(text);
  REQUIRE(lines.size() == 6);
  Scan scan{lines, 0, lines.size()};
  std::vector<bool> held, fitting;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    held.push_back(scan.holds_pattern(culprit::ingest::detect::kSmiCsvShapePattern, i));
    fitting.push_back(scan.holds_pattern(culprit::ingest::detect::kSmiCsvShapePattern, i, culprit::ingest::detect::bus_id_cell_at));
  }
  CHECK(held == std::vector<bool>{true, true, true, true, true, true});
  CHECK(fitting == std::vector<bool>{false, true, false, true, false, true});
  CHECK(scan.pattern_lines.size() == 2);  // the same pattern with and without a place: two sets
}

TEST_CASE("format table: a short anchor is marked by its own pass, as the block pass would mark it",
          "[format_table]") {
  using namespace culprit::ingest;
  // The block pass holds no anchor shorter than kMinPassAnchorBytes; the kernel's old stack
  // frame `[<` is one, found by mark_short_anchors in every line that holds it, wherever in it.
  const auto& pass = anchor_literals();
  CHECK(std::none_of(pass.begin(), pass.end(), [](const std::string& a) { return a.size() < kMinPassAnchorBytes; }));
  const auto& short_ones = short_anchor_literals();
  REQUIRE(std::find(short_ones.begin(), short_ones.end(), "[<") != short_ones.end());
  const std::string text =
      "[<ffffffff8108a1b2>] dump_stack+0x19/0x1b\n"      // 0: at the start
      "  ? [<ffffffff81130a31>] ? oom_kill_process\r\n"  // 1: behind an unreliable frame's `? `
      "INFO step 1 [rank0] < 3\n"                        // 2: a `[` and a `<` apart: none
      "tail [\n"                                         // 3: a `[` that ends its line...
      "<b> x\r"                                          // 4: ...then a `<`: no anchor across an end
      "[<0>] uvm_spin_loop+0xb4/0x100 [nvidia_uvm]";     // 5: /proc/PID/stack, no terminator
  const auto lines = culprit::text::split_lines(text);
  REQUIRE(lines.size() == 6);
  std::vector<unsigned char> bits(lines.size(), 0);
  mark_short_anchors(text, lines, bits);
  // `[<` is the kernel row's own anchor: its bit goes with the generic one.
  constexpr unsigned char kKernel = kAnchoredBit | kKernelAnchorBit;
  CHECK(bits == std::vector<unsigned char>{kKernel, kKernel, 0, 0, 0, kKernel});
  // The marks add to what a line holds (the block pass's bits are kept).
  std::vector<unsigned char> kept(lines.size(), 8);
  mark_short_anchors(text, lines, kept);
  CHECK(kept[0] == (8 | kKernel));
  CHECK(kept[2] == 8);
}

TEST_CASE("format table: the kernel row's anchors are marked apart from other rows'", "[format_table]") {
  using namespace culprit::ingest;
  // Every kernel anchor carries the kernel row's bit; an anchor only another row has does not,
  // so that a line holding it alone is asked the kernel row's shape check, as a line holding no
  // anchor is.
  for (std::string_view a : detect::kKernelAnchors) {
    INFO(a);
    CHECK(anchor_bits(culprit::text::hand_written_literal(a)) == (kAnchoredBit | kKernelAnchorBit));
  }
  std::size_t others = 0;
  for (const FormatSpec& f : format_table()) {
    if (f.anchor_bit == kKernelAnchorBit) continue;
    CHECK(f.anchor_bit == kAnchoredBit);
    for (std::string_view a : f.anchors) {
      const std::string literal = culprit::text::hand_written_literal(a);
      const bool kernel = std::any_of(std::begin(detect::kKernelAnchors), std::end(detect::kKernelAnchors),
                                      [&](std::string_view k) { return culprit::text::hand_written_literal(k) == literal; });
      INFO(f.id << ": " << a);
      CHECK(anchor_bits(literal) == (kernel ? (kAnchoredBit | kKernelAnchorBit) : kAnchoredBit));
      others += !kernel;
    }
  }
  CHECK(others > 20);  // the other rows have anchors of their own (35 when written)
  // The kernel row goes by its own bit: a line the pass marked for another row's anchor only is
  // read by the kernel shape, as a line holding no anchor is. An unstamped kill line (kernel
  // content by its anchors, no stamp or task row for the shape) shows which was asked.
  const std::vector<std::string_view> lines = {"Out of memory: Killed process 4242 (python3) total-vm:812345kB",
                                               "[  1234]     0  1234   175081    31404"};
  const auto found = [&](std::size_t k, unsigned char bits) {
    const std::vector<unsigned char> anchored(lines.size(), bits);
    Scan scan{lines, k, k + 1};
    scan.anchored = &anchored;
    return detect::kernel_run(scan, k).found();
  };
  REQUIRE(detect::kernel_line(lines[0]));
  REQUIRE_FALSE(detect::kernel_shape(lines[0]));
  CHECK(found(0, kAnchoredBit | kKernelAnchorBit));
  CHECK_FALSE(found(0, kAnchoredBit));
  CHECK_FALSE(found(0, 0));
  // A task row is kernel text by its shape, whichever bits its line has.
  for (const int bits : {0, int{kAnchoredBit}, kAnchoredBit | kKernelAnchorBit})
    CHECK(found(1, static_cast<unsigned char>(bits)));
}

TEST_CASE("format table: the pass's boot-stamp bits answer for every line that opens with a bracket",
          "[format_table][fixtures]") {
  using culprit::ingest::BootStamp;
  const auto asked = [](std::string_view line) { return culprit::ingest::kernel::starts_with_boot_stamp(line); };
  // Every line of every text fixture, and lines near a stamp's shape.
  std::vector<std::string> texts = {
      "[ 1478.687080] Out of memory: Killed process 4242 (python)\n"
      "[2026-04-09 00:47:22 TP7] Prefill batch.\n"
      "  [   93.118204] indented: asked of the line itself\n"
      "[93.118204] no padding\n[ 12.5] short\n[E0412 09:14:05] c10\n[\n"
      "INFO 04-09 00:47:22 [scheduler.py:84] Finished request\n"};
  for (const auto& path : culprit::test::text_fixtures()) texts.push_back(culprit::test::read_fixture(path));
  std::size_t yes = 0, no = 0, unknown = 0;
  for (const std::string& text : texts) {
    const auto lines = culprit::text::split_lines(text);
    std::vector<unsigned char> bits(lines.size(), 0);
    culprit::ingest::mark_boot_stamps(lines, bits);
    Scan scan{lines, 0, lines.size()};
    scan.anchored = &bits;
    for (std::size_t i = 0; i < lines.size(); ++i) {
      INFO("line " << lines[i]);
      switch (scan.boot_stamp(i)) {
        case BootStamp::yes: ++yes; CHECK(asked(lines[i])); break;
        case BootStamp::no: ++no; CHECK_FALSE(asked(lines[i])); break;
        case BootStamp::unknown: ++unknown; CHECK((lines[i].empty() || lines[i][0] != '[')); break;
      }
    }
    Scan unpassed{lines, 0, lines.size()};  // no pass: nothing is known
    for (std::size_t i = 0; i < lines.size(); ++i) CHECK(unpassed.boot_stamp(i) == BootStamp::unknown);
  }
  CHECK(yes > 100);
  CHECK(no > 100);
  CHECK(unknown > 100);
}
