// The CUDA culprit rules over plain records (no SQLite): one case per rule of decide_ledger()
// with look-alikes that must not fire it. Figures are written in the shapes the frameworks'
// messages give them (PyTorch 1.x "reserved in total by PyTorch", 2.1+ "this process has" and the
// `Process N has` list, vLLM's start-up free-memory check, TensorFlow's device-creation figures).
#include <catch2/catch.hpp>

#include <algorithm>

#include "culprit/core/size.hpp"
#include "diagnose/advice.hpp"
#include "diagnose/ledger_account.hpp"
#include "diagnose/load.hpp"
#include "diagnose/ledger_model.hpp"
#include "unit/test_units.hpp"

namespace ledger_rules_tests {

namespace {

using namespace culprit::diagnose;

using culprit::test::gib;
using culprit::test::mib;

GpuHolder holder(std::int64_t pid, std::int64_t bytes, std::string role = "unknown", bool from_error = true) {
  GpuHolder h;
  h.pid = pid;
  h.bytes = bytes;
  h.role = std::move(role);
  h.from_error = from_error;
  return h;
}

/// PyTorch 1.x: `(GPU 0; <cap> total capacity; <alloc> already allocated; <free> free; <res> reserved
/// in total by PyTorch)` — no holder list, no NVML figure for the process.
GpuLedgerInput torch1(double cap_gib, double alloc_gib, double free_mib, double res_gib, double req_mib) {
  GpuLedgerInput in;
  in.host = "node";
  in.gpu = 0;
  in.capacity = gib(cap_gib);
  in.torch_allocated = gib(alloc_gib);
  in.free = mib(free_mib);
  in.torch_reserved = gib(res_gib);
  in.requested = mib(req_mib);
  return in;
}

}  // namespace

TEST_CASE("ledger rule unaccounted-holder: PyTorch 1.x, the GPU full but the job holds little", "[ledger][rules]") {
  // 11.17 GiB card, 530 MiB reserved by PyTorch, 12.50 MiB free: ~10.6 GiB is someone else's.
  const auto r = decide_ledger(torch1(11.17, 0.494, 12.5, 0.5176, 60));
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "foreign");
  CHECK_FALSE(r.culprit->pid);  // no process list names it
  CHECK(r.confidence == Confidence::medium);
  CHECK(r.rule == ledger_rule::kUnaccounted);
  CHECK(r.budget.rule == ledger_rule::kUnaccounted);
  CHECK(r.budget.context_bound == kContextBound);
  // The inferred holder is a ledger line of its own; the sum still adds up.
  REQUIRE(r.budget.foreign);
  REQUIRE(r.budget.unexplained);
  CHECK(*r.budget.unexplained == kContextBound);
  CHECK(*r.budget.total == *r.budget.free + *r.budget.job + *r.budget.foreign + *r.budget.unexplained);
  CHECK_THAT(r.reason, Catch::Contains("nvidia-smi --query-compute-apps=pid,used_memory --format=csv"));
  // The worked sum says what the table says: the inferred holder's bytes are in it.
  const std::string sum = worked_sum(r.budget);
  CHECK(std::find(r.budget.arithmetic.begin(), r.budget.arithmetic.end(), sum) != r.budget.arithmetic.end());
  CHECK_THAT(sum, Catch::Contains("+ foreign " + culprit::core::format_size(*r.budget.foreign)));

  SECTION("0 bytes reserved: the process holds nothing at all") {
    const auto z = decide_ledger(torch1(31.75, 0, 6.62, 0, 20));
    REQUIRE(z.culprit);
    CHECK(z.culprit->role == "foreign");
  }
}

TEST_CASE("ledger rule unaccounted-holder does not fire when the job is the dominant holder", "[ledger][rules]") {
  // 14.76 GiB card, 10.03 GiB reserved: 4.7 GiB is not the job's, but the job holds more.
  const auto r = decide_ledger(torch1(14.76, 9.84, 53.94, 10.03, 752));
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "job");
  CHECK(r.rule == ledger_rule::kJobItself);
  CHECK(r.confidence == Confidence::medium);  // the ledger leaves a large unexplained rest: not high
}

TEST_CASE("ledger rule unaccounted-holder: a request larger than free plus every other holder is the job's own",
          "[ledger][rules]") {
  // 16 GiB card, 4 GiB reserved, asking for 20 GiB: even an empty GPU would not fit it.
  const auto r = decide_ledger(torch1(16, 3.9, 100, 4, 20 * 1024));
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "job");
}

