// Ray's memory-monitor table of the node's largest memory users (ray_memory_table): the header
// and rows of each generation (1.x `PID MEM COMMAND` with GB / GiB, 2.2+ `PID MEM(GB) COMMAND`
// with bare numbers; tabs or expanded spaces; under a Ray `(Actor pid=N)` prefix), whose each
// process is, and the app-log parser's table event tied to its kill; look-alikes (`ps`, `top`,
// a table with no kill before it) are not read as one.
#include <catch2/catch.hpp>

#include <string>

#include "culprit/core/parser_rules.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/rules/loader.hpp"
#include "ingest/formats/ray_memory_table.hpp"
#include "unit/ingest/builtin_app_log.hpp"
#include "unit/ingest/gpu_recording_sink.hpp"
#include "unit/test_units.hpp"

using culprit::ingest::classify_ray_command;
using culprit::ingest::RayMemoryTable;
using culprit::ingest::RayMemoryUser;
using culprit::ingest::RayProcessClass;

namespace {

using culprit::test::kGiB;

culprit::test::GpuRecordingSink parse_driver_log(const std::string& text, bool prefilter = true) {
  return culprit::test::parse_app_builtin(text, prefilter, "driver.log", "node-7");
}

std::vector<culprit::core::Event> tables(const culprit::test::GpuRecordingSink& sink) {
  std::vector<culprit::core::Event> out;
  for (const auto& e : sink.events)
    if (e.rule == culprit::core::parser_rule::kRayMemoryTable) out.push_back(e);
  return out;
}

const culprit::core::Event* kill_event(const culprit::test::GpuRecordingSink& sink) {
  for (const auto& e : sink.events)
    if (e.kind == "userspace_oom_kill") return &e;
  return nullptr;
}

}  // namespace

TEST_CASE("Ray table header: both generations, tabs or spaces: nothing else", "[ingest][ray_memory_table]") {
  CHECK(RayMemoryTable::opens("PID\tMEM\tCOMMAND"));
  CHECK(RayMemoryTable::opens("PID\tMEM(GB)\tCOMMAND"));
  CHECK(RayMemoryTable::opens("PID       MEM     COMMAND   "));
  CHECK(RayMemoryTable::opens("  PID  MEM(GB)  COMMAND"));
  // procps ps / top headers, a ps with %MEM, an RSS column: not Ray's.
  CHECK_FALSE(RayMemoryTable::opens("  PID TTY          TIME CMD"));
  CHECK_FALSE(RayMemoryTable::opens("    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND"));
  CHECK_FALSE(RayMemoryTable::opens("PID %MEM COMMAND"));
  CHECK_FALSE(RayMemoryTable::opens("PID RSS COMMAND"));
  CHECK_FALSE(RayMemoryTable::opens("PID MEM COMMAND USER"));
  CHECK_FALSE(RayMemoryTable::opens("PID\tMEM"));
}

