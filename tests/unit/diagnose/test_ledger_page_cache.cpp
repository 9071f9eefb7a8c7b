// Unified memory (GB10 / DGX Spark, Jetson): the page cache is a holder of the GPU+host pool.
// Records in the shapes the seed's check gives them: PyTorch 2.1+ "this process has" with the
// `Process N has` list, nvidia-smi's process table (memory "Not Supported" on GB10), and `free -h`
// (procps-ng >= 3.3.10: `buff/cache` column) — formats.md §3.1.1-§3.1.2, §6.1.4, §6.5.
#include <catch2/catch.hpp>

#include "diagnose/advice.hpp"
#include "diagnose/ledger_model.hpp"
#include "unit/diagnose/budget_terms.hpp"
#include "unit/test_units.hpp"

namespace ledger_page_cache_tests {

namespace {

using namespace culprit::diagnose;

using culprit::test::gib;
using culprit::test::mib;
using culprit::test::terms;

/// The seed: 2.00 MiB asked, 1.06 MiB free of 119.70 GiB, a vLLM engine with 11.71 GiB, the
/// worker itself 614 MiB, `free -h` showing `buff/cache` 100Gi.
GpuLedgerInput seed(bool unified, std::optional<std::int64_t> cache) {
  GpuLedgerInput in;
  in.host = "spark-b";
  in.gpu = 0;
  in.unified = unified;
  in.capacity = gib(119.70);
  in.free = mib(1.06);
  in.requested = mib(2);
  in.self_reported = mib(614);
  in.torch_allocated = 0;
  in.torch_reserved = 0;
  GpuHolder vllm;
  vllm.pid = 48211;
  vllm.bytes = gib(11.71);
  vllm.name = "VLLM::EngineCore";
  vllm.role = "foreign";
  vllm.why = "a vLLM process, while the job runs SGLang";
  vllm.from_error = true;
  in.holders.push_back(vllm);
  in.page_cache = cache;
  return in;
}

const HolderGroup* kernel_group(const Budget& b) {
  for (const auto& g : b.holders)
    if (g.role == "kernel") return &g;
  return nullptr;
}

}  // namespace

TEST_CASE("unified memory: the page cache is a kernel holder of the pool", "[diagnose][ledger][unified]") {
  const auto r = decide_ledger(seed(true, gib(100)));
  // The culprit is still the foreign engine: the page cache is shown, not blamed.
  REQUIRE(r.culprit);
  CHECK(r.culprit->pid == 48211);
  CHECK(r.culprit->role == "foreign");
  const auto* g = kernel_group(r.budget);
  REQUIRE(g);
  CHECK(g->group == "page cache");
  CHECK(g->bytes == gib(100));
  bool entry = false;
  for (const auto& e : r.budget.entries) entry |= e.role == "kernel" && e.bytes == gib(100);
  CHECK(entry);
  // The sum still adds up: total = free + job + foreign + page cache + unexplained.
  REQUIRE(r.budget.unexplained);
  CHECK(*r.budget.total == *r.budget.free + mib(614) + gib(11.71) + gib(100) + *r.budget.unexplained);
  bool said = false;
  for (const auto& a : r.budget.arithmetic) said |= a.find("page cache held 100.00 GiB") != std::string::npos;
  CHECK(said);
  // The advice says how to give it back.
  const auto advice = culprit_action(r.culprit, "", "", &r.budget);
  CHECK(advice.find("sync; echo 3 > /proc/sys/vm/drop_caches") != std::string::npos);
  CHECK(advice.find("100.00 GiB") != std::string::npos);
}

TEST_CASE("unified memory: the page cache is capped at what nothing else accounts for", "[diagnose][ledger][unified]") {
  // `free` ran later than the error and shows more cache than the rest can hold.
  const auto r = decide_ledger(seed(true, gib(200)));
  const auto* g = kernel_group(r.budget);
  REQUIRE(g);
  CHECK(g->bytes < gib(119.70) - gib(11.71));
  CHECK(r.budget.unexplained == std::optional<std::int64_t>(0));
}

TEST_CASE("look-alikes: no page cache holder on a discrete GPU or without a figure", "[diagnose][ledger][unified]") {
  // A discrete GPU: the host's page cache is not GPU memory.
  const auto discrete = decide_ledger(seed(false, gib(100)));
  CHECK_FALSE(kernel_group(discrete.budget));
  CHECK(culprit_action(discrete.culprit, "", "", &discrete.budget).find("drop_caches") == std::string::npos);
  // Unified memory but no `free` / meminfo in the inputs: nothing invented.
  const auto none = decide_ledger(seed(true, std::nullopt));
  CHECK_FALSE(kernel_group(none.budget));
  CHECK(culprit_action(none.culprit, "", "", &none.budget).find("drop_caches") == std::string::npos);
  // A page cache smaller than the shortfall would not have helped: shown, but no advice.
  auto big = seed(true, mib(64));
  big.requested = gib(20);
  const auto small = decide_ledger(big);
  REQUIRE(kernel_group(small.budget));
  CHECK(culprit_action(small.culprit, "", "", &small.budget).find("drop_caches") == std::string::npos);
}

TEST_CASE("the budget sums to the total with every holder in a term", "[diagnose][ledger][unified]") {
  // The seed's display servers (Xorg, gnome-shell: no log names them) and a CPU process from `ps`.
  auto in = seed(true, gib(100));
  GpuHolder xorg;
  xorg.pid = 3094;
  xorg.bytes = mib(43);
  xorg.name = "/usr/lib/xorg/Xorg";
  xorg.type = "G";
  xorg.role = "unknown";
  in.holders.push_back(xorg);
  in.host_processes.push_back({7001, "postgres", gib(2)});
  const auto r = decide_ledger(in);
  CHECK(r.budget.unattributed == mib(43));
  CHECK(r.budget.host_processes == gib(2));
  CHECK(r.budget.kernel == gib(100));
  REQUIRE(r.budget.total);
  CHECK(terms(r.budget) == *r.budget.total);
  // The text's worked sum names the same terms.
  REQUIRE_FALSE(r.budget.arithmetic.empty());
  CHECK_THAT(r.budget.arithmetic[0], Catch::Contains("+ unattributed 43.00 MiB + host processes 2.00 GiB + kernel (page cache) "
                                                     "100.00 GiB"));

  // A discrete GPU: no host processes or kernel term, the same exact sum.
  const auto discrete = decide_ledger(seed(false, gib(100)));
  CHECK_FALSE(discrete.budget.kernel);
  CHECK_FALSE(discrete.budget.host_processes);
  CHECK(terms(discrete.budget) == *discrete.budget.total);
}

TEST_CASE("holders listed beyond total - free leave a negative rest, not a made-up zero", "[diagnose][ledger]") {
  // The snapshot was taken later than the error: its holders add up to more than the error's
  // total - free.
  auto in = seed(false, std::nullopt);
  in.holders[0].bytes = gib(119.5);
  const auto r = decide_ledger(in);
  REQUIRE(r.budget.unexplained);
  CHECK(*r.budget.unexplained < 0);
  CHECK(terms(r.budget) == *r.budget.total);
  bool rest_row = false;
  for (const auto& e : r.budget.entries) rest_row |= e.role == "rest" && e.bytes == *r.budget.unexplained;
  CHECK(rest_row);
  bool said = false;
  for (const auto& a : r.budget.arithmetic) said |= a.find("so the rest is negative") != std::string::npos;
  CHECK(said);
}

}  // namespace ledger_page_cache_tests
