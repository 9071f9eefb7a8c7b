// The Catch2 main for culprit_unit_tests: every tests/unit/<module>/test_*.cpp links into it.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