TEST_CASE("Ray table rows: units of each generation, cut commands, the bound", "[ingest][ray_memory_table]") {
  SECTION("1.x: GB (0.x) and GiB, the unit glued to the number") {
    RayMemoryTable t(1, "PID\tMEM\tCOMMAND");
    CHECK(t.offer(2, "3101\t6.2GB\tray_Learner:update()") == RayMemoryTable::Offer::consumed);
    CHECK(t.offer(3, "3102    2.75GiB   /opt/conda/bin/python3 -u /opt/conda/lib/python3.8/site-packages/ray/dashboard/agent.py --node-ip") ==
          RayMemoryTable::Offer::consumed);
    CHECK(t.offer(4, "3103\t0.5GiB\t") == RayMemoryTable::Offer::consumed);  // command cut away
    CHECK(t.offer(5, "") == RayMemoryTable::Offer::ended);
    REQUIRE(t.rows().size() == 3);
    CHECK(t.rows()[0].pid == 3101);
    CHECK(t.rows()[0].bytes == static_cast<std::int64_t>(6.2 * kGiB + 0.5));
    CHECK(t.rows()[0].command == "ray_Learner:update()");
    CHECK(t.rows()[1].bytes == static_cast<std::int64_t>(2.75 * kGiB));
    CHECK(t.rows()[2].command.empty());
    RayMemoryUser row;
    REQUIRE(t.read_row("3104\t1.0GiB\t" + std::string(100000, 'x'), row));
    CHECK(row.command.size() == RayMemoryUser::kMaxCommand);
    CHECK(t.last_line() == 4);
  }
  SECTION("2.2+: MEM(GB) with bare numbers; a number with a unit is not this table's") {
    RayMemoryTable t(1, "PID\tMEM(GB)\tCOMMAND");
    RayMemoryUser row;
    REQUIRE(t.read_row("51234\t30.10\tray::Trainer.fit", row));
    CHECK(row.pid == 51234);
    CHECK(row.bytes == static_cast<std::int64_t>(30.10 * kGiB + 0.5));
    CHECK(row.command == "ray::Trainer.fit");
    CHECK_FALSE(t.read_row("51234\t30.10GB\tray::Trainer.fit", row));
  }
  SECTION("1.x rows need their unit; junk, an elision and a too-long pid end the table") {
    RayMemoryTable t(1, "PID MEM COMMAND");
    RayMemoryUser row;
    CHECK_FALSE(t.read_row("3101 6.2 ray_Learner", row));
    CHECK_FALSE(t.read_row("...", row));
    CHECK_FALSE(t.read_row("12345678901 1GB x", row));
    CHECK_FALSE(t.read_row("abc 1GB x", row));
    CHECK_FALSE(t.read_row("0 1GB x", row));
    CHECK(t.offer(2, "In addition, up to 4.1 GiB of shared memory is currently being used by the Ray object store.") ==
          RayMemoryTable::Offer::ended);
  }
  SECTION("one blank before the rows is allowed, two end it") {
    RayMemoryTable t(1, "PID MEM COMMAND");
    CHECK(t.offer(2, "   ") == RayMemoryTable::Offer::consumed);
    CHECK(t.offer(3, "") == RayMemoryTable::Offer::ended);
  }
  SECTION("at most kMaxRows rows") {
    RayMemoryTable t(1, "PID\tMEM(GB)\tCOMMAND");
    for (std::size_t i = 0; i < RayMemoryTable::kMaxRows; ++i)
      REQUIRE(t.offer(static_cast<std::int64_t>(i + 2), std::to_string(100 + i) + "\t1.00\tray::W") ==
              RayMemoryTable::Offer::consumed);
    CHECK(t.offer(99, "999\t1.00\tray::W") == RayMemoryTable::Offer::ended);
    CHECK(t.rows().size() == RayMemoryTable::kMaxRows);
  }
}

TEST_CASE("whose a Ray table's process is, from its command line", "[ingest][ray_memory_table]") {
  const auto cls = [](std::string_view c) { return classify_ray_command(c).cls; };
  CHECK(cls("ray::RolloutWorker") == RayProcessClass::worker);
  CHECK(cls("ray::IDLE") == RayProcessClass::worker);
  CHECK(cls("ray_PolicyEvaluator:apply()") == RayProcessClass::worker);
  CHECK(classify_ray_command("ray_PolicyEvaluator:apply()").name == "ray_PolicyEvaluator:apply()");
  CHECK(cls("/usr/bin/python3 /usr/lib/python3/site-packages/ray/workers/default_worker.py --node-ip") ==
        RayProcessClass::worker);
  const auto agent = classify_ray_command(
      "/usr/bin/python3 -u /usr/lib/python3.10/site-packages/ray/dashboard/agent.py --node-ip-address=10.1.1.1 --metr");
  CHECK(agent.cls == RayProcessClass::daemon);
  CHECK(agent.label == "Ray's dashboard agent");
  CHECK(agent.name == "agent.py");
  CHECK(cls("/usr/lib/python3.10/site-packages/ray/core/src/ray/raylet/raylet --raylet_socket_name=/tmp/ray/s") ==
        RayProcessClass::daemon);
  CHECK(cls("/usr/lib/python3.10/site-packages/ray/core/src/ray/gcs/gcs_server --log_dir=/tmp/ray/session") ==
        RayProcessClass::daemon);
  CHECK(cls("python -u /site-packages/ray/dashboard/dashboard.py --host=0.0.0.0") == RayProcessClass::daemon);
  CHECK(cls("/usr/bin/python3 -u /site-packages/ray/_private/log_monitor.py --logs-dir=/tmp/ray") == RayProcessClass::daemon);
  CHECK(cls("/usr/bin/python3 -u /site-packages/ray/autoscaler/_private/monitor.py --logs-dir=/tmp") ==
        RayProcessClass::daemon);
  const auto driver = classify_ray_command("python3 -u scripts/train.py --epochs 10");
  CHECK(driver.cls == RayProcessClass::driver);
  CHECK(driver.name == "train.py");
  CHECK(cls("/usr/sbin/mysqld --datadir=/var/lib/mysql") == RayProcessClass::other);
  CHECK(cls("") == RayProcessClass::other);
  // A worker's own script named like a daemon's is still matched on Ray's path only.
  CHECK(cls("python3 my_agent.py") == RayProcessClass::driver);
}

