// Advice for a CUDA OOM's culprit (see advice.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "culprit/diagnose/finding.hpp"
#include "culprit/store/database.hpp"

namespace culprit::diagnose {

/// The job's own GPU-memory settings its logs show on `host` (signals job_memory_setting_*), as
/// advice: "XLA_PYTHON_CLIENT_MEM_FRACTION=0.95 (train.log:1): <what it does>". Empty if none.
std::string job_settings_advice(store::Database& db, const std::string& host);

/// The knobs that lower a job's own GPU footprint, in the words of the framework whose error it
/// was (the OOM event's signal id says which).
std::string footprint_advice(store::Database& db, std::int64_t event_id);

/// What to do about a CUDA OOM's culprit, by role; `settings` is job_settings_advice() and
/// `footprint` footprint_advice() for a job culprit; `budget` gives the amount an unnamed
/// foreign holder holds (the ledger's rest beyond the context bound).
std::string culprit_action(const std::optional<ProcessRef>& c, const std::string& settings = {},
                           const std::string& footprint = {}, const Budget* budget = nullptr);

}  // namespace culprit::diagnose
