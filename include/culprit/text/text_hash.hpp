// A hash of strings that a std::unordered_set / unordered_map of std::string looks up by a
// std::string_view too (with std::equal_to<>): a view of a line or of a SQLite row is found
// without a std::string made of it first.
#pragma once

#include <cstddef>
#include <functional>
#include <string_view>

namespace culprit::text {

struct TextHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view s) const noexcept { return std::hash<std::string_view>{}(s); }
};

}  // namespace culprit::text
