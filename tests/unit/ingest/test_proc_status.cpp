// The snapshot's recorded process facts (proc_status.cpp) over fixtures/formats/proc_status/:
// the pid inside a container, the cgroup path, a gone pid named only where culprit saw the host's
// pids — and bad input (cut files, garbage, a pid namespace line that is not the host's).
#include <catch2/catch.hpp>

#include <string>

#include "culprit/core/cgroup_place.hpp"
#include "culprit/ingest/parser.hpp"
#include "ingest/formats/proc_status.hpp"
#include "unit/ingest/fixture_files.hpp"
#include "unit/ingest/recording_sink.hpp"

using culprit::test::RecordingSink;

namespace {

RecordingSink parse(std::string_view text) {
  RecordingSink sink;
  culprit::core::Diagnostics diags;
  culprit::ingest::ParseContext ctx;
  ctx.sink = &sink;
  ctx.diagnostics = &diags;
  ctx.source_name = "proc-status.txt";
  ctx.host = "gpu-node-7";
  ctx.format = "proc_status";
  culprit::ingest::parse_proc_status(text, ctx);
  return sink;
}

const culprit::core::ProcessSighting* find(const RecordingSink& s, std::int64_t pid) {
  for (const auto& p : s.processes)
    if (p.pid == pid) return &p;
  return nullptr;
}

std::string proc_status_fixture(const std::string& name) {
  return culprit::test::read_fixture(std::filesystem::path(CULPRIT_SOURCE_DIR) / "fixtures/formats/proc_status" / name);
}

}  // namespace

TEST_CASE("proc status: a Docker container's pid 1 read from the host's pid namespace", "[proc_status][fixtures]") {
  const auto s = parse(proc_status_fixture("docker-v2-host.txt"));
  REQUIRE(s.processes.size() == 3);
  const auto* holder = find(s, 48211);
  REQUIRE(holder);
  CHECK(holder->host == "gpu-node-7");
  CHECK(holder->name == "python3");
  CHECK(holder->state == "S");
  CHECK(holder->ppid == 48190);
  CHECK(holder->nspid == 1);
  CHECK(holder->rss == std::int64_t{4815216} * 1024);
  CHECK(holder->cgroup == "/system.slice/docker-3f2a9c1b7d4e8a6f0c5b2d1e9f7a8b6c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a.scope");
  CHECK_FALSE(holder->absent);
  const auto* job = find(s, 51007);
  REQUIRE(job);
  CHECK(job->nspid == 51007);  // one namespace: its pid is the host's
  CHECK(job->cgroup == "/user.slice/user-1000.slice/session-3.scope");
  CHECK(culprit::core::cgroup_place(job->cgroup).container_id.empty());
  const auto* gone = find(s, 51990);
  REQUIRE(gone);
  CHECK(gone->absent);
  CHECK(gone->name.empty());
}

TEST_CASE("proc status: Kubernetes on cgroup v1, a process in D state and a zombie", "[proc_status][fixtures]") {
  const auto s = parse(proc_status_fixture("k8s-v1-cgroupfs.txt"));
  REQUIRE(s.processes.size() == 2);
  const auto* d = find(s, 73012);
  REQUIRE(d);
  CHECK(d->state == "D");
  CHECK(d->nspid == 1);
  const auto place = culprit::core::cgroup_place(d->cgroup);
  CHECK(place.pod_uid == "5e0c7d2a-91b4-4c3e-8f6a-2d7b1c9e4a13");
  CHECK(place.container_id == "9b8e7d6c5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e7f6a5b4c3d2e1f0a9b8c");
  const auto* z = find(s, 73140);
  REQUIRE(z);
  CHECK(z->state == "Z");
  CHECK(z->nspid == 9);
  CHECK(z->ppid == 73012);
}

TEST_CASE("proc status: a pid missing from a container's /proc is not gone", "[proc_status][fixtures]") {
  // From inside a container nvidia-smi's host pids are not there to see: no sighting, no `absent`.
  const auto s = parse(proc_status_fixture("inside-container.txt"));
  REQUIRE(s.processes.size() == 1);
  CHECK(s.processes[0].pid == 7);
  CHECK(find(s, 48211) == nullptr);
}

