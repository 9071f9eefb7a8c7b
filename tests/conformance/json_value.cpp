// Json: simdjson DOM -> owned tree (see json_value.hpp).
#include "conformance/json_value.hpp"

#include <simdjson.h>

#include <cmath>

#include <fmt/format.h>

namespace culprit::conformance {
namespace {

Json convert(simdjson::dom::element e) {
  Json j;
  switch (e.type()) {
    case simdjson::dom::element_type::NULL_VALUE:
      break;
    case simdjson::dom::element_type::BOOL:
      j.type = Json::Type::boolean;
      j.boolean = e.get_bool().value();
      break;
    case simdjson::dom::element_type::INT64:
      j.type = Json::Type::number;
      j.number = static_cast<double>(e.get_int64().value());
      j.integral = true;
      break;
    case simdjson::dom::element_type::UINT64:
      j.type = Json::Type::number;
      j.number = static_cast<double>(e.get_uint64().value());
      j.integral = true;
      break;
    case simdjson::dom::element_type::DOUBLE:
      j.type = Json::Type::number;
      j.number = e.get_double().value();
      break;
    case simdjson::dom::element_type::STRING:
      j.type = Json::Type::string;
      j.string = std::string(std::string_view(e.get_string().value()));
      break;
    case simdjson::dom::element_type::ARRAY:
      j.type = Json::Type::array;
      {
        simdjson::dom::array array;
        if (e.get_array().get(array) == simdjson::SUCCESS)
          for (auto item : array) j.items.push_back(convert(item));
      }
      break;
    case simdjson::dom::element_type::OBJECT:
      j.type = Json::Type::object;
      {
        simdjson::dom::object object;
        if (e.get_object().get(object) == simdjson::SUCCESS)
          for (auto field : object) j.members.emplace_back(std::string(field.key), convert(field.value));
      }
      break;
  }
  return j;
}

std::string quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  return out + "\"";
}

}  // namespace

const Json* Json::find(std::string_view key) const {
  for (const auto& [k, v] : members)
    if (k == key) return &v;
  return nullptr;
}

std::string Json::text(std::string_view key, std::string_view fallback) const {
  const Json* v = find(key);
  return v != nullptr && v->is_string() ? v->string : std::string(fallback);
}

std::optional<std::int64_t> Json::as_int() const {
  if (type == Type::number && std::floor(number) == number) return static_cast<std::int64_t>(number);
  if (type == Type::string && !string.empty()) {
    std::size_t i = string[0] == '-' ? 1 : 0;
    if (i == string.size()) return std::nullopt;
    for (std::size_t k = i; k < string.size(); ++k)
      if (string[k] < '0' || string[k] > '9') return std::nullopt;
    return std::stoll(string);
  }
  return std::nullopt;
}

std::string Json::dump() const {
  switch (type) {
    case Type::null: return "null";
    case Type::boolean: return boolean ? "true" : "false";
    case Type::number:
      if (integral || (std::floor(number) == number && std::fabs(number) < 1e15))
        return fmt::format("{}", static_cast<std::int64_t>(number));
      return fmt::format("{}", number);
    case Type::string: return quote(string);
    case Type::array: {
      std::string out = "[";
      for (std::size_t i = 0; i < items.size(); ++i) out += (i ? "," : "") + items[i].dump();
      return out + "]";
    }
    case Type::object: {
      std::string out = "{";
      for (std::size_t i = 0; i < members.size(); ++i)
        out += (i ? "," : "") + quote(members[i].first) + ":" + members[i].second.dump();
      return out + "}";
    }
  }
  return "null";
}

std::string Json::show() const { return type == Type::string ? string : dump(); }

std::optional<Json> parse_json(std::string_view text, std::string& error) {
  simdjson::dom::parser parser;
  simdjson::padded_string padded(text);
  simdjson::dom::element root;
  if (auto err = parser.parse(padded).get(root); err) {
    error = simdjson::error_message(err);
    return std::nullopt;
  }
  return convert(root);
}

}  // namespace culprit::conformance
