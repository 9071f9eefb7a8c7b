// The GPU ledger's arithmetic, done once per failure over the plain GpuLedgerInput, for the
// culprit rules to read: the failing process and what it holds (NVML's "this process has", its
// holder row, or its framework's figure plus the context bound), the other holders by role,
// largest first, and the budget whose lines sum to the total. Pure, like the rules
// (ledger_rules.cpp): account_ledger() decides nothing, the policy table does.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ledger_model.hpp"

namespace culprit::diagnose {

/// A holder of the failing GPU other than the failing process, with its holder group's label
/// (its program, "pid N", or "sibling ranks' contexts").
struct Holder : GpuHolder {
  std::string group;
};

struct LedgerAccount {
  const GpuLedgerInput* in = nullptr;
  LedgerResult out;                           ///< the budget (entries, sums, arithmetic) and the victim
  std::vector<Holder> sorted;                 ///< the other holders, largest first
  std::optional<std::int64_t> self_reported;  ///< NVML's "this process has", unless NVML failed
  std::optional<std::int64_t> own;            ///< the framework's own figure (PyTorch reserved / allocated)
  std::optional<std::int64_t> self_held;      ///< what the failing process holds
  bool bounded = false;                       ///< self_held lacks the context: kContextBound on top
  std::optional<std::int64_t> victim_pid;     ///< the failing process as NVML lists it
  std::string self_name;
  std::int64_t job = 0, foreign = 0, unknown = 0;  ///< bytes by role (job: the failing process and siblings)
  std::optional<std::int64_t> rest;           ///< unexplained (never below 0), before host processes' share
  std::optional<std::int64_t> beyond;         ///< rest beyond the context bound, where it applies
  std::int64_t need = 1;                      ///< the shortfall (1 byte when unknown): what a holder must cover
  /// Where out.budget.arithmetic holds the worked sum (total = free + …): a row that moves bytes
  /// between the budget's lines (an inferred holder) rewrites it there with worked_sum().
  std::optional<std::size_t> sum_line;

  /// A holder that can matter: at least 1 GiB or a tenth of the GPU (below both it is a bystander
  /// next to a job that fills the GPU).
  bool significant(std::int64_t bytes) const;
};

/// The ledger's arithmetic for `in` (no culprit yet).
LedgerAccount account_ledger(const GpuLedgerInput& in);

/// The worked sum of `b`'s lines: "total T = free F + job J + foreign X[ + …] + unexplained U".
std::string worked_sum(const Budget& b);

/// A size, or "?" when unknown.
std::string fs(std::optional<std::int64_t> v);

}  // namespace culprit::diagnose
