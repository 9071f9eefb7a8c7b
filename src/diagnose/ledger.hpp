// The GPU memory ledger at a CUDA OOM and the culprit it implies: the loader that fills a
// GpuLedgerInput from the timeline once, then decide_ledger() (ledger_model.hpp) over it.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include "culprit/store/database.hpp"
#include "ledger_model.hpp"

namespace culprit::diagnose {

/// The records decide_ledger() needs for the failure event `event_id` (a cuda_oom or
/// startup_mem_check event): the figures the error quoted, the GPU snapshot of the same host and
/// GPU nearest in time, the holders' names and roles, the failing process. Snapshot lines that
/// back the ledger go to `evidence`.
GpuLedgerInput load_ledger_input(store::Database& db, std::int64_t event_id, std::vector<Evidence>& evidence);

/// load_ledger_input() then decide_ledger(); an unknown event gives an empty result.
LedgerResult build_ledger(store::Database& db, std::int64_t event_id);

}  // namespace culprit::diagnose