TEST_CASE("ledger rule unaccounted-holder: the rest within the context bound is the job's context", "[ledger][rules]") {
  // 4 GiB card, 3.47 GiB reserved, 0 free: 530 MiB is the context, not another process.
  const auto r = decide_ledger(torch1(4, 3.42, 0, 3.47, 20));
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "job");
  CHECK(r.confidence == Confidence::high);
}

TEST_CASE("ledger rule startup-check-holder: a serving engine's start-up check", "[ledger][rules]") {
  // vLLM: `Free memory on device cuda:5 (16.9/79.18 GiB) on startup is less than desired GPU
  // memory utilization (0.9, 71.26 GiB)` — the engine holds only its context at that point.
  GpuLedgerInput in;
  in.stage = FailureStage::startup_check;
  in.capacity = gib(79.18);
  in.free = gib(16.9);
  in.requested = gib(71.26);
  in.self_pid = 1371;
  const auto r = decide_ledger(in);
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "foreign");
  CHECK(r.rule == ledger_rule::kStartupCheck);
  CHECK(r.confidence == Confidence::medium);
  REQUIRE(r.victim);
  CHECK(r.victim->pid == 1371);

  SECTION("in use within the engine's own context and libraries: the engine asks too much") {
    GpuLedgerInput own;
    own.stage = FailureStage::startup_check;
    own.capacity = gib(22.05);
    own.free = gib(19.77);
    own.requested = gib(19.84);
    const auto j = decide_ledger(own);
    REQUIRE(j.culprit);
    CHECK(j.culprit->role == "job");
    CHECK(j.rule == ledger_rule::kJobItself);
  }
}

TEST_CASE("ledger rule context-create-failed: no room for even a context", "[ledger][rules]") {
  GpuLedgerInput in;
  in.stage = FailureStage::context_create;
  const auto r = decide_ledger(in);
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "foreign");
  CHECK(r.rule == ledger_rule::kContextCreate);
  CHECK(r.confidence == Confidence::medium);

  SECTION("a running process's plain CUDA error is not a context failure") {
    GpuLedgerInput run;
    const auto j = decide_ledger(run);
    REQUIRE(j.culprit);
    CHECK(j.culprit->role == "job");
  }
}

TEST_CASE("ledger rule listed-other-process: a listed process larger than the failing one", "[ledger][rules]") {
  // 2.1+ list: `Process 308335 has 41.09 GiB memory in use. Including non-PyTorch memory, this
  // process has 32.68 GiB memory in use.` and two empty contexts.
  GpuLedgerInput in;
  in.capacity = gib(79.25);
  in.free = mib(334);
  in.requested = gib(1.97);
  in.self_reported = gib(32.68);
  in.torch_allocated = gib(32.16);
  in.holders = {holder(627536, 0), holder(627564, 0), holder(308335, gib(41.09))};
  const auto r = decide_ledger(in);
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "foreign");
  CHECK(r.culprit->pid == 308335);
  CHECK(r.rule == ledger_rule::kListedOther);
  CHECK(r.confidence == Confidence::medium);

  SECTION("co-tenants each smaller than the failing process: the job's own footprint") {
    GpuLedgerInput big = in;
    big.self_reported = gib(29.47);
    big.holders = {holder(1, gib(18.65)), holder(2, gib(19.11)), holder(3, gib(4.9)), holder(4, gib(3.66))};
    big.free = mib(752);
    big.requested = mib(768);
    const auto j = decide_ledger(big);
    REQUIRE(j.culprit);
    CHECK(j.culprit->role == "job");
    CHECK(j.confidence == Confidence::medium);  // others could have made room: not high
  }
  SECTION("small other processes next to a dominant job") {
    GpuLedgerInput small;
    small.capacity = gib(11.66);
    small.free = mib(9.81);
    small.requested = mib(26);
    small.self_reported = gib(9.74);
    small.holders = {holder(3893521, mib(618)), holder(1493972, gib(1.28))};
    const auto j = decide_ledger(small);
    REQUIRE(j.culprit);
    CHECK(j.culprit->role == "job");
  }
}

