// store::settle_folder_hosts: a host a folder name gave gives way to the one host the folder's
// own lines name (a syslog host field, a launcher's `srun: error: NODE:`), never to another
// folder's; a paste segment read at a login node's prompt whose launcher lines name one node is
// that node's output. Each case runs with the writer's HostsNamed and without: the answers agree.
#include <catch2/catch.hpp>

#include <optional>
#include <set>

#include "culprit/core/event.hpp"
#include "culprit/store/database.hpp"
#include "culprit/store/hosts.hpp"
#include "culprit/store/timeline.hpp"

namespace store = culprit::store;

namespace {

struct HostsTimeline {
  std::unique_ptr<store::Database> db;
  std::unique_ptr<store::TimelineWriter> writer;
  std::int64_t line = 0;
  bool hinted = true;  // settle() with the writer's HostsNamed, as run_incident does
  explicit HostsTimeline(bool with_hints = true) : hinted(with_hints) {
    std::string err;
    db = store::Database::open(":memory:", err);
    REQUIRE(db);
    REQUIRE(db->ensure_schema().empty());
    writer = std::make_unique<store::TimelineWriter>(*db);
  }
  std::int64_t source(const std::string& name, const std::string& host, const std::string& from) {
    culprit::core::SourceInfo s;
    s.name = name;
    s.host = host;
    s.host_from = from;
    s.format = "app_log";
    return writer->add_source(s);
  }
  void event(std::int64_t source_id, const std::string& host, std::vector<culprit::core::Field> fields = {},
             std::optional<std::int64_t> pid = std::nullopt) {
    culprit::core::Event e;
    e.source_id = source_id;
    e.line = e.line_end = ++line;
    e.host = host;
    e.pid = pid;
    e.kind = "log";
    e.rule = "test";
    e.message = "m";
    e.fields = std::move(fields);
    writer->add_event(e);
  }
  std::string settle() {
    REQUIRE(writer->finish().empty());
    const store::HostsNamed named = hinted ? writer->hosts_named() : store::HostsNamed{};
    writer.reset();
    return store::settle_folder_hosts(*db, named);
  }
  std::string hosts_of(const std::string& table) {
    auto r = db->query("SELECT group_concat(host, ' ') AS h FROM (SELECT DISTINCT host FROM " + table + " ORDER BY host)");
    REQUIRE(r.error.empty());
    return r.rows[0]["h"].as_text();
  }
  std::string from_of(const std::string& name) {
    auto r = db->query("SELECT host || ' ' || host_from AS f FROM sources WHERE name = '" + name + "'");
    REQUIRE(r.rows.size() == 1);
    return r.rows[0]["f"].as_text();
  }
};

culprit::core::Field node(const std::string& n) {
  culprit::core::Event e;
  e.set("node", n);
  return e.fields.front();
}

}  // namespace

TEST_CASE("a folder's name gives way to the one host its own lines name", "[store][hosts]") {
  HostsTimeline t(GENERATE(true, false));
  const auto kern = t.source("case-12/kern.log", "case-12", "folder name");
  const auto train = t.source("case-12/train.log", "case-12", "folder name");
  t.event(kern, "gpu07");
  t.event(kern, "case-12");
  t.event(train, "case-12", {}, 4242);
  REQUIRE(t.settle().empty());
  CHECK(t.hosts_of("events") == "gpu07");
  CHECK(t.hosts_of("sources") == "gpu07");
  CHECK(t.from_of("case-12/train.log") == "gpu07 log lines");
}

TEST_CASE("a folder whose lines name no host, or two, keeps its name: others' hosts never leak in",
          "[store][hosts]") {
  HostsTimeline t(GENERATE(true, false));
  const auto a = t.source("spark-a/head.log", "spark-a", "folder name");
  const auto b = t.source("spark-b/worker.log", "spark-b", "folder name");
  const auto c = t.source("mixed/syslog", "mixed", "folder name");
  t.event(a, "spark-a");  // NCCL's `spark-a:pid:tid`: the folder's own name
  t.event(b, "spark-b");
  t.event(c, "node-1");
  t.event(c, "node-2");
  REQUIRE(t.settle().empty());
  CHECK(t.from_of("spark-a/head.log") == "spark-a folder name");
  CHECK(t.from_of("spark-b/worker.log") == "spark-b folder name");
  CHECK(t.from_of("mixed/syslog") == "mixed folder name");
}

