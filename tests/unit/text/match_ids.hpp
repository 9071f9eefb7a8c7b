// The ids of the signals a line matched, for the tests that check which signals match.
#pragma once

#include <string>
#include <vector>

#include "culprit/text/signal_set.hpp"

namespace culprit::test {

/// The id of each match's signal, in the order of `ms`.
inline std::vector<std::string> ids(const std::vector<text::SignalMatch>& ms) {
  std::vector<std::string> out;
  for (const auto& m : ms) out.push_back(m.signal->id);
  return out;
}

}  // namespace culprit::test
