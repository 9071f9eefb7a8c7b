// The host / cgroup ledger over plain records: holder groups (processes of one name are one
// holder), the cgroup sum limit = free + holders + rest, the host sum RAM = holders + shmem +
// slab + rest, each exact with every holder in one budget term (job / foreign / unattributed by
// role, kernel), and no budget when a report gives no size.
#include <catch2/catch.hpp>

#include "diagnose/host_ledger.hpp"
#include "unit/diagnose/budget_terms.hpp"

using culprit::diagnose::HostOomRecord;
using culprit::diagnose::HostTask;

namespace {
constexpr std::int64_t GiB = 1LL << 30;

using culprit::test::terms;
}  // namespace

TEST_CASE("holder groups: one name is one holder, largest first, the victim marked", "[host_ledger]") {
  std::vector<HostTask> tasks = {{1, "php-fpm", 2 * GiB, 0}, {2, "php-fpm", 3 * GiB, 0}, {3, "java", 4 * GiB, 0},
                                 {4, "", 1 * GiB, 0}, {5, "", 1 * GiB, 0}};
  auto g = culprit::diagnose::holder_groups(tasks, 3);
  REQUIRE(g.size() == 4);  // php-fpm, java, and the two unnamed rows apart
  CHECK(g[0].name == "php-fpm");
  CHECK(g[0].bytes == 5 * GiB);
  CHECK(g[0].pids == std::vector<std::int64_t>{2, 1});  // largest member first
  CHECK_FALSE(g[0].has_victim);
  CHECK(g[1].name == "java");
  CHECK(g[1].has_victim);
}

TEST_CASE("holder groups: -1000 only when every member is protected", "[host_ledger]") {
  auto g = culprit::diagnose::holder_groups({{1, "a", GiB, -1000}, {2, "a", GiB, 0}, {3, "b", GiB / 2, -1000}}, std::nullopt);
  REQUIRE(g.size() == 2);
  CHECK(g[0].max_oom_score_adj == 0);
  CHECK(g[1].max_oom_score_adj == -1000);
}

TEST_CASE("cgroup ledger: limit = free + holders + rest, with the worked sum", "[host_ledger]") {
  HostOomRecord r;
  r.host = "k8s-1";
  r.memcg = true;
  r.cgroup = "/kubepods/pod1";
  r.limit = 8 * GiB;
  r.usage = 8 * GiB;
  r.victim_pid = 7;
  r.tasks = {{7, "python", 5 * GiB, 0}, {8, "python", 1 * GiB, 0}, {9, "sh", GiB / 4, 0}};
  auto b = culprit::diagnose::build_host_budget(r);
  REQUIRE(b);
  CHECK(b->total == 8 * GiB);
  CHECK(b->free == 0);
  REQUIRE(b->unexplained);
  CHECK(*b->unexplained == 8 * GiB - 6 * GiB - GiB / 4);
  std::int64_t sum = *b->free + *b->unexplained;
  for (const auto& e : b->entries)
    if (e.role == "job") sum += e.bytes;
  CHECK(sum == *b->total);
  CHECK(terms(*b) == *b->total);
  CHECK(b->job == 6 * GiB + GiB / 4);  // a cgroup's tasks are the job's
  REQUIRE(b->entries.size() >= 2);
  CHECK(b->entries[0].label.find("python (2 processes") != std::string::npos);
  CHECK(b->entries[0].label.find("the victim's") != std::string::npos);
  REQUIRE_FALSE(b->arithmetic.empty());
  CHECK(b->arithmetic[0].find("100%") != std::string::npos);
}

TEST_CASE("cgroup ledger: resident sets over the usage share pages: the rest is negative, the sum exact", "[host_ledger]") {
  HostOomRecord r;
  r.memcg = true;
  r.limit = 4 * GiB;
  r.usage = 4 * GiB;
  r.tasks = {{1, "python", 3 * GiB, 0}, {2, "python", 3 * GiB, 0}};  // forked workers share pages
  auto b = culprit::diagnose::build_host_budget(r);
  REQUIRE(b);
  CHECK(b->unexplained == -2 * GiB);  // counted twice, not a made-up zero
  CHECK(terms(*b) == *b->total);
  CHECK(b->entries.back().role == "rest");
  CHECK(b->entries.back().label == "counted in more than one resident set (shared pages)");
  bool said = false;
  for (const auto& a : b->arithmetic) said |= a.find("shared between processes") != std::string::npos;
  CHECK(said);
}

TEST_CASE("cgroup ledger: usage above the limit counts as the limit: no usage figure puts free in the rest",
          "[host_ledger]") {
  HostOomRecord r;
  r.memcg = true;
  r.limit = 4 * GiB;
  r.usage = 4 * GiB + GiB / 8;  // the counter can overshoot its limit a little
  r.tasks = {{1, "python", 3 * GiB, 0}};
  auto b = culprit::diagnose::build_host_budget(r);
  REQUIRE(b);
  CHECK(b->free == 0);
  CHECK(b->unexplained == GiB);
  CHECK(terms(*b) == *b->total);

  r.usage.reset();
  b = culprit::diagnose::build_host_budget(r);
  REQUIRE(b);
  CHECK_FALSE(b->free);
  CHECK(b->unexplained == GiB);
  CHECK(b->entries.back().label == "free or charged to the cgroup, in no task's rss");
  CHECK(terms(*b) == *b->total);
}