TEST_CASE("ledger rule foreign-holder: a holder the roles call foreign covers the shortfall", "[ledger][rules]") {
  GpuLedgerInput in;
  in.capacity = gib(79.65);
  in.free = gib(1.2);
  in.requested = gib(10);
  in.self_reported = gib(59.6);
  auto bob = holder(883120, gib(18.46), "foreign");
  bob.why = "runs as user bob";
  in.holders = {bob};
  const auto r = decide_ledger(in);
  REQUIRE(r.culprit);
  CHECK(r.culprit->pid == 883120);
  CHECK(r.rule == ledger_rule::kForeignHolder);
  CHECK(r.confidence == Confidence::high);

  SECTION("foreign but too small to cover the shortfall: the job") {
    GpuLedgerInput small = in;
    small.holders = {holder(883120, gib(4), "foreign")};
    const auto j = decide_ledger(small);
    REQUIRE(j.culprit);
    CHECK(j.culprit->role == "job");
  }
}

TEST_CASE("ledger rule foreign-holders: several foreign holders together", "[ledger][rules]") {
  GpuLedgerInput in;
  in.capacity = gib(80);
  in.free = gib(0.2);
  in.requested = gib(1.2);
  in.self_reported = gib(77);
  in.holders = {holder(10, mib(700), "foreign"), holder(11, mib(700), "foreign")};
  const auto r = decide_ledger(in);
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "foreign");
  CHECK(r.rule == ledger_rule::kForeignHolders);
  CHECK(r.confidence == Confidence::medium);
}

TEST_CASE("ledger: in a container the failing process is the entry its own figures account for", "[ledger][rules]") {
  // No "this process has": `Process 20398 has 14.52 GiB memory in use. Of the allocated memory
  // 14.06 GiB is allocated by PyTorch, and 330.42 MiB is reserved by PyTorch but unallocated.`
  GpuLedgerInput in;
  in.capacity = gib(14.75);
  in.free = mib(235);
  in.requested = mib(496);
  in.torch_allocated = gib(14.06);
  in.torch_reserved = gib(14.06) + mib(330.42);
  in.holders = {holder(20398, gib(14.52))};
  const auto r = decide_ledger(in);
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "job");
  CHECK(r.culprit->pid == 20398);
  REQUIRE(r.victim);
  CHECK(r.victim->pid == 20398);
  CHECK(r.confidence == Confidence::high);

  SECTION("small sibling contexts next to it are not the failing process") {
    GpuLedgerInput sib = in;
    sib.capacity = gib(22.3);
    sib.free = gib(1.52);
    sib.requested = gib(1.71);
    sib.torch_allocated = gib(19.55);
    sib.torch_reserved = gib(19.55) + mib(244.94);
    sib.holders = {holder(29153, mib(248)), holder(162529, mib(248)), holder(162519, gib(20.28))};
    const auto j = decide_ledger(sib);
    REQUIRE(j.victim);
    CHECK(j.victim->pid == 162519);
    REQUIRE(j.culprit);
    CHECK(j.culprit->role == "job");
  }
  SECTION("two entries as large as the pool: no guess") {
    GpuLedgerInput two = in;
    two.capacity = gib(80);
    two.holders = {holder(1, gib(16)), holder(2, gib(17))};
    const auto j = decide_ledger(two);
    CHECK_FALSE(j.victim);
  }
}

TEST_CASE("ledger: NVML's 0 bytes for this process next to gigabytes allocated is not an empty process",
          "[ledger][rules]") {
  GpuLedgerInput in;
  in.capacity = gib(21.96);
  in.free = gib(1.29);
  in.requested = gib(1.88);
  in.self_reported = 0;
  in.torch_allocated = gib(19.02);
  in.torch_reserved = gib(19.02 + 1.32);
  in.self_pid = 2421;
  in.holders = {holder(2421, 0)};
  const auto r = decide_ledger(in);
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "job");
  CHECK(r.culprit->pid == 2421);
  REQUIRE(r.budget.job);
  CHECK(*r.budget.job == gib(19.02 + 1.32));
}

