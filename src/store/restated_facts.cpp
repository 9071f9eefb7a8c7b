// RestatedFacts: the events that restate a fact, counted past the first few alike.
#include "restated_facts.hpp"

#include <algorithm>

#include "culprit/core/facts.hpp"

namespace culprit::store {
namespace {

/// Appends `s` to `key` after its length, so that no two lists of texts make one key.
void append_part(std::string& key, std::string_view s) {
  const auto n = static_cast<std::uint32_t>(s.size());
  key.append(reinterpret_cast<const char*>(&n), sizeof n);
  key.append(s);
}

void append_number(std::string& key, const std::optional<std::int64_t>& v) {
  const std::int64_t n = v.value_or(0);
  key += v ? '1' : '0';
  key.append(reinterpret_cast<const char*>(&n), sizeof n);
}

}  // namespace

void RestatedFacts::add_source(std::int64_t id, const core::SourceInfo& source) {
  key_.clear();
  append_part(key_, source.origin);
  append_part(key_, source.name);
  auto it = input_index_.find(std::string_view(key_));
  if (it == input_index_.end()) {
    it = input_index_.emplace(key_, inputs_.size()).first;
    inputs_.push_back({source.name});
  }
  source_input_[id] = it->second;
}

bool RestatedFacts::restated(const core::Event& e) {
  if (e.kind != core::kind::kLog || e.severity > core::Severity::info || e.field(core::fact::kField) == nullptr)
    return false;
  const auto input = source_input_.find(e.source_id);
  if (input == source_input_.end()) return false;
  key_.clear();
  const auto at = static_cast<std::uint64_t>(input->second);
  key_.append(reinterpret_cast<const char*>(&at), sizeof at);
  key_ += static_cast<char>(e.ts_kind);
  key_ += static_cast<char>(e.severity);  // the kind is `log`, asked above
  append_part(key_, e.rule);
  append_part(key_, e.host);
  append_number(key_, e.pid);
  append_number(key_, e.rank ? std::optional<std::int64_t>(*e.rank) : std::nullopt);
  append_part(key_, e.comm);
  // The fields as the timeline would write them, without their JSON (an event counted is never
  // written): each key, value and whether it is a number, in order.
  for (const auto& f : e.fields) {
    append_part(key_, f.key);
    append_part(key_, f.value);
    key_ += f.numeric ? '1' : '0';
  }
  if (key_.size() > kMaxKeyBytes) return false;
  auto it = groups_.find(std::string_view(key_));
  if (it == groups_.end()) {
    if (groups_.size() < kMaxGroups) groups_.emplace(key_, Group{1, input->second});
    return false;
  }
  if (++it->second.seen <= kRestatedKept) return false;
  Input& in = inputs_[it->second.input];
  if (in.counted == SIZE_MAX) {
    in.counted = counted_.size();
    counted_.push_back({in.name, e.line, 0, {}});
  }
  RestatedEvents& c = counted_[in.counted];
  ++c.events;
  if (c.rules.size() < kRulesNamed && std::find(c.rules.begin(), c.rules.end(), e.rule) == c.rules.end())
    c.rules.push_back(e.rule);
  return true;
}

}  // namespace culprit::store
