// The option checks every subcommand shares (src/cli/option_checks.hpp): ranges, choices, years,
// the NO_COLOR convention (only a non-empty value turns colour off) and command typos.
#include <catch2/catch.hpp>

#include <cstdlib>

#include "cli/option_checks.hpp"

namespace option_checks_tests {

using namespace culprit::cli;

TEST_CASE("numeric options have ranges", "[cli][options]") {
  CHECK(check_range("--jobs", 4, 1, 4096, "inputs").empty());
  CHECK(check_range("--jobs", -3, 1, 4096, "inputs").find("--jobs -3 is out of range") == 0);
  CHECK(check_range("--max-events", -1, 0, INT64_MAX, "events").find("0 or more") != std::string::npos);
  CHECK(check_year("--year", 0).empty());
  CHECK(check_year("--year", 2024).empty());
  CHECK_FALSE(check_year("--year", 24).empty());
  CHECK_FALSE(check_year("--year", 99999).empty());
}

TEST_CASE("enumerations are checked", "[cli][options]") {
  CHECK(check_choice("--color", "never", {"auto", "always", "never"}).empty());
  CHECK(check_choice("--color", "sometimes", {"auto", "always", "never"}) ==
        "--color 'sometimes' is not one of: auto, always, never");
}

TEST_CASE("NO_COLOR counts only when non-empty", "[cli][options]") {
  ::unsetenv("NO_COLOR");
  CHECK(color_wanted("auto", false, true));
  ::setenv("NO_COLOR", "", 1);
  CHECK(color_wanted("auto", false, true));
  ::setenv("NO_COLOR", "1", 1);
  CHECK_FALSE(color_wanted("auto", false, true));
  CHECK(color_wanted("always", false, false));
  ::unsetenv("NO_COLOR");
  CHECK_FALSE(color_wanted("auto", true, true));  // a report written to a file
  CHECK_FALSE(color_wanted("auto", false, false));
  CHECK_FALSE(color_wanted("never", false, true));
}

TEST_CASE("a command's typo gets a suggestion, a path or a far word does not", "[cli][options]") {
  const std::vector<std::string> commands{"diagnose", "timeline", "query", "rules", "scan", "merge", "run", "collect"};
  CHECK(near_command("scna", commands) == "scan");
  CHECK(near_command("diagnsoe", commands) == "diagnose");
  CHECK(near_command("timelin", commands) == "timeline");
  CHECK(near_command("colect", commands) == "collect");
  CHECK_FALSE(near_command("logs", commands));
  CHECK_FALSE(near_command("incident", commands));
  CHECK_FALSE(near_command("scan/", commands));
  CHECK_FALSE(near_command("./scna", commands));
}

// Issue 37, finding 22: text output takes the terminal's width — $COLUMNS first (as ls reads it;
// `stty cols 60` under `script` sets the terminal's), else the terminal's, else the fallback — and
// the report never goes past its own 100 columns.
TEST_CASE("output_columns: COLUMNS, then the terminal, then the fallback, under the cap", "[cli][width]") {
  using culprit::cli::output_columns;
  CHECK(output_columns("60", 0, 100, 100) == 60);
  CHECK(output_columns("60", 200, 100, 100) == 60);   // COLUMNS over the terminal's
  CHECK(output_columns(nullptr, 60, 100, 100) == 60);  // a 60-column pane
  CHECK(output_columns(nullptr, 0, 100, 100) == 100);  // a pipe or a file
  CHECK(output_columns(nullptr, 250, 100, 100) == 100);
  CHECK(output_columns(nullptr, 250, 100, 0) == 250);  // no cap (timeline)
  for (const char* bad : {"", "0", "-5", "60x", "wide"}) CHECK(output_columns(bad, 80, 100, 100) == 80);
}

}  // namespace option_checks_tests
