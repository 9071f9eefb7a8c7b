// The CUDA culprit policy: one function per row of ARCHITECTURE.md's "Ledger rules" table, tried
// in the table's order over the ledger's arithmetic (ledger_account.hpp); the first row that
// holds decides, and its id is `budget.rule`. Pure over records, each row unit-tested in
// tests/unit/diagnose/test_ledger_rules.cpp.
//
// Thresholds: a display server (type G) never is the culprit, and a holder under both 1 GiB and a
// tenth of the GPU is a bystander when the job fills the GPU (a 600 MiB notebook next to a 22 GiB
// server did not cause the OOM, even if freeing it would have made room). A holder "covers the
// shortfall" when freeing it would have let the request fit. Relative size is never ownership:
// only the roles' positive evidence makes a holder foreign.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <iterator>

#include "culprit/core/size.hpp"
#include "ledger_account.hpp"

namespace culprit::diagnose {
namespace {

/// What a row concludes.
struct Decision {
  const char* rule;
  std::optional<ProcessRef> culprit;
  Confidence confidence;
  std::string reason;
  bool by_default = false;  ///< nothing known: LedgerResult::by_default
};

using Row = std::optional<Decision> (*)(LedgerAccount&);

/// The failing process as the job's culprit.
/// A listed holder as the culprit, with the role the rule gives it.
ProcessRef holder_ref(const LedgerAccount& a, const Holder& h, std::string role, std::string why) {
  ProcessRef p{a.in->host, h.pid, h.name, std::move(role), std::move(why), h.container};
  p.outside_view = h.outside_view;
  return p;
}

ProcessRef the_job(const LedgerAccount& a) {
  return ProcessRef{a.in->host, a.victim_pid, a.self_name, "job", "the job's own allocations exhausted the GPU", ""};
}

/// Memory no listed process accounts for, beyond the context bound, large enough to be another
/// holder's: it covers the shortfall and is a tenth of the GPU or more (below that the bound's own
/// uncertainty and driver / display reservations can explain it).
bool large_rest(const LedgerAccount& a) {
  const Budget& b = a.out.budget;
  return a.beyond && b.total && *a.beyond >= a.need && *a.beyond * 10 >= *b.total;
}

/// The job's confidence when the job is the culprit: high only when the ledger accounts for the
/// GPU — total and free known, some figure for what the job (or a listed process) holds, nothing
/// large unexplained, and the framework's figures fit the device (more than the device is a spill
/// into shared memory, WDDM); else medium.
Confidence job_confidence(const LedgerAccount& a) {
  const Budget& b = a.out.budget;
  const bool impossible = b.total && a.own && *a.own > *b.total;
  if (!(b.total && b.free && (a.self_held || !a.sorted.empty())) || large_rest(a) || impossible) return Confidence::medium;
  return Confidence::high;
}

/// foreign-holder: a holder the roles call foreign (with reasons) covers the shortfall.
std::optional<Decision> foreign_holder(LedgerAccount& a) {
  const Budget& b = a.out.budget;
  for (const auto& h : a.sorted) {
    if (h.role != "foreign" || h.type == "G" || !a.significant(h.bytes) || h.bytes < a.need) continue;
    return Decision{ledger_rule::kForeignHolder, holder_ref(a, h, "foreign", h.why),
                    Confidence::high,
                    fmt::format("pid {}{} holds {}, more than the {} shortfall{}", h.pid, h.name.empty() ? "" : " " + h.name,
                                core::format_size(h.bytes), b.shortfall ? core::format_size(*b.shortfall) : "?",
                                // NVML's own figure for the failing process tells its memory apart
                                // from the holder's: the holder's bytes are not the job's.
                                a.self_reported
                                    ? fmt::format(" (apart from the failing process's own {}, \"this process has\")",
                                                  core::format_size(*a.self_reported))
                                    : std::string())};
  }
  return std::nullopt;
}

/// foreign-holders: foreign compute holders (no display servers) together cover the shortfall.
std::optional<Decision> foreign_holders(LedgerAccount& a) {
  std::int64_t compute_foreign = 0;
  for (const auto& h : a.sorted)
    if (h.role == "foreign" && h.type != "G") compute_foreign += h.bytes;
  if (compute_foreign <= 0 || compute_foreign < a.need || !a.significant(compute_foreign)) return std::nullopt;
  const auto largest = std::find_if(a.sorted.begin(), a.sorted.end(),
                                    [](const Holder& h) { return h.role == "foreign" && h.type != "G"; });
  return Decision{ledger_rule::kForeignHolders,
                  holder_ref(a, *largest, "foreign", largest->why),
                  Confidence::medium,
                  fmt::format("foreign processes together hold {}, more than the shortfall", core::format_size(compute_foreign))};
}

/// listed-other-process: the error lists a process apart from "this process" that covers the
/// shortfall, is more than a context, and holds at least as much as the failing process — a named
/// holder beats an unnamed one. When the job holds more, its own footprint filled the GPU.
std::optional<Decision> listed_other_process(LedgerAccount& a) {
  if (!a.self_held) return std::nullopt;
  for (const auto& h : a.sorted) {
    if (h.role != "unknown" || h.type == "G" || !a.significant(h.bytes) || h.bytes < a.need || h.bytes < *a.self_held)
      continue;
    return Decision{ledger_rule::kListedOther,
                    holder_ref(a, h, "foreign",
                               fmt::format("holds {} on the failing GPU, listed apart from the failing process ({}); no "
                                           "log ties it to the job",
                                           core::format_size(h.bytes), core::format_size(*a.self_held))),
                    Confidence::medium,
                    fmt::format("pid {} holds {} on the same GPU, more than the failing process's own {} and more than "
                                "the {} shortfall: freeing it would have let the request fit",
                                h.pid, core::format_size(h.bytes), core::format_size(*a.self_held),
                                fs(a.out.budget.shortfall))};
  }
  return std::nullopt;
}

/// unattributed-holder: no figure for the job at all, and an unknown holder of 1 GiB or more
/// covers the shortfall: nothing says whose it is.
std::optional<Decision> unattributed_holder(LedgerAccount& a) {
  if (a.self_held) return std::nullopt;
  for (const auto& h : a.sorted) {
    if (h.role != "unknown" || h.bytes < a.need || h.bytes < kGiB) continue;
    return Decision{ledger_rule::kUnknownHolder, holder_ref(a, h, "unknown", h.why),
                    Confidence::medium,
                    fmt::format("pid {} holds {} on the same GPU; no log says whether it belongs to the job", h.pid,
                                core::format_size(h.bytes))};
  }
  return std::nullopt;
}

/// unaccounted-holder (running) / startup-check-holder (a start-up check or the first CUDA use):
/// capacity − free beyond what the job holds (plus the context bound where the figure lacks it)
/// and every listed holder is another holder's when it is a large rest (large_rest) and exceeds
/// the job's own share (else the job is the dominant holder). Not on unified memory: there the
/// rest is the host's own use. The inferred holder becomes a ledger line of its own.
std::optional<Decision> inferred_holder(LedgerAccount& a) {
  const GpuLedgerInput& in = *a.in;
  Budget& b = a.out.budget;
  if (b.unified || !large_rest(a) || *a.beyond <= *a.self_held) return std::nullopt;
  const std::int64_t beyond = *a.beyond;
  const bool startup = in.stage != FailureStage::running;
  const std::string why = startup ? fmt::format("{} of the GPU was in use before the failing process allocated anything",
                                                core::format_size(*b.total - *b.free))
                                  : fmt::format("the GPU has {} in use, the failing process only {}{}",
                                                core::format_size(*b.total - *b.free), core::format_size(*a.self_held),
                                                a.bounded ? " (plus at most 1 GiB of context)" : "");
  // foreign, unnamed; the rest keeps the bound.
  b.foreign = a.foreign + beyond;
  b.unexplained = b.unexplained.value_or(0) - beyond;
  for (auto it = b.entries.begin(); it != b.entries.end(); ++it)
    if (it->role == "rest") {
      it->bytes = *b.unexplained;
      b.entries.insert(it, {"foreign: an unnamed holder (inferred from the arithmetic)", "foreign", std::nullopt, beyond});
      break;
    }
  b.holders.push_back({"unnamed holder (inferred)", "foreign", {}, beyond});
  if (a.sum_line) b.arithmetic[*a.sum_line] = worked_sum(b);  // the sum says what the table says
  b.arithmetic.push_back(fmt::format("held by no listed process: {} (beyond the failing process{}){}", fs(beyond),
                                     a.bounded ? " and its context bound" : "",
                                     b.shortfall ? fmt::format(" >= shortfall {}", fs(b.shortfall)) : std::string()));
  return Decision{startup ? ledger_rule::kStartupCheck : ledger_rule::kUnaccounted,
                  ProcessRef{in.host, std::nullopt, "", "foreign", why, ""}, Confidence::medium,
                  fmt::format("another process holds about {} of the GPU that the failing process does not ({}); no "
                              "process list names it — find it with `nvidia-smi "
                              "--query-compute-apps=pid,used_memory --format=csv` on {}",
                              core::format_size(beyond), why, in.host.empty() ? "the node" : in.host)};
}

/// context-create-failed: creating the CUDA context ran out of memory, at the process's first
/// CUDA use (a cuCtxCreate frame, lazy init, a device query). The process held nothing yet, so
/// the device was full before it: another process's memory — unless the job's own sibling ranks
/// may hold it (a multi-rank job), which the inputs cannot tell apart.
std::optional<Decision> context_create_failed(LedgerAccount& a) {
  const GpuLedgerInput& in = *a.in;
  if (in.stage != FailureStage::context_create || a.out.budget.total || !a.sorted.empty() || in.multi_rank)
    return std::nullopt;
  return Decision{ledger_rule::kContextCreate,
                  ProcessRef{in.host, std::nullopt, "", "foreign",
                             "the GPU had no room for a new CUDA context before the process allocated anything", ""},
                  Confidence::medium,
                  "creating the CUDA context failed for lack of memory, at the process's first use of the device: the "
                  "process held nothing yet, so another process holds the GPU — find it with `nvidia-smi "
                  "--query-compute-apps=pid,used_memory --format=csv`"};
}

/// invisible-holder: a bare CUDA error (no request, no allocator figures: nothing says what the
/// failing process holds) on a GPU that a table snapshot (nvidia-smi, gpustat, nvitop, rocm-smi,
/// amd-smi; rocm-smi's concise table by its VRAM% alone) shows at least 90% used with no process listed: the memory is held where that view cannot see (another
/// container's or user's processes; nvidia-smi inside a container lists none of the host's).
/// Medium: a snapshot taken while the job itself ran in a container would look the same. Not on
/// unified memory, MIG, or for one rank of several (its siblings may hold the device).
std::optional<Decision> invisible_holder(LedgerAccount& a) {
  const GpuLedgerInput& in = *a.in;
  const Budget& b = a.out.budget;
  if (!in.from_snapshot || in.stage != FailureStage::running || in.requested || a.self_held || a.own ||
      !a.sorted.empty() || b.unified || in.mig || in.multi_rank)
    return std::nullopt;
  // Bytes when the snapshot has them; else a monitor's own percentage (rocm-smi's concise VRAM%).
  std::int64_t pct = 0;
  std::string figures;
  if (b.total && b.free && *b.total > 0) {
    const std::int64_t used = *b.total - *b.free;
    if (used * 10 < *b.total * 9) return std::nullopt;
    pct = used * 100 / *b.total;
    figures = fmt::format(" ({} of {})", core::format_size(used), core::format_size(*b.total));
  } else if (!b.total && in.used_percent && *in.used_percent >= 90) {
    pct = *in.used_percent;
    a.out.share_only = true;
    a.out.budget.arithmetic.push_back(
        fmt::format("GPU {}: {}% of its memory in use, as the monitor gives it (a share, no bytes)", in.gpu.value_or(0), pct));
  } else {
    return std::nullopt;
  }
  return Decision{ledger_rule::kInvisibleHolder,
                  ProcessRef{in.host, std::nullopt, "", "foreign",
                             fmt::format("GPU {} was {}% used with no process listed", in.gpu.value_or(0), pct), ""},
                  Confidence::medium,
                  fmt::format("GPU {} was {}% used{} in the snapshot with no process listed, and the error "
                              "names nothing the failing process held: processes that view does not show (another "
                              "container's or user's) hold it — list them on the host with {}",
                              in.gpu.value_or(0), pct, figures,
                              in.amd_monitor ? "`amd-smi process` (or `rocm-smi --showpids`) or `fuser -v /dev/kfd`"
                                             : "`nvidia-smi --query-compute-apps=pid,used_memory --format=csv` or "
                                               "`fuser -v /dev/nvidia*`")};
}

/// second-instance: a serving engine's start-up or KV-cache check came up short and the inputs
/// say a second engine shares that GPU (another instance, another model's server: a line that
/// provides `second_instance`), and no listed holder or figure decided above: the other
/// instance's memory is what the new one lacks (vLLM up to 0.8 charges all memory in use on the
/// device to the instance starting; two started together charge each other). Medium: the
/// inputs say it, no snapshot measures it.
std::optional<Decision> second_instance(LedgerAccount& a) {
  const GpuLedgerInput& in = *a.in;
  if (in.second_instance.empty() || (in.stage != FailureStage::startup_check && !in.kv_budget)) return std::nullopt;
  return Decision{ledger_rule::kSecondInstance,
                  ProcessRef{in.host, std::nullopt, "", "foreign",
                             fmt::format("a second engine instance on the same GPU ({})", in.second_instance), ""},
                  Confidence::medium,
                  fmt::format("the inputs say a second engine shares this GPU ({}): its memory is what the starting "
                              "engine's check came up short by — the engine counts memory already in use on the device "
                              "against its own budget; start one engine per GPU, or give each a share that fits beside "
                              "the other (and start them one after another)",
                              in.second_instance)};
}

/// job-itself, others covering the shortfall: holders of unknown ownership (or bystanders:
/// display servers, small contexts) together cover it, none of them both proven foreign and
/// large enough: the job dominates, so it is named at medium, and the reason says how much the
/// others hold and how to check them. A foreign proof would have named the holder above.
std::optional<Decision> job_beside_unplaced_holders(LedgerAccount& a) {
  Budget& b = a.out.budget;
  const std::int64_t others = a.foreign + a.unknown;
  if (others <= 0 || others < a.need || !b.shortfall) return std::nullopt;
  // The holders nobody has placed, largest first: the ones worth checking.
  std::vector<std::string> pids;
  for (const auto& h : a.sorted)
    if (h.role == "unknown" && h.type != "G" && pids.size() < 3) pids.push_back(std::to_string(h.pid));
  const std::string check =
      pids.empty() ? std::string()
                   : fmt::format("; check who owns {} (`ps -o user,lstart,cmd -p {}`): memory that is not the job's "
                                 "took the room the request lacked",
                                 fmt::format("{} {}", pids.size() == 1 ? "pid" : "pids", fmt::join(pids, ", ")),
                                 fmt::join(pids, ","));
  b.arithmetic.push_back(fmt::format("other processes hold {} >= shortfall {}, but none is both proven foreign (by "
                                     "another program, user, container or time) and large enough to be the cause: "
                                     "the job, which holds more, is named",
                                     core::format_size(others), core::format_size(*b.shortfall)));
  return Decision{ledger_rule::kJobItself, the_job(a), Confidence::medium,
                  fmt::format("the job holds {} of the GPU; other processes hold {} — without them the request would "
                              "have fit, but none is both proven foreign and large enough to be the cause{}",
                              core::format_size(a.job), core::format_size(others), check)};
}

/// ranks-share-gpu: other processes of the job (sibling ranks, workers) hold more than a context
/// each on the failing GPU: the job's own processes filled it together, the usual sign of ranks
/// placed on one device (no set_device / CUDA_VISIBLE_DEVICES per rank).
std::optional<Decision> ranks_share_gpu(LedgerAccount& a) {
  std::vector<std::string> siblings;
  std::int64_t sibling_bytes = 0;
  for (const auto& h : a.sorted)
    if (h.role == "job" && h.bytes > kContextBound) siblings.push_back(std::to_string(h.pid)), sibling_bytes += h.bytes;
  if (siblings.empty() || large_rest(a)) return std::nullopt;
  const bool one = siblings.size() == 1;
  return Decision{ledger_rule::kRanksShareGpu, the_job(a), job_confidence(a),
                  fmt::format("the job's own processes filled GPU {}: besides the failing process ({}), {} other "
                              "process{} of the job (pid{} {}) hold{} {} on the same device",
                              a.in->gpu.value_or(0), fs(a.self_held), siblings.size(), one ? "" : "es", one ? "" : "s",
                              fmt::join(siblings, ", "), one ? "s" : "", core::format_size(sibling_bytes))};
}

/// job-itself: nothing else explains it; the reason says what the ledger knows.
std::optional<Decision> job_itself(LedgerAccount& a) {
  const GpuLedgerInput& in = *a.in;
  const Budget& b = a.out.budget;
  std::string reason;
  if (large_rest(a)) {
    reason = fmt::format("the job itself holds {} of the GPU's {}, the largest share; {} is not accounted for, less "
                         "than the job's own",
                         fs(a.self_held), fs(b.total), fs(a.beyond));
  } else if (!a.sorted.empty()) {
    reason = "no other process holds enough memory to explain the failure: the job itself needs more than the GPU has";
  } else if (in.mig && b.total && a.self_held && *a.self_held > 0) {
    reason = fmt::format("the job itself holds {} of its MIG instance's {}; the processes of the GPU's other "
                         "MIG instances do not use that memory",
                         core::format_size(*a.self_held), core::format_size(*b.total));
  } else if (b.total && a.self_held && *a.self_held > 0) {
    reason = fmt::format("the job itself holds {} of the GPU's {}; the inputs hold no process list of that GPU, so "
                         "another holder could only hide in the {} not accounted for",
                         core::format_size(*a.self_held), core::format_size(*b.total),
                         core::format_size(std::max<std::int64_t>(0, b.unexplained.value_or(0))));
  } else if (in.stage == FailureStage::startup_check && b.total && b.free) {
    reason = fmt::format("{} of the GPU was in use at the start-up check, within what the engine's own context and "
                         "libraries can hold: the engine asks for more than the GPU has",
                         core::format_size(*b.total - *b.free));
  } else {
    reason = "no other holder of that GPU is known (the inputs hold no process list of it), so the likeliest "
             "culprit is the job itself, asking for more than the GPU had free";
    if (!b.total && !b.requested && in.stage == FailureStage::running)
      return Decision{ledger_rule::kJobItself, the_job(a), job_confidence(a), reason, true};
  }
  return Decision{ledger_rule::kJobItself, the_job(a), job_confidence(a), reason};
}

/// The policy table, in ARCHITECTURE.md's order: the first row that holds decides. The last
/// always does.
constexpr Row kPolicy[] = {foreign_holder,        foreign_holders,  listed_other_process,
                           unattributed_holder,   inferred_holder,  context_create_failed,
                           invisible_holder,      second_instance,  job_beside_unplaced_holders,
                           ranks_share_gpu,       job_itself};

}  // namespace

LedgerResult decide_ledger(const GpuLedgerInput& in) {
  LedgerAccount a = account_ledger(in);
  for (const Row row : kPolicy) {  // the last row always decides
    std::optional<Decision> d = row(a);
    if (!d) continue;
    a.out.rule = d->rule;
    a.out.budget.rule = d->rule;
    a.out.culprit = std::move(d->culprit);
    a.out.confidence = d->confidence;
    a.out.reason = std::move(d->reason);
    a.out.by_default = d->by_default;
    a.out.budget.arithmetic.push_back(fmt::format("rule {}: {}", a.out.rule, a.out.reason));
    break;
  }
  return std::move(a.out);
}

}  // namespace culprit::diagnose