TEST_CASE("Ray 1.x error under an actor prefix: the table is read and tied to the kill", "[ingest][ray_memory_table]") {
  // Wrapped by a terminal (the intro split mid-word), tabs expanded, every line prefixed.
  const std::string log =
      "(Packer pid=7001, ip=10.2.0.4) ray._private.memory_monitor.RayOutOfMemoryError: More than 95% of the memory "
      "on node trainer-2 is used (240.10 / 251.50 GB). The top 10 memory consu\n"
      "mers are:      \n"
      "(Packer pid=7001, ip=10.2.0.4)  \n"
      "(Packer pid=7001, ip=10.2.0.4) PID     MEM     COMMAND\n"
      "(Packer pid=7001, ip=10.2.0.4) 9120    90.25GiB        /usr/bin/python3 -u /usr/lib/python3.9/site-packages/ray/dashboard/agent.py --node-ip\n"
      "(Packer pid=7001, ip=10.2.0.4) 9100    2.10GiB /usr/lib/python3.9/site-packages/ray/core/src/ray/raylet/raylet --raylet_so\n"
      "(Packer pid=7001, ip=10.2.0.4) 9300    1.05GiB ray::Packer\n"
      "(Packer pid=7001, ip=10.2.0.4) In addition, up to 0.5 GiB of shared memory is currently being used by the Ray object store.\n";
  const auto sink = parse_driver_log(log);
  const auto* kill = kill_event(sink);
  REQUIRE(kill);
  CHECK(kill->pid == 7001);
  CHECK(kill->field_or("proc_name") == "Packer");
  CHECK(kill->field_or("node_total_bytes") == std::to_string(static_cast<std::int64_t>(251.50 * kGiB + 0.5)));
  const auto t = tables(sink);
  REQUIRE(t.size() == 1);
  CHECK(t[0].kind == "log");
  CHECK(t[0].line == 4);
  CHECK(t[0].line_end == 7);
  CHECK_FALSE(t[0].pid);  // the prefix's pid is the writer's
  CHECK(t[0].field_or("kill_line") == std::to_string(kill->line));
  CHECK(t[0].field_or("rows") == "3");
  CHECK(t[0].field_or("top_pid") == "9120");
  CHECK(t[0].field_or("top_class") == "daemon");
  CHECK(t[0].field_or("top_label") == "Ray's dashboard agent");
  CHECK(t[0].field_or("next_pid") == "9100");
  // Every row a process with its rss and command; only the ray:: worker is the job's.
  const auto* agent = sink.sighting(9120, false);
  REQUIRE(agent);
  CHECK(agent->rss == static_cast<std::int64_t>(90.25 * kGiB + 0.5));
  CHECK(agent->cmdline.find("dashboard/agent.py") != std::string::npos);
  CHECK(sink.sighting(9300, true));
  // The rows are not scanned as log lines, and the prefilter changes nothing.
  const auto full = parse_driver_log(log, false);
  REQUIRE(full.events.size() == sink.events.size());
  for (std::size_t i = 0; i < full.events.size(); ++i) {
    CHECK(full.events[i].rule == sink.events[i].rule);
    CHECK(full.events[i].line == sink.events[i].line);
    REQUIRE(full.events[i].fields.size() == sink.events[i].fields.size());
    for (std::size_t f = 0; f < full.events[i].fields.size(); ++f)
      CHECK(full.events[i].fields[f].value == sink.events[i].fields[f].value);
  }
}

