// RecordedSink (include/culprit/ingest/recorded_sink.hpp): what a worker thread parsed, replayed
// into the real sink in arrival order, its local ids mapped to the target's.
#include <catch2/catch.hpp>

#include <string>
#include <utility>

#include "culprit/ingest/recorded_sink.hpp"
#include "unit/ingest/recording_sink.hpp"

namespace recorded_sink_tests {

using namespace culprit;

core::SourceInfo source_named(std::string name) {
  core::SourceInfo s;
  s.name = std::move(name);
  return s;
}

core::Event event_at(std::int64_t source, std::int64_t line) {
  core::Event e;
  e.source_id = source;
  e.line = line;
  e.message = "line " + std::to_string(line) + " of a message long enough to live on the heap";
  return e;
}

TEST_CASE("a recording replays in arrival order, ids mapped, across many chunks", "[ingest][recorded]") {
  test::RecordingSink target;
  // The target already holds a source and some events: the recording's ids start past them.
  target.add_source(source_named("earlier.log"));
  for (int i = 0; i < 7; ++i) target.add_event(event_at(1, i + 1));

  ingest::RecordedSink rec;
  const std::int64_t first = rec.add_source(source_named("a.log"));
  CHECK(first == 1);
  // More events than one chunk holds, a kernel OOM report after the 1500th (its id local), and a
  // second source midway, whose events name it by its local id.
  for (int i = 1; i <= 1500; ++i) CHECK(rec.add_event(event_at(first, i)) == i);
  core::OomReport report;
  report.event_id = 1500;
  report.victim_comm = "python";
  rec.add_oom_report(report);
  const std::int64_t second = rec.add_source(source_named("b.log"));
  CHECK(second == 2);
  for (int i = 1; i <= 1200; ++i) rec.add_event(event_at(second, i));
  core::GpuSnapshot snapshot;
  snapshot.source_id = second;
  rec.add_gpu_snapshot(snapshot);
  rec.add_event(event_at(first, 9999));  // an event that names the first source again

  rec.replay(target);
  REQUIRE(target.sources.size() == 3);
  CHECK(target.sources[1].name == "a.log");
  CHECK(target.sources[2].name == "b.log");
  REQUIRE(target.events.size() == 7 + 1500 + 1200 + 1);
  // In order, each event with its source's id in the target (2 and 3) and its own line.
  for (std::size_t i = 0; i < 1500; ++i) {
    CHECK(target.events[7 + i].source_id == 2);
    CHECK(target.events[7 + i].line == static_cast<std::int64_t>(i + 1));
  }
  for (std::size_t i = 0; i < 1200; ++i) {
    CHECK(target.events[1507 + i].source_id == 3);
    CHECK(target.events[1507 + i].line == static_cast<std::int64_t>(i + 1));
  }
  CHECK(target.events.back().source_id == 2);
  CHECK(target.events.back().line == 9999);
  CHECK(target.events[1506].message == "line 1500 of a message long enough to live on the heap");
  // The report names the target's id of its event (the 1507th it received), the snapshot its source.
  REQUIRE(target.oom_reports.size() == 1);
  CHECK(target.oom_reports[0].event_id == 1507);
  CHECK(target.event_of(target.oom_reports[0]).line == 1500);
  CHECK(target.oom_reports[0].victim_comm == "python");
  REQUIRE(target.gpu_snapshots.size() == 1);
  CHECK(target.gpu_snapshots[0].source_id == 3);
}

TEST_CASE("an empty recording replays nothing", "[ingest][recorded]") {
  test::RecordingSink target;
  ingest::RecordedSink rec;
  rec.replay(target);
  CHECK(target.sources.empty());
  CHECK(target.events.empty());
}

}  // namespace recorded_sink_tests
