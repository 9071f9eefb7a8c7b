// How many threads an incident of `culprit scan` may parse its big inputs with.
#pragma once

#include <algorithm>
#include <cstddef>

namespace culprit::cli {

/// The threads an incident starting now gets: `jobs` cores shared by the incidents that will run
/// beside it. Those are the ones not done yet (this one, those still running, those still to
/// start), at most one per worker (`workers`). The incidents after this one alone would leave out
/// those still running: with 2 cores and 2 incidents the second one started asked for both while
/// the first ran (three busy threads on two cores, and its inputs parsed through a recording
/// that costs a copy of every event). At least 1.
constexpr unsigned incident_threads(unsigned jobs, std::size_t workers, std::size_t not_done) {
  const std::size_t sharing = std::max<std::size_t>(1, std::min(workers, not_done));
  return std::max(1u, static_cast<unsigned>(jobs / sharing));
}

}  // namespace culprit::cli
