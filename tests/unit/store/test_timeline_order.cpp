// The merged timeline of a multi-host incident is in order once clocks are aligned: the
// fixtures/incidents/two-node-clock-alignment folder (worker logs with glog stamps, raw dmesg
// with boot-relative stamps, one anchor per host) read, ingested with the shipped rules and
// aligned through the libraries, as `culprit --db` does, then queried as a user would:
//   culprit query --db t.db "SELECT host, ts, kind FROM events WHERE kind <> 'log' ORDER BY ts"
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "culprit/ingest/pipeline.hpp"
#include "culprit/input/reader.hpp"
#include "culprit/rules/loader.hpp"
#include "culprit/store/clock.hpp"
#include "culprit/store/database.hpp"
#include "culprit/store/timeline.hpp"

namespace {

std::unique_ptr<culprit::store::Database> timeline_of(const std::string& fixture) {
  using namespace culprit;
  static const rules::LoadResult loaded = rules::load_rules(rules::builtin_rules());
  std::string err;
  auto db = store::Database::open(":memory:", err);
  REQUIRE(db);
  REQUIRE(db->ensure_schema().empty());
  core::Diagnostics problems;
  input::ReadOptions options;
  auto sources =
      input::read_inputs({std::string(CULPRIT_SOURCE_DIR) + "/fixtures/incidents/" + fixture + "/inputs"}, options, problems);
  REQUIRE_FALSE(sources.empty());
  {
    store::TimelineWriter writer(*db);
    for (const auto& src : sources) {
      ingest::IngestInput in{src.name, src.host, src.origin, src.text};
      ingest::ingest(in, loaded.rules.signals, writer, problems);
    }
    REQUIRE(writer.finish().empty());
  }
  REQUIRE(store::align_clocks(*db).empty());
  return db;
}

struct TimelineRow {
  std::string host, kind, rule;
  double ts;
};

}  // namespace

TEST_CASE("two-node-clock-alignment: the merged timeline is in the order things happened", "[clock][timeline]") {
  auto db = timeline_of("two-node-clock-alignment");
  auto q = db->query("SELECT host, ts, kind, rule FROM events WHERE kind <> 'log' AND ts IS NOT NULL ORDER BY ts, id");
  REQUIRE(q.error.empty());
  std::vector<TimelineRow> rows;
  for (const auto& r : q.rows)
    rows.push_back({r["host"].as_text(), r["kind"].as_text(), r["rule"].as_text(), *r["ts"].as_double()});

  // Every failure event of both hosts' kernel logs and worker logs got a wall time...
  auto undated = db->query(
      "SELECT count(*) AS n FROM events e JOIN sources s ON s.id = e.source_id WHERE e.kind <> 'log' AND e.ts IS NULL"
      " AND (s.format = 'kernel_log' OR e.ts_kind <> 'none')");
  CHECK(undated.rows.at(0)["n"].as_int() == 0);
  // ...and the story reads in order: node-a's kernel OOM kill, its Xid, node-a's torchrun
  // failure, node-b's lost peer, node-b's segfault, node-b's torchrun failure.
  auto first = [&](const std::string& host, const std::string& rule) {
    for (std::size_t i = 0; i < rows.size(); ++i)
      if (rows[i].host == host && rows[i].rule == rule) return static_cast<int>(i);
    return -1;
  };
  const int oom = first("node-a", "kernel_oom_report");
  const int xid = first("node-a", "nvrm_xid");
  const int a_fail = first("node-a", "torchrun_worker_killed");
  const int peer = first("node-b", "nccl_remote_error");
  const int segv = first("node-b", "kernel_segfault");
  const int b_fail = first("node-b", "torchrun_worker_killed");
  REQUIRE(oom >= 0);
  REQUIRE(xid >= 0);
  REQUIRE(a_fail >= 0);
  REQUIRE(peer >= 0);
  REQUIRE(segv >= 0);
  REQUIRE(b_fail >= 0);
  CHECK(oom < xid);
  CHECK(xid < a_fail);
  CHECK(a_fail < peer);
  CHECK(peer < segv);
  CHECK(segv < b_fail);

  // The times themselves (UTC), from each host's anchor.
  CHECK(rows[oom].ts == Approx(1775695641.5).margin(1e-3));    // 2026-04-09T00:47:21.500Z (RTC anchor)
  CHECK(rows[segv].ts == Approx(1775695651.8).margin(1e-3));   // 2026-04-09T00:47:31.800Z (kern.log anchor)
  CHECK(rows[a_fail].ts == Approx(1775695642.431).margin(1e-3));
  CHECK(rows[b_fail].ts == Approx(1775695652.117).margin(1e-3));

  // Each host says how it was aligned and how sure that is.
  auto hosts = db->query("SELECT name, clock_method, clock_confidence FROM hosts ORDER BY name");
  REQUIRE(hosts.rows.size() == 2);
  CHECK(hosts.rows[0]["name"].as_text() == "node-a");
  CHECK(hosts.rows[0]["clock_method"].as_text().find("boot stamps via the kernel's RTC line") != std::string::npos);
  CHECK(hosts.rows[0]["clock_confidence"].as_text() == "medium");
  CHECK(hosts.rows[1]["name"].as_text() == "node-b");
  CHECK(hosts.rows[1]["clock_method"].as_text().find("boot stamps via syslog lines quoting them") != std::string::npos);
  CHECK(hosts.rows[1]["clock_confidence"].as_text() == "medium");
}

TEST_CASE("without its anchor a host's dmesg stays undated but still counts", "[clock][timeline]") {
  // The same incident without node-b's kern.log: node-b's segfault cannot be placed.
  auto db = timeline_of("two-node-clock-alignment");
  REQUIRE(db->exec("DELETE FROM events WHERE host = 'node-b' AND rule = 'kernel_clock_anchor';"
                   "UPDATE events SET ts = NULL WHERE host = 'node-b' AND ts_kind = 'boot';"
                   "DELETE FROM hosts;").empty());
  REQUIRE(culprit::store::align_clocks(*db).empty());
  auto segv = db->query("SELECT ts FROM events WHERE rule = 'kernel_segfault'");
  REQUIRE(segv.rows.size() == 1);
  CHECK(segv.rows[0]["ts"].is_null());
  auto node_b = db->query("SELECT clock_method, clock_confidence FROM hosts WHERE name = 'node-b'");
  REQUIRE(node_b.rows.size() == 1);
  CHECK(node_b.rows[0]["clock_method"].as_text().find("boot stamps unplaced") != std::string::npos);
  CHECK(node_b.rows[0]["clock_confidence"].as_text() == "low");
  // node-a is untouched: its kill is still placed.
  auto oom = db->query("SELECT ts FROM events WHERE rule = 'kernel_oom_report'");
  CHECK(oom.rows.at(0)["ts"].as_double().value_or(0) == Approx(1775695641.5).margin(1e-3));
}