TEST_CASE("proc status: without the namespace line a missing pid says nothing", "[proc_status]") {
  const auto s = parse("==> /proc/51990/status <==\n(no such process)\n");
  CHECK(s.processes.empty());
}

TEST_CASE("proc status: the detector's shapes", "[proc_status]") {
  using culprit::ingest::proc_status::is_body_line;
  using culprit::ingest::proc_status::is_header;
  CHECK(is_header("==> /proc/self/ns/pid <=="));
  CHECK(is_header("==> /proc/48211/status <=="));
  CHECK(is_header("==> /proc/48211/cgroup <=="));
  CHECK_FALSE(is_header("==> /proc/self/cgroup <=="));  // cgroup.txt's, the cgroup_memory format's
  CHECK_FALSE(is_header("==> /proc/48211/stack <=="));
  CHECK_FALSE(is_header("==> /proc/0/status <=="));
  CHECK_FALSE(is_header("==> /sys/fs/cgroup/memory.max <=="));
  CHECK(is_body_line("Name:\tpython3"));
  CHECK(is_body_line("Groups:\t "));
  CHECK(is_body_line("voluntary_ctxt_switches:\t184467"));
  CHECK(is_body_line("0::/system.slice/docker-x.scope"));
  CHECK(is_body_line("11:memory:/kubepods/burstable"));
  CHECK(is_body_line("pid:[4026531836]"));
  CHECK(is_body_line("(no such process)"));
  CHECK_FALSE(is_body_line("Name: python3"));  // a log's `Key: value`, not the kernel's tab
  CHECK_FALSE(is_body_line("2026-03-14 09:14:41 INFO: started"));
  CHECK_FALSE(is_body_line("12:34:56 worker ready"));
}

TEST_CASE("proc status: cut files, garbage and huge values do not crash or invent facts", "[proc_status]") {
  std::string text = "==> /proc/self/ns/pid <==\npid:[4026531836]\n==> /proc/77/status <==\nName:\t";
  text += std::string(100000, 'x');
  text += "\nState:\nNSpid:\t77\tnot-a-number\nVmRSS:\t99999999999999999999 kB\nPPid:\t-3\n==> /proc/77/cgroup <==\n";
  text += "\x1b[31m0::/evil\n";
  const auto s = parse(text);
  REQUIRE(s.processes.size() == 1);
  const auto& p = s.processes[0];
  CHECK(p.pid == 77);
  CHECK(p.name.size() <= 256);
  CHECK(p.state.empty());
  CHECK_FALSE(p.nspid);
  CHECK_FALSE(p.rss);
  CHECK_FALSE(p.ppid);
  CHECK(p.cgroup.empty());  // a line that does not start `N:` is no cgroup line
  // A block of more lines than any status file has is cut at its bound.
  std::string big = "==> /proc/self/ns/pid <==\npid:[4026531836]\n==> /proc/5/status <==\n";
  for (int i = 0; i < 2000; ++i) big += "Xx:\t1\n";
  big += "Name:\tlate\n";
  const auto b = parse(big);
  REQUIRE(b.processes.size() == 1);
  CHECK(b.processes[0].name.empty());
}

TEST_CASE("proc status: a job's limits table gives its address-space ceiling, unlimited gives none", "[proc_status][fixtures]") {
  const auto sink = parse(proc_status_fixture("job-limits.txt"));
  REQUIRE(sink.events.size() == 1);  // pid 7015's are all unlimited: nothing to say
  const auto& e = sink.events[0];
  CHECK(e.rule == "proc_limits");
  REQUIRE(e.pid);
  CHECK(*e.pid == 7014);
  CHECK(e.field_or("address_space_bytes") == "1024000000");
  CHECK(e.field("data_bytes") == nullptr);  // `unlimited`
  CHECK(e.line == 3);                    // the limits header's line
  // The stack's 8388608 is no address-space ceiling (only the rows named so count), and a soft
  // limit that is no number (garbage, a row cut inside its name) is none.
  const auto other = parse("==> /proc/9/limits <==\nMax stack size            8388608              unlimited            bytes     \n"
                           "Max address space         12ab                 unlimited            bytes     \nMax addre\n");
  CHECK(other.events.empty());
}
