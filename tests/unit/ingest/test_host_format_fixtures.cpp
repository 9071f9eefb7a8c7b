// Data-driven check of the host-side structured parsers (journal_json, docker_inspect,
// kubectl_describe): every fixtures/formats/<format>/<variant>.txt must sniff as its format, as
// one segment, and parse as its <variant>.expect.json says (event kinds, the failure events with
// their fields, OOM reports, containers, clock anchors, notes). CRLF endings and the prefilter
// switched off change nothing, and every cut of every fixture parses without crashing.
#include <simdjson.h>

#include <catch2/catch.hpp>
#include <map>

#include "culprit/ingest/parser.hpp"
#include "culprit/ingest/sniff.hpp"
#include "unit/ingest/fixture_files.hpp"
#include "unit/ingest/recording_sink.hpp"
#include "unit/ingest/host_test_signals.hpp"
#include "unit/json_values.hpp"

using culprit::core::Event;
using culprit::test::RecordingSink;
using simdjson::dom::element;

namespace {

using culprit::test::as_str;
using culprit::test::as_int;
double as_num(element v) { return v.is_double() ? double(v.get_double().value()) : double(v.get_int64().value()); }

struct Parsed {
  RecordingSink sink;
  culprit::core::Diagnostics diags;
};

void parse(const std::string& text, const std::string& format, const std::string& host, int year,
           const culprit::text::SignalSet& signals, Parsed& out) {
  culprit::ingest::ParseContext ctx;
  ctx.sink = &out.sink;
  ctx.signals = &signals;
  ctx.diagnostics = &out.diags;
  ctx.source_id = 3;
  ctx.source_name = "fixture";
  ctx.host = host;
  ctx.format = format;
  ctx.year_hint = year;
  culprit::ingest::parse_segment(text, ctx);
}

bool is_anchor(const Event& e) { return e.rule == "kernel_clock_anchor"; }

std::map<std::string, int> kinds(const RecordingSink& sink) {
  std::map<std::string, int> m;
  for (const auto& e : sink.events)
    if (!is_anchor(e)) m[e.kind]++;
  return m;
}

void check_fields(const Event& e, simdjson::dom::object fields) {
  for (auto [key, value] : fields) {
    std::string k(key);
    INFO("field " << k);
    const auto* f = e.field(k);
    REQUIRE(f != nullptr);
    if (value.is_string()) {
      CHECK(f->value == as_str(value));
    } else {
      CHECK(f->numeric);
      CHECK(std::stod(f->value) == Approx(as_num(value)).epsilon(1e-12).margin(1e-6));
    }
  }
}

/// Checks the keys given in `want` against one event.
void check_event(const Event& e, simdjson::dom::object want) {
  for (auto [key, v] : want) {
    std::string k(key);
    INFO("event key " << k);
    if (k == "kind") CHECK(e.kind == as_str(v));
    else if (k == "rule") CHECK(e.rule == as_str(v));
    else if (k == "line") CHECK(e.line == as_int(v));
    else if (k == "line_end") CHECK(e.line_end == as_int(v));
    else if (k == "host") CHECK(e.host == as_str(v));
    else if (k == "comm") CHECK(e.comm == as_str(v));
    else if (k == "pid") {
      if (v.is_null()) CHECK_FALSE(e.pid.has_value());
      else CHECK(e.pid == as_int(v));
    } else if (k == "ts") {
      if (v.is_null()) CHECK_FALSE(e.ts.has_value());
      else { REQUIRE(e.ts.has_value()); CHECK(*e.ts == Approx(as_num(v)).margin(1e-4)); }
    } else if (k == "ts_kind") CHECK(std::string(culprit::core::to_string(e.ts_kind)) == as_str(v));
    else if (k == "ts_value") { REQUIRE(e.ts_value.has_value()); CHECK(*e.ts_value == Approx(as_num(v)).margin(1e-5)); }
    else if (k == "message") CHECK(e.message == as_str(v));
    else if (k == "fields") check_fields(e, v.get_object());
    else FAIL("unknown event key " << k);
  }
}

}  // namespace