TEST_CASE("Ray 0.x error at the end of a traceback: GB rows without prefix", "[ingest][ray_memory_table]") {
  const std::string log =
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 40, in <module>\n"
      "    trainer.train()\n"
      "ray.memory_monitor.RayOutOfMemoryError: More than 95% of the memory on node Local is used (30.10 / 31.20 GB). "
      "The top 5 memory consumers are:\n"
      "\n"
      "PID\tMEM\tCOMMAND\n"
      "2201\t9.1GB\tray_Learner:train()\n"
      "2202\t6.0GB\tray_RolloutWorker\n"
      "\n"
      "In addition, ~2.1 GB of shared memory is currently being used by the Ray object store.\n";
  const auto sink = parse_driver_log(log);
  const auto t = tables(sink);
  REQUIRE(t.size() == 1);
  CHECK(t[0].field_or("top_pid") == "2201");
  CHECK(t[0].field_or("top_class") == "worker");
  CHECK(t[0].field_or("top_name") == "ray_Learner:train()");
  CHECK(t[0].field_or("next_bytes") == std::to_string(6LL * kGiB));
  CHECK(sink.of_kind("traceback").size() == 1);
}

TEST_CASE("Ray 2.x kill message with the Top 10 table", "[ingest][ray_memory_table]") {
  const std::string log =
      "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\n"
      "Memory on the node (IP: 10.0.0.5, ID: 4f2c91) where the task (task ID: 16310a0f, name=Shard.run, pid=4410, "
      "memory used=1.20GB) was running was 58.90GB / 62.00GB (0.95), which exceeds the memory usage threshold of "
      "0.95. Ray killed this worker (ID: 6f2d) because it was the most recently scheduled task. Top 10 memory users:\n"
      "PID\tMEM(GB)\tCOMMAND\n"
      "4402\t40.12\tray::Shard.load\n"
      "4410\t1.20\tray::Shard.run\n"
      "2001\t0.81\t/usr/lib/python3.11/site-packages/ray/core/src/ray/raylet/raylet --raylet_socket_name=/tmp/ray\n"
      "Refer to the documentation on how to address the out of memory issue: "
      "https://docs.ray.io/en/latest/ray-core/scheduling/ray-oom-prevention.html.\n";
  const auto sink = parse_driver_log(log);
  const auto t = tables(sink);
  REQUIRE(t.size() == 1);
  CHECK(t[0].field_or("rows") == "3");
  CHECK(t[0].field_or("top_pid") == "4402");
  CHECK(t[0].field_or("top_class") == "worker");
  CHECK(t[0].field_or("top_bytes") == std::to_string(static_cast<std::int64_t>(40.12 * kGiB + 0.5)));
  CHECK(t[0].field_or("kill_line") == "2");  // the line with the victim, just before the table
  // The remediation line after the table is still scanned.
  bool advice = false;
  for (const auto& e : sink.events) advice |= e.line == 7 && e.kind == "userspace_oom_kill";
  CHECK(advice);
}

TEST_CASE("look-alikes: a ps or top listing, a table far from any kill", "[ingest][ray_memory_table]") {
  SECTION("ps output after a Ray kill is not Ray's table") {
    const auto sink = parse_driver_log(
        "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\n"
        "$ ps -eo pid,rss,comm\n"
        "  PID   RSS COMMAND\n"
        " 4402 41234 python3\n");
    CHECK(tables(sink).empty());
    CHECK_FALSE(sink.sighting(4402, false));
  }
  SECTION("Ray's header with no kill just before it") {
    const auto sink = parse_driver_log(
        "ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.\n"
        "INFO one\nINFO two\nINFO three\nINFO four\nINFO five\n"
        "PID\tMEM(GB)\tCOMMAND\n"
        "4402\t40.12\tray::Shard.load\n");
    CHECK(tables(sink).empty());
  }
  SECTION("a metrics table of a serving engine") {
    const auto sink = parse_driver_log(
        "INFO 04-09 00:00:10 metrics.py:400 Avg prompt throughput: 351.2 tokens/s\n"
        "PID    MEM     COMMAND\n"
        "3300   12.1GiB python3 -m vllm.entrypoints.openai.api_server\n");
    CHECK(tables(sink).empty());
    CHECK(sink.processes.empty());
  }
}
