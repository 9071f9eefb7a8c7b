// The GPU memory ledger at a CUDA OOM and the culprit it implies.
#pragma once

#include <optional>

#include "culprit/diagnose/finding.hpp"
#include "culprit/store/database.hpp"

namespace culprit::diagnose {

struct LedgerResult {
  Budget budget;
  std::optional<ProcessRef> culprit;
  Confidence confidence = Confidence::low;
  std::vector<Evidence> evidence;  ///< snapshot lines that back the ledger
  std::string reason;              ///< one sentence: why this culprit
};

/// Builds the ledger for the failure event `event_id` (a cuda_oom or startup_mem_check event)
/// from the figures the error quoted and the GPU snapshots of the same host and GPU nearest in
/// time, and chooses the culprit: the foreign holder whose memory covers the shortfall, else the
/// job itself.
LedgerResult build_ledger(store::Database& db, std::int64_t event_id);

}  // namespace culprit::diagnose