TEST_CASE("host-side format fixtures parse as their .expect.json says", "[host_formats][fixtures]") {
  auto signals = culprit::test::host_test_signals();
  for (const std::string format : {"journal_json", "docker_inspect", "kubectl_describe", "torch_memory_snapshot"}) {
    auto files = culprit::test::format_fixtures(format);
    REQUIRE(files.size() >= 2);
    for (const auto& txt : files) {
      auto expect_path = txt;
      expect_path.replace_extension(".expect.json");
      SECTION(format + "/" + txt.filename().string()) {
        REQUIRE(std::filesystem::exists(expect_path));
        simdjson::dom::parser jp;
        element doc = jp.load(expect_path.string());
        std::string host;
        int year = 0;
        if (auto c = doc["context"]; !c.error()) {
          if (auto h = c["host"]; !h.error()) host = as_str(h.value());
          if (auto y = c["year_hint"]; !y.error()) year = int(as_int(y.value()));
        }
        const std::string text = culprit::test::read_fixture(txt);

        // The sniffer finds the format, as one segment covering the text.
        CHECK(culprit::ingest::sniff_format(text) == format);
        auto segments = culprit::ingest::segment_text(text);
        REQUIRE(segments.size() == 1);
        CHECK(segments[0].format == format);

        Parsed p;
        parse(text, format, host, year, signals, p);
        std::map<std::string, int> want_kinds;
        for (auto [k, v] : doc["kinds"].get_object()) want_kinds[std::string(k)] = int(as_int(v));
        CHECK(kinds(p.sink) == want_kinds);
        CHECK(std::int64_t(p.diags.size()) == as_int(doc["notes"]));

        // The listed events: every event that is not a plain `log` line, in order.
        if (auto ev = doc["events"]; !ev.error()) {
          std::vector<const Event*> got;
          for (const auto& e : p.sink.events)
            if (e.kind != "log" && e.kind != "kernel_oom") got.push_back(&e);
          auto want = ev.get_array();
          REQUIRE(got.size() == want.size());
          std::size_t i = 0;
          for (auto w : want) check_event(*got[i++], w.get_object());
        }
        if (auto rs = doc["reports"]; !rs.error()) {
          auto want = rs.get_array();
          REQUIRE(p.sink.oom_reports.size() == want.size());
          std::size_t i = 0;
          for (auto w : want) {
            const auto& r = p.sink.oom_reports[i++];
            const Event& e = p.sink.event_of(r);
            for (auto [key, v] : w.get_object()) {
              std::string k(key);
              INFO("report key " << k);
              if (k == "host") CHECK(r.host == as_str(v));
              else if (k == "victim_pid") CHECK(r.victim_pid == as_int(v));
              else if (k == "victim_comm") CHECK(r.victim_comm == as_str(v));
              else if (k == "constraint") CHECK(r.constraint == as_str(v));
              else if (k == "memcg") CHECK(r.memcg == bool(v.get_bool().value()));
              else if (k == "task_count") CHECK(std::int64_t(r.tasks.size()) == as_int(v));
              else if (k == "trigger_pid") CHECK(r.trigger_pid == as_int(v));
              else if (k == "task_memcg") CHECK(r.task_memcg == as_str(v));
              else if (k == "event") check_event(e, v.get_object());
              else FAIL("unknown report key " << k);
            }
          }
        } else {
          CHECK(p.sink.oom_reports.empty());
        }
        if (auto cs = doc["containers"]; !cs.error()) {
          auto want = cs.get_array();
          REQUIRE(p.sink.containers.size() == want.size());
          std::size_t i = 0;
          for (auto w : want) {
            const auto& c = p.sink.containers[i++];
            for (auto [key, v] : w.get_object()) {
              std::string k(key);
              INFO("container key " << k);
              if (k == "name") CHECK(c.name == as_str(v));
              else if (k == "id") CHECK(c.id == as_str(v));
              else if (k == "image") CHECK(c.image == as_str(v));
              else if (k == "status") CHECK(c.status == as_str(v));
              else if (k == "host") CHECK(c.host == as_str(v));
              else FAIL("unknown container key " << k);
            }
          }
        }
        std::vector<const Event*> anchors;
        for (const auto& e : p.sink.events)
          if (is_anchor(e)) anchors.push_back(&e);
        if (auto as = doc["anchors"]; !as.error()) {
          auto want = as.get_array();
          REQUIRE(anchors.size() == want.size());
          std::size_t i = 0;
          for (auto w : want) check_event(*anchors[i++], w.get_object());
        } else {
          CHECK(anchors.empty());
        }

        // CRLF endings and no prefilter: the same events.
        std::string crlf;
        for (char c : text) {
          if (c == '\n') crlf += '\r';
          crlf += c;
        }
        Parsed q;
        parse(crlf, format, host, year, signals, q);
        CHECK(kinds(q.sink) == want_kinds);
        CHECK(q.sink.oom_reports.size() == p.sink.oom_reports.size());
        auto unfiltered = culprit::test::host_test_signals();
        unfiltered.set_prefilter(false);
        Parsed u;
        parse(text, format, host, year, unfiltered, u);
        CHECK(kinds(u.sink) == want_kinds);

        // Any cut (a paste that stops mid-entry) parses without crashing.
        for (std::size_t cut = 0; cut < text.size(); cut += 61) {
          Parsed c;
          parse(text.substr(0, cut), format, host, year, signals, c);
          for (const auto& r : c.sink.oom_reports) CHECK(r.event_id >= 1);
        }
      }
    }
  }
}
