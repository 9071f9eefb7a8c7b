// An empty timeline in memory, with culprit's schema: what a store test writes into.
#pragma once

#include <catch2/catch.hpp>

#include <memory>
#include <string>

#include "culprit/store/database.hpp"

namespace culprit::test {

inline std::unique_ptr<store::Database> empty_timeline() {
  std::string error;
  auto db = store::Database::open(":memory:", error);
  REQUIRE(db);
  REQUIRE(db->ensure_schema().empty());
  return db;
}

}  // namespace culprit::test