TEST_CASE("srun's launcher line says where the job ran", "[store][hosts]") {
  HostsTimeline t(GENERATE(true, false));
  // A folder: the node of `srun: error: gpu-017: task 3: Out Of Memory` is its host.
  const auto out = t.source("job-42/slurm-42.out", "job-42", "folder name");
  t.event(out, "job-42", {node("gpu-017")});
  t.event(out, "job-42", {}, 90211);
  // A paste read at the login node's prompt: the job's output is the node's; a node list
  // (`gpu-[017-018]`) names no one host, and a prompt segment without a launcher line stays.
  const auto seg = t.source("<stdin>", "login1", "prompt");
  t.event(seg, "login1", {node("gpu07")}, 90211);
  t.event(seg, "login1");
  const auto list = t.source("<stdin>:20", "login1", "prompt");
  t.event(list, "login1", {node("gpu-[017-018]")});
  const auto plain = t.source("<stdin>:30", "login1", "prompt");
  t.event(plain, "login1");
  REQUIRE(t.settle().empty());
  CHECK(t.from_of("job-42/slurm-42.out") == "gpu-017 log lines");
  CHECK(t.from_of("<stdin>") == "gpu07 launcher line");
  CHECK(t.from_of("<stdin>:20") == "login1 prompt");
  CHECK(t.from_of("<stdin>:30") == "login1 prompt");
  auto r = t.db->query("SELECT count(*) AS n FROM events WHERE host = 'gpu07'");
  CHECK(r.rows[0]["n"].as_int() == 2);
}

TEST_CASE("a folder's name gives way to the host a prompt in one of its files names", "[store][hosts]") {
  HostsTimeline t(GENERATE(true, false));
  // A case folder: a terminal paste made at `user@gpu-1013:~$` (host from its prompt) beside a
  // container log that names no host. The folder's content names one host: both are its.
  const auto term = t.source("case-27/node-terminal.txt", "gpu-1013", "prompt");
  const auto log = t.source("case-27/container.log", "case-27", "folder name");
  t.event(term, "gpu-1013");
  t.event(log, "case-27", {}, 17811);
  // Another folder's prompt never leaks in.
  const auto other = t.source("case-28/worker.log", "case-28", "folder name");
  t.event(other, "case-28");
  REQUIRE(t.settle().empty());
  CHECK(t.from_of("case-27/container.log") == "gpu-1013 log lines");
  CHECK(t.from_of("case-28/worker.log") == "case-28 folder name");
}

TEST_CASE("the writer tells which sources' events may name a host", "[store][hosts]") {
  HostsTimeline t;
  const auto own = t.source("node-00/sglang.log", "node-00", "folder name");
  const auto unnamed = t.source("node-00/train.log", "node-00", "folder name");
  const auto other = t.source("node-01/kern.log", "node-01", "folder name");
  const auto launcher = t.source("job/slurm.out", "job", "folder name");
  for (int i = 0; i < 3; ++i) t.event(own, "node-00");  // its own host: names none
  t.event(unnamed, "");                                   // no host: names none
  t.event(other, "node-01");
  t.event(other, "gpu07");  // a syslog host field
  t.event(launcher, "job", {node("gpu-017")});
  const store::HostsNamed& named = t.writer->hosts_named();
  CHECK(named.complete);
  CHECK(named.sources == std::set<std::int64_t>{other, launcher});
  // An event whose source the writer was never told of may name any host.
  t.event(9999, "node-00");
  CHECK(named.sources.count(9999) == 1);
  REQUIRE(t.settle().empty());
  CHECK(t.from_of("node-00/sglang.log") == "node-00 folder name");
  CHECK(t.from_of("node-01/kern.log") == "gpu07 log lines");
  CHECK(t.from_of("job/slurm.out") == "gpu-017 log lines");

  // A writer that begins on a timeline with events saw only its own: its set says nothing.
  store::TimelineWriter again(*t.db);
  CHECK_FALSE(again.hosts_named().complete);
  CHECK(again.finish().empty());
}
