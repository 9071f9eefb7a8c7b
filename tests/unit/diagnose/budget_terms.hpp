// The sum of a budget's terms, for the ledger tests that check it adds up to the total.
#pragma once

#include <cstdint>

#include "culprit/diagnose/finding.hpp"

namespace culprit::test {

/// The budget's sum, every holder in one term (a term not set counts 0): what JSON consumers add.
inline std::int64_t terms(const diagnose::Budget& b) {
  return b.free.value_or(0) + b.job.value_or(0) + b.foreign.value_or(0) + b.unattributed.value_or(0) +
         b.host_processes.value_or(0) + b.kernel.value_or(0) + b.unexplained.value_or(0);
}

}  // namespace culprit::test
