// Facts a signal provides, as an event field of space-delimited words.
#include "culprit/core/facts.hpp"

#include <fmt/format.h>

#include "culprit/core/event.hpp"

namespace culprit::core::fact {

std::string field_value(const std::vector<std::string>& facts) {
  if (facts.empty()) return {};
  std::string out = " ";
  for (const auto& f : facts) out += f + " ";
  return out;
}

bool provides(const Event& event, std::string_view fact) {
  const Field* f = event.field(kField);
  return f != nullptr && f->value.find(fmt::format(" {} ", fact)) != std::string::npos;
}

std::string provides_sql(std::string_view fact, std::string_view alias) {
  return fmt::format("instr(coalesce(json_extract({}.fields, '$.{}'), ''), ' {} ') > 0", alias, kField, fact);
}

}  // namespace culprit::core::fact
