// Data-driven check of the kernel-log parser: every fixtures/formats/kernel/<variant>.txt is
// parsed and compared with its <variant>.expect.json (reports, kill events, event counts, notes).
// The same text with CRLF endings and with the signal prefilter off must give the same result,
// and every prefix of every fixture must parse without crashing.
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "culprit/ingest/parser.hpp"
#include "unit/ingest/recording_sink.hpp"
#include "unit/ingest/test_signals.hpp"
#include "unit/json_values.hpp"

namespace kernel_fixtures_tests {

namespace fs = std::filesystem;
using culprit::core::Event;
using culprit::core::OomReport;
using culprit::test::RecordingSink;

namespace {

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Parsed {
  RecordingSink sink;
  culprit::core::Diagnostics diags;
};

void parse(const std::string& text, const std::string& host, int year_hint, const culprit::text::SignalSet& signals,
           Parsed& out) {
  culprit::ingest::ParseContext ctx;
  ctx.sink = &out.sink;
  ctx.signals = &signals;
  ctx.diagnostics = &out.diags;
  ctx.source_id = 7;
  ctx.source_name = "fixture";
  ctx.host = host;
  ctx.format = "kernel_log";
  ctx.year_hint = year_hint;
  culprit::ingest::parse_kernel_log(text, ctx);
}

std::string field_text(const Event& e, std::string_view key) {
  const auto* f = e.field(key);
  return f ? f->value : std::string("<missing>");
}

void check_fields(const Event& e, simdjson::dom::object fields) {
  for (auto [key, value] : fields) {
    std::string k(key);
    INFO("field " << k);
    const auto* f = e.field(k);
    REQUIRE(f != nullptr);
    if (value.is_string()) {
      CHECK(f->value == std::string(std::string_view(value.get_string().value())));
    } else {
      CHECK(f->numeric);
      double want = value.is_double() ? double(value.get_double().value()) : double(value.get_int64().value());
      CHECK(std::stod(f->value) == Approx(want).epsilon(1e-9).margin(1e-5));
    }
  }
}

using culprit::test::as_int;
using culprit::test::as_str;

void check_report(const RecordingSink& sink, const OomReport& r, simdjson::dom::object want) {
  const Event& e = sink.event_of(r);
  CHECK(e.kind == "kernel_oom");
  CHECK(e.rule == "kernel_oom_report");
  for (auto [key, v] : want) {
    std::string k(key);
    INFO("report key " << k);
    if (k == "line") CHECK(e.line == as_int(v));
    else if (k == "line_end") CHECK(e.line_end == as_int(v));
    else if (k == "ts_kind") CHECK(std::string(culprit::core::to_string(e.ts_kind)) == as_str(v));
    else if (k == "ts") { REQUIRE(e.ts.has_value()); CHECK(*e.ts == Approx(double(v.get_double().value())).margin(1e-3)); }
    else if (k == "ts_value") { REQUIRE(e.ts_value.has_value()); CHECK(*e.ts_value == Approx(double(v.get_double().value())).margin(1e-5)); }
    else if (k == "host") { CHECK(e.host == as_str(v)); CHECK(r.host == as_str(v)); }
    else if (k == "constraint") CHECK(r.constraint == as_str(v));
    else if (k == "memcg") CHECK(r.memcg == bool(v.get_bool().value()));
    else if (k == "reason") CHECK(r.reason == as_str(v));
    else if (k == "victim_pid") {
      if (v.is_null()) CHECK_FALSE(r.victim_pid.has_value());
      else { REQUIRE(r.victim_pid.has_value()); CHECK(*r.victim_pid == as_int(v)); CHECK(e.pid == r.victim_pid); }
    }
    else if (k == "victim_comm") { CHECK(r.victim_comm == as_str(v)); CHECK(e.comm == as_str(v)); }
    else if (k == "victim_uid") CHECK(r.victim_uid == as_int(v));
    else if (k == "victim_anon_rss") CHECK(r.victim_anon_rss == as_int(v));
    else if (k == "victim_oom_score_adj") CHECK(r.victim_oom_score_adj == as_int(v));
    else if (k == "trigger_comm") CHECK(r.trigger_comm == as_str(v));
    else if (k == "trigger_pid") CHECK(r.trigger_pid == as_int(v));
    else if (k == "gfp_mask") CHECK(r.gfp_mask == as_str(v));
    else if (k == "order") CHECK(r.order == as_int(v));
    else if (k == "task_count") CHECK(std::int64_t(r.tasks.size()) == as_int(v));
    else if (k == "hog_pid") CHECK(field_text(e, "hog_pid") == std::to_string(as_int(v)));
    else if (k == "page_size") CHECK(r.page_size == as_int(v));
    else if (k == "task_memcg") CHECK(r.task_memcg == as_str(v));
    else if (k == "oom_memcg") CHECK(r.oom_memcg == as_str(v));
    else if (k == "cpuset") CHECK(r.cpuset == as_str(v));
    else if (k == "memcg_limit") CHECK(r.memcg_limit == as_int(v));
    else if (k == "memcg_usage") CHECK(r.memcg_usage == as_int(v));
    else if (k == "memcg_failcnt") CHECK(r.memcg_failcnt == as_int(v));
    else if (k == "swap_total_kb") CHECK(r.swap_total_kb == as_int(v));
    else if (k == "swap_free_kb") CHECK(r.swap_free_kb == as_int(v));
    else if (k == "other_killed_pids") {
      std::vector<std::int64_t> pids;
      for (auto p : v.get_array()) pids.push_back(as_int(p));
      CHECK(r.other_killed_pids == pids);
    } else if (k == "task_names") {
      std::vector<std::string> names;
      for (auto n : v.get_array()) names.push_back(as_str(n));
      std::vector<std::string> got;
      for (const auto& t : r.tasks) got.push_back(t.name);
      CHECK(got == names);
    } else if (k == "fields") check_fields(e, v.get_object());
    else FAIL("unknown expect key " << k);
  }
}

/// Event kinds, clock anchors left out (they are checked on their own).
std::map<std::string, int> kind_counts(const RecordingSink& sink) {
  std::map<std::string, int> m;
  for (const auto& e : sink.events)
    if (e.rule != "kernel_clock_anchor") m[e.kind]++;
  return m;
}

std::vector<Event> anchors_of(const RecordingSink& sink) {
  std::vector<Event> out;
  for (const auto& e : sink.events)
    if (e.rule == "kernel_clock_anchor") out.push_back(e);
  return out;
}

/// "anchors": [{host, anchor, records, boot_ts, ts | ts_value}] — every clock anchor, in order.
void check_anchors(const RecordingSink& sink, simdjson::dom::array want) {
  auto got = anchors_of(sink);
  REQUIRE(got.size() == want.size());
  std::size_t i = 0;
  for (auto w : want) {
    const Event& e = got[i++];
    CHECK(e.kind == "log");
    for (auto [key, v] : w.get_object()) {
      std::string k(key);
      INFO("anchor key " << k);
      if (k == "host") CHECK(e.host == std::string(std::string_view(v.get_string().value())));
      else if (k == "anchor") CHECK(e.field_or("anchor") == std::string(std::string_view(v.get_string().value())));
      else if (k == "records") CHECK(e.field_or("records") == std::to_string(int64_t(v.get_int64().value())));
      else if (k == "line") CHECK(e.line == int64_t(v.get_int64().value()));
      else if (k == "boot_ts") CHECK(std::stod(e.field_or("boot_ts", "0")) == Approx(double(v.get_double().value())).margin(1e-6));
      else if (k == "ts") { REQUIRE(e.ts.has_value()); CHECK(*e.ts == Approx(double(v.get_double().value())).margin(1e-3)); }
      else if (k == "ts_value") { REQUIRE(e.ts_value.has_value()); CHECK(*e.ts_value == Approx(double(v.get_double().value())).margin(1e-3)); }
      else FAIL("unknown anchor key " << k);
    }
  }
}

std::vector<fs::path> fixtures() {
  std::vector<fs::path> out;
  for (const auto& entry : fs::directory_iterator(fs::path(CULPRIT_SOURCE_DIR) / "fixtures/formats/kernel"))
    if (entry.path().extension() == ".txt") out.push_back(entry.path());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

TEST_CASE("kernel fixtures parse as their .expect.json says", "[kernel_log][fixtures]") {
  auto signals = culprit::test::kernel_test_signals();
  auto files = fixtures();
  REQUIRE(files.size() >= 10);
  for (const auto& txt : files) {
    fs::path expect_path = txt;
    expect_path.replace_extension(".expect.json");
    SECTION(txt.filename().string()) {
      REQUIRE(fs::exists(expect_path));
      simdjson::dom::parser jp;
      simdjson::dom::element doc = jp.load(expect_path.string());
      std::string host;
      int year_hint = 0;
      if (auto c = doc["context"]; !c.error()) {
        if (auto h = c["host"]; !h.error()) host = as_str(h.value());
        if (auto y = c["year_hint"]; !y.error()) year_hint = int(as_int(y.value()));
      }
      std::string text = read_file(txt);
      Parsed p;
      parse(text, host, year_hint, signals, p);

      // Event kinds: exactly the listed counts, nothing else.
      std::map<std::string, int> want_kinds;
      for (auto [k, v] : doc["kinds"].get_object()) want_kinds[std::string(k)] = int(as_int(v));
      CHECK(kind_counts(p.sink) == want_kinds);
      CHECK(std::int64_t(p.diags.size()) == as_int(doc["notes"]));
      if (auto a = doc["anchors"]; !a.error()) check_anchors(p.sink, a.get_array());
      else CHECK(anchors_of(p.sink).empty());

      auto reports = doc["reports"].get_array();
      REQUIRE(p.sink.oom_reports.size() == reports.size());
      std::size_t i = 0;
      for (auto want : reports) check_report(p.sink, p.sink.oom_reports[i++], want.get_object());

      if (auto kills = doc["kills"]; !kills.error()) {
        auto got = p.sink.of_kind("oom_kill");
        REQUIRE(got.size() == kills.get_array().size());
        std::size_t k = 0;
        for (auto want : kills.get_array()) {
          const Event& e = got[k++];
          CHECK(e.rule == "kernel_oom_kill");
          CHECK(e.line == as_int(want["line"]));
          CHECK(e.pid == as_int(want["victim_pid"]));
          CHECK(e.comm == as_str(want["victim_comm"]));
          if (auto f = want["fields"]; !f.error()) check_fields(e, f.get_object());
        }
      }
      if (auto nk = doc["non_kernel"]; !nk.error()) {
        for (auto want : nk.get_array()) {
          auto got = p.sink.of_kind(as_str(want["kind"]));
          REQUIRE(got.size() == 1);
          CHECK(got[0].comm == as_str(want["comm"]));
          CHECK(got[0].pid == as_int(want["pid"]));
          CHECK(got[0].host == as_str(want["host"]));
        }
      }
      // Every report's event is a kernel_oom event; every table row became a sighting.
      std::size_t rows = 0;
      for (const auto& r : p.sink.oom_reports) {
        CHECK(p.sink.event_of(r).kind == "kernel_oom");
        CHECK(p.sink.event_of(r).line_end >= p.sink.event_of(r).line);
        rows += r.tasks.size();
      }
      CHECK(p.sink.processes.size() >= rows);

      // CRLF endings and the prefilter switched off change nothing.
      std::string crlf;
      for (char c : text) {
        if (c == '\n') crlf += '\r';
        crlf += c;
      }
      Parsed q;
      parse(crlf, host, year_hint, signals, q);
      CHECK(kind_counts(q.sink) == want_kinds);
      REQUIRE(q.sink.oom_reports.size() == p.sink.oom_reports.size());
      for (std::size_t r = 0; r < q.sink.oom_reports.size(); ++r) {
        CHECK(q.sink.oom_reports[r].victim_pid == p.sink.oom_reports[r].victim_pid);
        CHECK(q.sink.oom_reports[r].tasks.size() == p.sink.oom_reports[r].tasks.size());
      }
      auto unfiltered = culprit::test::kernel_test_signals();
      unfiltered.set_prefilter(false);
      Parsed u;
      parse(text, host, year_hint, unfiltered, u);
      CHECK(kind_counts(u.sink) == want_kinds);

      // Any cut of the file (a paste that stops mid-report) parses without crashing.
      for (std::size_t cut = 0; cut < text.size(); cut += 97) {
        Parsed c;
        parse(text.substr(0, cut), host, year_hint, signals, c);
        for (const auto& r : c.sink.oom_reports) CHECK(r.event_id >= 1);
      }
    }
  }
}

}  // namespace kernel_fixtures_tests
