// Advice for a CUDA OOM's culprit (see advice.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/diagnose/finding.hpp"

namespace culprit::diagnose {

/// A GPU-memory setting the job's own logs echo (a signal providing `memory_setting`,
/// core/facts.hpp), where the first line says it (`train.log:1`).
struct JobSetting {
  std::string setting, value, place;
};

/// What the failure event's signal declares about the job's footprint: the framework that
/// printed it, whether it is a serving engine's KV-cache budget (`kv_cache_budget`) and the
/// context length the engine estimated would fit.
struct FootprintFacts {
  std::string framework;
  bool kv_budget = false;
  std::string estimated_len;
};

/// The one name of a setting the job's logs may spell two ways: a command line's
/// `--gpu-memory-utilization` and the engine's own `gpu_memory_utilization` (its config key, as
/// its start-up lines print it) are the same knob, so `-` becomes `_`; case stays (environment
/// variables are upper-case). The advice still names a setting as its first line spells it.
std::string setting_name(std::string_view as_logged);

/// The job's own GPU-memory settings (load.hpp's load_job_settings), as advice:
/// "XLA_PYTHON_CLIENT_MEM_FRACTION=0.95 (train.log:1): <what it does>". Empty if none.
std::string job_settings_advice(const std::vector<JobSetting>& settings);

/// The knobs that lower a job's own GPU footprint, in the words of the framework whose error it
/// was (its signal's `framework`), or a KV-cache budget's two knobs, pointed the engine's way.
std::string footprint_advice(const FootprintFacts& facts);

/// What to do about a CUDA OOM's culprit, by role; `settings` is job_settings_advice() and
/// `footprint` footprint_advice() for a job culprit; `budget` gives the amount an unnamed
/// foreign holder holds (the ledger's rest beyond the context bound).
std::string culprit_action(const std::optional<ProcessRef>& c, const std::string& settings = {},
                           const std::string& footprint = {}, const Budget* budget = nullptr);

}  // namespace culprit::diagnose
