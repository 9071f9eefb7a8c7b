// The threads each incident of `culprit scan` parses its big inputs with (src/cli/scan_threads.hpp).
#include <catch2/catch.hpp>

#include "cli/scan_threads.hpp"

namespace scan_threads_tests {

using culprit::cli::incident_threads;

TEST_CASE("an incident shares the cores with every incident not done", "[cli][scan]") {
  // Two cores, two incidents, two workers: each of the two gets one core, the second one too
  // (it starts while the first still runs).
  CHECK(incident_threads(2, 2, 2) == 1);
  // The first done, the one left alone gets both.
  CHECK(incident_threads(2, 2, 1) == 2);
  // One incident: every core.
  CHECK(incident_threads(8, 1, 1) == 8);
  // Eight cores, three workers for three incidents: two each (the cores not divided evenly stay
  // with the workers' own threads).
  CHECK(incident_threads(8, 3, 3) == 2);
  // More incidents than workers: the workers share, not the incidents.
  CHECK(incident_threads(4, 4, 100) == 1);
  CHECK(incident_threads(4, 2, 100) == 2);
}

TEST_CASE("an incident gets at least one thread", "[cli][scan]") {
  CHECK(incident_threads(1, 4, 4) == 1);
  CHECK(incident_threads(2, 4, 4) == 1);
  CHECK(incident_threads(0, 1, 1) == 1);
  // The counts scan passes are never 0 (the incident starting is not done, and there is a
  // worker), but a 0 is read as 1, not divided by.
  CHECK(incident_threads(2, 2, 0) == 2);
  CHECK(incident_threads(2, 0, 2) == 2);
}

}  // namespace scan_threads_tests