TEST_CASE("ledger: sibling ranks' small contexts are the job's, one holder group", "[ledger][rules]") {
  GpuLedgerInput in;
  in.multi_rank = true;
  in.capacity = gib(39.49);
  in.free = mib(321);
  in.requested = mib(572);
  in.self_reported = gib(37.46);
  in.holders = {holder(3721648, mib(414)), holder(1374765, mib(414)), holder(1374763, mib(414))};
  const auto r = decide_ledger(in);
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "job");
  CHECK(r.confidence == Confidence::high);
  bool group = false;
  for (const auto& g : r.budget.holders)
    if (g.group == "sibling ranks' contexts") {
      group = true;
      CHECK(g.role == "job");
      CHECK(g.pids.size() == 3);
      CHECK(g.bytes == 3 * mib(414));
    }
  CHECK(group);
}

TEST_CASE("ledger: on unified memory the unexplained rest is the host's, not a foreign GPU process", "[ledger][rules]") {
  GpuLedgerInput in;
  in.unified = true;
  in.capacity = gib(119.7);
  in.free = gib(1);
  in.requested = gib(4);
  in.self_reported = gib(20);
  const auto r = decide_ledger(in);
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "job");
  CHECK(r.budget.domain == "unified");
}

TEST_CASE("ledger rule job-itself: no figure for the job's own memory is not high", "[ledger][rules]") {
  // c10's allocator line gives only request, free and total: the used memory is nobody's.
  GpuLedgerInput in;
  in.host = "node";
  in.gpu = 0;
  in.capacity = gib(79.18);
  in.free = mib(119.5);
  in.requested = mib(260);
  in.self_pid = 2604;
  auto r = decide_ledger(in);
  CHECK(r.rule == ledger_rule::kJobItself);
  CHECK(r.confidence == Confidence::medium);
  // Look-alike: PyTorch's own figures fill the GPU — the ledger accounts for it: high.
  auto full = decide_ledger(torch1(10.76, 9.9, 12, 10.1, 260));
  CHECK(full.rule == ledger_rule::kJobItself);
  CHECK(full.confidence == Confidence::high);
}

// context-create-failed at the first CUDA use: an error asking for no size next to a frame of kind
// cuda_first_use (lazy init, a device query) — the loader sets FailureStage::context_create.
TEST_CASE("ledger rule context-create-failed: out of memory before the process allocated anything", "[ledger][rules]") {
  GpuLedgerInput in;
  in.host = "node";
  in.stage = FailureStage::context_create;
  const auto r = decide_ledger(in);
  CHECK(r.rule == ledger_rule::kContextCreate);
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "foreign");
  CHECK_FALSE(r.culprit->pid);
  CHECK(r.confidence == Confidence::medium);
  CHECK_THAT(r.reason, Catch::Contains("first use of the device"));

  SECTION("a multi-rank job: its own sibling ranks may hold the device, so no other holder is proven") {
    in.multi_rank = true;
    const auto m = decide_ledger(in);
    CHECK(m.rule == ledger_rule::kJobItself);
    REQUIRE(m.culprit);
    CHECK(m.culprit->role == "job");
  }
  SECTION("the same error while the process runs (no first-use frame) is the job's") {
    in.stage = FailureStage::running;
    CHECK(decide_ledger(in).rule == ledger_rule::kJobItself);
  }
  SECTION("a process list of the device decides instead (the holders are named there)") {
    in.holders.push_back(holder(4242, gib(10), "foreign"));
    in.capacity = gib(16);
    in.free = mib(20);
    CHECK(decide_ledger(in).rule != ledger_rule::kContextCreate);
  }
}

// job-itself with other holders covering the shortfall, none proven foreign: the job dominates,
// so it is named at medium, and the reason says how much the others hold and how to check them.
TEST_CASE("ledger rule job-itself: unknown holders covering the shortfall are named, never called small", "[ledger][rules]") {
  GpuLedgerInput in;
  in.host = "node";
  in.gpu = 0;
  in.capacity = gib(40);
  in.free = mib(300);
  in.requested = gib(1.19) + mib(300);
  in.self_reported = gib(20.5);
  in.holders.push_back(holder(1772201, gib(16), "unknown", false));
  const auto r = decide_ledger(in);
  CHECK(r.rule == ledger_rule::kJobItself);
  CHECK(r.confidence == Confidence::medium);
  CHECK_THAT(r.reason, Catch::Contains("other processes hold 16.00 GiB"));
  CHECK_THAT(r.reason, Catch::Contains("ps -o user,lstart,cmd -p 1772201"));
  CHECK_THAT(r.reason, !Catch::Contains("small"));

  SECTION("the same holder proven foreign is the culprit, though the job holds more (the seed)") {
    in.holders[0].role = "foreign";
    in.holders[0].why = "a vLLM process, while the job runs SGLang";
    const auto f = decide_ledger(in);
    CHECK(f.rule == ledger_rule::kForeignHolder);
    REQUIRE(f.culprit);
    CHECK(*f.culprit->pid == 1772201);
    CHECK(f.confidence == Confidence::high);
  }
}

