// Process roles: which processes belong to the job and which are foreign, and why.
#pragma once

#include <string>

#include "culprit/store/database.hpp"

namespace culprit::diagnose {

/// The serving / training framework a text mentions (`sglang`, `vllm`, `torchrun`, …), or ''.
std::string framework_of(std::string_view text);

/// Fills processes.role / role_why / container from job evidence, GPU holders, framework
/// mismatches and containers. Returns an error message or empty.
std::string assign_roles(store::Database& db);

}  // namespace culprit::diagnose
