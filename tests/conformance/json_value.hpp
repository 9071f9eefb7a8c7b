// A small owned JSON tree for the conformance runner: the peers' expected.json is read once with
// simdjson and kept as Json values, so evaluators can walk assertions without parser lifetimes.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace culprit::conformance {

/// One JSON value. Objects keep their keys in file order (assertion order is display order).
struct Json {
  enum class Type { null, boolean, number, string, array, object };
  Type type = Type::null;
  bool boolean = false;
  double number = 0;
  bool integral = false;  ///< the number was written without fraction or exponent
  std::string string;
  std::vector<Json> items;
  std::vector<std::pair<std::string, Json>> members;

  bool is_null() const { return type == Type::null; }
  bool is_string() const { return type == Type::string; }
  bool is_number() const { return type == Type::number; }
  bool is_bool() const { return type == Type::boolean; }
  bool is_array() const { return type == Type::array; }
  bool is_object() const { return type == Type::object; }

  /// Member `key` of an object, or nullptr.
  const Json* find(std::string_view key) const;
  /// The string of member `key` when it is a string, else `fallback`.
  std::string text(std::string_view key, std::string_view fallback = {}) const;
  /// An integer value (numbers, and strings of digits such as "955").
  std::optional<std::int64_t> as_int() const;
  /// Compact JSON text (strings quoted), for reports.
  std::string dump() const;
  /// Strings unquoted, everything else as dump().
  std::string show() const;
};

/// Parses `text`; on error returns nullopt and sets `error`.
std::optional<Json> parse_json(std::string_view text, std::string& error);

}  // namespace culprit::conformance