// ranks-share-gpu: the failing rank's siblings (the job's, by torchrun's own lines) each hold more
// than a context on the same GPU: the job's processes filled it together. The advice pins each
// rank to its own device instead of "shard it over more GPUs".
TEST_CASE("ledger rule ranks-share-gpu: the job's own ranks fill one device together", "[ledger][rules]") {
  GpuLedgerInput in;
  in.host = "gpu-node-07";
  in.gpu = 0;
  in.capacity = gib(79.14);
  in.free = gib(9.12);
  in.requested = gib(13.5);
  in.self_reported = gib(23.18);
  in.self_pid = 51882;
  in.multi_rank = true;
  in.holders.push_back(holder(51880, gib(23.41), "job"));
  in.holders.push_back(holder(51881, gib(23.40), "job"));
  const auto r = decide_ledger(in);
  CHECK(r.rule == ledger_rule::kRanksShareGpu);
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "job");
  CHECK(*r.culprit->pid == 51882);
  CHECK_THAT(r.reason, Catch::Contains("pids 51880, 51881"));
  const std::string advice = culprit_action(r.culprit, "", "FOOTPRINT", &r.budget);
  CHECK_THAT(advice, Catch::Contains("torch.cuda.set_device(LOCAL_RANK)"));
  CHECK_THAT(advice, !Catch::Contains("FOOTPRINT"));

  SECTION("siblings holding a context each are not ranks sharing the device") {
    in.holders = {holder(51880, mib(600), "job"), holder(51881, mib(600), "job")};
    CHECK(decide_ledger(in).rule != ledger_rule::kRanksShareGpu);
  }
  SECTION("holders nobody placed are not the job's ranks") {
    in.holders = {holder(51880, gib(23.41)), holder(51881, gib(23.40))};
    CHECK(decide_ledger(in).rule != ledger_rule::kRanksShareGpu);
  }
}

// unattributed-holder: no figure at all for what the failing process holds (an allocator line
// giving only the request, free and total), and a holder no log places covers the shortfall:
// it is named, as `unknown`, at medium — never foreign without evidence.
TEST_CASE("ledger rule unattributed-holder: a large unplaced holder and no figure for the job", "[ledger][rules]") {
  GpuLedgerInput in;
  in.host = "node";
  in.gpu = 0;
  in.capacity = gib(24);
  in.free = mib(200);
  in.requested = mib(512);
  in.holders.push_back(holder(7311, gib(20), "unknown", false));
  const auto r = decide_ledger(in);
  CHECK(r.rule == ledger_rule::kUnknownHolder);
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "unknown");
  CHECK(*r.culprit->pid == 7311);
  CHECK(r.confidence == Confidence::medium);

  SECTION("under 1 GiB it is no culprit") {
    in.holders = {holder(7311, mib(900), "unknown", false)};
    CHECK(decide_ledger(in).rule != ledger_rule::kUnknownHolder);
  }
  SECTION("with a figure for the job, the listed-process row decides instead") {
    in.self_reported = gib(3);
    CHECK(decide_ledger(in).rule == ledger_rule::kListedOther);
  }
}

