// Event helpers and the string forms of the core enums.
#include "culprit/core/event.hpp"

#include <fmt/format.h>

#include <cmath>

namespace culprit::core {

std::string_view to_string(TsKind kind) {
  switch (kind) {
    case TsKind::none: return "none";
    case TsKind::wall: return "wall";
    case TsKind::wall_no_year: return "wall_no_year";
    case TsKind::boot: return "boot";
    case TsKind::time_of_day: return "time_of_day";
  }
  return "none";
}

std::string_view to_string(Severity severity) {
  switch (severity) {
    case Severity::debug: return "debug";
    case Severity::info: return "info";
    case Severity::warning: return "warning";
    case Severity::error: return "error";
    case Severity::critical: return "critical";
  }
  return "info";
}

std::optional<Severity> parse_severity(std::string_view text) {
  if (text == "debug") return Severity::debug;
  if (text == "info") return Severity::info;
  if (text == "warning") return Severity::warning;
  if (text == "error") return Severity::error;
  if (text == "critical") return Severity::critical;
  return std::nullopt;
}

const Field* Event::field(std::string_view key) const {
  for (const auto& f : fields)
    if (f.key == key) return &f;
  return nullptr;
}

std::string Event::field_or(std::string_view key, std::string_view fallback) const {
  const Field* f = field(key);
  return f ? f->value : std::string(fallback);
}

void Event::set(std::string key, std::string value, bool numeric) {
  for (auto& f : fields) {
    if (f.key == key) {
      f.value = std::move(value);
      f.numeric = numeric;
      return;
    }
  }
  fields.push_back({std::move(key), std::move(value), numeric});
}

void Event::set_number(std::string key, double value) {
  if (!std::isfinite(value)) return;
  set(std::move(key), fmt::format("{}", value), true);
}

void Event::set_int(std::string key, std::int64_t value) {
  set(std::move(key), std::to_string(value), true);
}

void Event::set_int_if(std::string key, const std::optional<std::int64_t>& value) {
  if (value) set_int(std::move(key), *value);
}

}  // namespace culprit::core
