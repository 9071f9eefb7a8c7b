// Catch2 main for culprit_unit_tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