TEST_CASE("cgroup ledger without a task table: all of the usage is unexplained", "[host_ledger]") {
  HostOomRecord r;
  r.memcg = true;
  r.limit = 4 * GiB;
  r.usage = 4 * GiB;
  r.victim_pid = 3;
  auto b = culprit::diagnose::build_host_budget(r);
  REQUIRE(b);
  CHECK(b->unexplained == 4 * GiB);
  CHECK(terms(*b) == *b->total);
  REQUIRE(b->entries.size() == 1);
  CHECK(b->entries[0].label == "charged to the cgroup (the report lists no tasks)");
}

TEST_CASE("host ledger: RAM = holders + shmem + slab + rest: a protected hog is said", "[host_ledger]") {
  HostOomRecord r;
  r.ram = 64 * GiB;
  r.shmem = 10 * GiB;
  r.slab_unreclaimable = 2 * GiB;
  r.tasks = {{1, "mysqld", 40 * GiB, -1000, "foreign"}, {2, "python", 8 * GiB, 0, "job"}};
  r.victim_pid = 2;
  auto b = culprit::diagnose::build_host_budget(r);
  REQUIRE(b);
  CHECK(b->total == 64 * GiB);
  CHECK(b->unexplained == 64 * GiB - 48 * GiB - 12 * GiB);
  // Each holder in one term: the groups by role, shmem and slab as the kernel's.
  CHECK(b->foreign == 40 * GiB);
  CHECK(b->job == 8 * GiB);
  CHECK(b->unattributed == 0);
  CHECK(b->kernel == 12 * GiB);
  CHECK_FALSE(b->free);  // the kernel's report gives none apart from the rest
  CHECK(terms(*b) == *b->total);
  for (const auto& e : b->entries)
    if (e.label.find("(kernel)") != std::string::npos) CHECK(e.role == "kernel");
  bool said = false;
  for (const auto& a : b->arithmetic) said |= a.find("-1000") != std::string::npos;
  CHECK(said);
  REQUIRE(b->entries.size() >= 2);
  CHECK(b->entries[0].role == "foreign");  // the processes table's role of the group
  CHECK(b->entries[1].role == "job");
}

TEST_CASE("host ledger: resident sets and kernel memory over the RAM leave a negative rest", "[host_ledger]") {
  HostOomRecord r;
  r.ram = 16 * GiB;
  r.shmem = 4 * GiB;
  r.tasks = {{1, "python", 14 * GiB, 0}, {2, "redis-server", 1 * GiB, 0}};  // python maps the shmem too
  auto b = culprit::diagnose::build_host_budget(r);
  REQUIRE(b);
  CHECK(b->unexplained == -3 * GiB);
  CHECK(b->unattributed == 15 * GiB);  // no log ties either to anyone
  CHECK(terms(*b) == *b->total);
  bool said = false;
  for (const auto& a : b->arithmetic) said |= a.find("= -3.00 GiB (negative: pages shared") != std::string::npos;
  CHECK(said);
}

TEST_CASE("no sizes, no budget: a report with only a victim is not a ledger", "[host_ledger]") {
  HostOomRecord r;
  r.victim_pid = 5;
  CHECK_FALSE(culprit::diagnose::build_host_budget(r));
}

TEST_CASE("host ledger: the culprit's row takes the role its diagnosis found, only where the table has none",
          "[host_ledger]") {
  HostOomRecord r;
  r.host = "node-7";
  r.ram = 64 * GiB;
  r.tasks = {{1893, "redis-server", 40 * GiB, -1000, "unknown"},
             {2054, "nv-hostengine", 1 * GiB, 0, "unknown"},
             {40287, "python", 8 * GiB, 0, "job"}};
  culprit::diagnose::ProcessRef culprit;
  culprit.host = "node-7";
  culprit.pid = 1893;
  culprit.role = "foreign";  // the kernel OOM rule: a host with a known job, and not of it
  auto other_host = r;
  culprit::diagnose::adopt_culprit_role(r, culprit);
  auto b = culprit::diagnose::build_host_budget(r);
  REQUIRE(b);
  CHECK(b->entries[0].role == "foreign");
  CHECK(b->foreign == 40 * GiB);
  CHECK(b->unattributed == 1 * GiB);  // nv-hostengine: nothing said it, it stays unattributed
  CHECK(terms(*b) == *b->total);

  // Another host's culprit, or a role the table already gives, changes nothing.
  culprit.host = "node-8";
  culprit::diagnose::adopt_culprit_role(other_host, culprit);
  CHECK(other_host.tasks[0].role == "unknown");
  culprit.host = "node-7";
  culprit.pid = 40287;
  culprit::diagnose::adopt_culprit_role(r, culprit);
  CHECK(r.tasks[2].role == "job");
}
