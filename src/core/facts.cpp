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
  if (f == nullptr) return false;
  // Each word stands between single spaces: a match must have one on either side (no allocation:
  // the kernel parser asks this of every NVRM event).
  const std::string_view v = f->value;
  for (std::size_t at = v.find(fact); at != std::string_view::npos; at = v.find(fact, at + 1))
    if (at > 0 && v[at - 1] == ' ' && at + fact.size() < v.size() && v[at + fact.size()] == ' ') return true;
  return false;
}

std::string provides_sql(std::string_view fact, std::string_view alias) {
  return fmt::format("instr(coalesce(json_extract({}.fields, '$.{}'), ''), ' {} ') > 0", alias, kField, fact);
}

}  // namespace culprit::core::fact
