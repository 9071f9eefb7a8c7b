// Lookup in the build-time literal table (the table itself is generated into the build tree).
#include "precomputed_literals.hpp"

#include <algorithm>

namespace culprit::rules::detail {

const PrecomputedLiterals* find_precomputed_literals(std::string_view regex) {
  const auto table = precomputed_literals();
  auto it = std::lower_bound(table.begin(), table.end(), regex,
                             [](const PrecomputedLiterals& e, std::string_view r) { return e.regex < r; });
  if (it == table.end() || it->regex != regex) return nullptr;
  return &*it;
}

}  // namespace culprit::rules::detail