// A bare CUDA runtime error (no request, no allocator figures: nothing says what the failing
// process holds) on a GPU that a table snapshot shows nearly full with no process listed: the
// memory is held by processes that view cannot show (another container's, another user's
// namespace). Look-alikes: a process listed, the GPU not nearly full, a figure for the job,
// unified memory, a multi-rank job.
TEST_CASE("ledger rule invisible-holder: a full GPU with no process listed, the job's share unknown", "[ledger][rules]") {
  GpuLedgerInput in;
  in.host = "node";
  in.gpu = 0;
  in.capacity = mib(16130);
  in.free = mib(16130 - 15514);
  in.from_snapshot = true;
  auto r = decide_ledger(in);
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "foreign");
  CHECK_FALSE(r.culprit->pid);
  CHECK(r.rule == ledger_rule::kInvisibleHolder);
  CHECK(r.confidence == Confidence::medium);
  CHECK_THAT(r.reason, Catch::Contains("96% used"));

  SECTION("a listed holder decides instead") {
    GpuLedgerInput listed = in;
    listed.holders.push_back(holder(77, mib(15000), "unknown", false));
    CHECK(decide_ledger(listed).rule != ledger_rule::kInvisibleHolder);
  }
  SECTION("not nearly full") {
    GpuLedgerInput half = in;
    half.free = mib(8000);
    CHECK(decide_ledger(half).rule != ledger_rule::kInvisibleHolder);
  }
  SECTION("a figure for the job (PyTorch reserved)") {
    GpuLedgerInput own = in;
    own.torch_reserved = gib(14.5);
    CHECK(decide_ledger(own).rule != ledger_rule::kInvisibleHolder);
  }
  SECTION("figures from the error itself, not a table: no view to be blind") {
    GpuLedgerInput quoted = in;
    quoted.from_snapshot = false;
    CHECK(decide_ledger(quoted).rule != ledger_rule::kInvisibleHolder);
  }
  SECTION("unified memory or a multi-rank job") {
    GpuLedgerInput uni = in;
    uni.unified = true;
    CHECK(decide_ledger(uni).rule != ledger_rule::kInvisibleHolder);
    GpuLedgerInput ranks = in;
    ranks.multi_rank = true;
    CHECK(decide_ledger(ranks).rule != ledger_rule::kInvisibleHolder);
  }
}

// rocm-smi's concise table gives a GPU's VRAM% and nothing else (no bytes, no processes): a full
// GPU by that share reaches the same rule. Look-alikes: below 90 %, a share beside byte figures
// (the bytes decide), a listed holder.
TEST_CASE("ledger rule invisible-holder: a monitor's VRAM% alone, no bytes", "[ledger][rules]") {
  GpuLedgerInput in;
  in.host = "node";
  in.gpu = 1;
  in.used_percent = 97;
  in.from_snapshot = true;
  auto r = decide_ledger(in);
  REQUIRE(r.culprit);
  CHECK(r.rule == ledger_rule::kInvisibleHolder);
  CHECK(r.confidence == Confidence::medium);
  CHECK_THAT(r.reason, Catch::Contains("GPU 1 was 97% used in the snapshot"));

  SECTION("below 90 %") {
    GpuLedgerInput low = in;
    low.used_percent = 89;
    CHECK(decide_ledger(low).rule != ledger_rule::kInvisibleHolder);
  }
  SECTION("byte figures decide over a share") {
    GpuLedgerInput bytes = in;
    bytes.capacity = mib(16130);
    bytes.free = mib(8000);
    CHECK(decide_ledger(bytes).rule != ledger_rule::kInvisibleHolder);
  }
  SECTION("a listed holder decides instead") {
    GpuLedgerInput listed = in;
    listed.holders.push_back(holder(77, mib(15000), "unknown", false));
    CHECK(decide_ledger(listed).rule != ledger_rule::kInvisibleHolder);
  }
}

// vLLM's start-up / KV-cache check came up short and the inputs say a second engine shares the
// GPU: the other instance's memory is what the new one lacks. Look-alikes: no such line, or a
// failure that is neither a start-up check nor a KV budget (a running job's allocation).
TEST_CASE("ledger rule second-instance: an engine's check beside a second instance on the GPU", "[ledger][rules]") {
  GpuLedgerInput in;
  in.host = "node";
  in.gpu = 0;
  in.kv_budget = true;
  in.second_instance = "prose.txt:3";
  auto r = decide_ledger(in);
  REQUIRE(r.culprit);
  CHECK(r.culprit->role == "foreign");
  CHECK(r.rule == ledger_rule::kSecondInstance);
  CHECK(r.confidence == Confidence::medium);
  CHECK_THAT(r.reason, Catch::Contains("prose.txt:3"));

  GpuLedgerInput quiet = in;
  quiet.second_instance.clear();
  CHECK(decide_ledger(quiet).rule == ledger_rule::kJobItself);
  GpuLedgerInput running = in;
  running.kv_budget = false;
  CHECK(decide_ledger(running).rule != ledger_rule::kSecondInstance);
}

}  // namespace ledger_rules_tests
