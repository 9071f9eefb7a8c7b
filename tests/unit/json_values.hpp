// A simdjson element's value as the expect.json checks read it: a string, an integer.
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace culprit::test {

/// The string `v` holds (throws when it holds none).
inline std::string as_str(simdjson::dom::element v) { return std::string(std::string_view(v.get_string().value())); }

/// The integer `v` holds (throws when it holds none).
inline std::int64_t as_int(simdjson::dom::element v) { return v.get_int64().value(); }

}  // namespace culprit::test
