// Catch2 main for culprit_unit_tests (one executable for every module's unit tests).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
