// run_culprit: culprit's ingest into an in-memory EventSink (see culprit_facts.hpp).
#include "conformance/culprit_facts.hpp"

#include <cctype>

#include "culprit/core/event_sink.hpp"
#include "culprit/ingest/pipeline.hpp"

namespace culprit::conformance {
namespace {

/// Keeps everything ingest produces; ids are 1-based positions.
class FactSink : public core::EventSink {
 public:
  explicit FactSink(Facts& facts) : facts_(facts) {}
  std::int64_t add_source(const core::SourceInfo& source) override {
    facts_.formats.push_back(source.format);
    return static_cast<std::int64_t>(facts_.formats.size());
  }
  std::int64_t add_event(const core::Event& event) override {
    facts_.events.push_back(event);
    return static_cast<std::int64_t>(facts_.events.size());
  }
  void add_gpu_snapshot(const core::GpuSnapshot&) override {}
  void add_host_memory(const core::HostMemory&) override {}
  void add_oom_report(const core::OomReport& report) override { facts_.reports.push_back(report); }
  void add_process(const core::ProcessSighting&) override {}
  void add_container(const core::ContainerInfo&) override {}

 private:
  Facts& facts_;
};

bool is_oom_kind(const std::string& kind) { return kind == core::kind::kKernelOom || kind == core::kind::kOomKill; }

}  // namespace

std::vector<const core::Event*> Facts::ooms() const {
  std::vector<const core::Event*> out;
  for (const auto& e : events)
    if (is_oom_kind(e.kind)) out.push_back(&e);
  return out;
}

std::vector<const core::Event*> Facts::kills() const {
  std::vector<const core::Event*> out;
  for (const auto* e : ooms())
    if (victim_pid(*e)) out.push_back(e);
  return out;
}

std::vector<const core::Event*> Facts::xids() const {
  std::vector<const core::Event*> out;
  for (const auto& e : events)
    if (e.kind == core::kind::kXid && e.field("xid") != nullptr) out.push_back(&e);
  return out;
}

std::vector<const core::Event*> Facts::sxids() const {
  std::vector<const core::Event*> out;
  for (const auto& e : events)
    if (e.kind == core::kind::kXid && e.field("sxid") != nullptr) out.push_back(&e);
  return out;
}

std::vector<const core::Event*> Facts::by_rule(std::string_view rule) const {
  std::vector<const core::Event*> out;
  for (const auto& e : events)
    if (e.rule == rule) out.push_back(&e);
  return out;
}

const core::OomReport* Facts::report_for(const core::Event& event) const {
  for (const auto& r : reports) {
    if (r.event_id < 1 || static_cast<std::size_t>(r.event_id) > events.size()) continue;
    if (&events[static_cast<std::size_t>(r.event_id - 1)] == &event) return &r;
  }
  return nullptr;
}

int Facts::part_of(std::int64_t line) const {
  for (std::size_t i = 0; i < parts.size(); ++i)
    if (line >= parts[i].first_line && line <= parts[i].last_line) return static_cast<int>(i);
  return -1;
}

Facts run_culprit(std::string_view text, const std::string& name, const rules::RuleSet& rules) {
  Facts facts;
  FactSink sink(facts);
  ingest::IngestInput input{name, "", name, text};
  ingest::ingest(input, rules.signals, sink, facts.notes);
  return facts;
}

std::string field(const core::Event& e, std::string_view key) { return e.field_or(key); }

std::optional<std::int64_t> field_int(const core::Event& e, std::string_view key) {
  const core::Field* f = e.field(key);
  if (f == nullptr || f->value.empty()) return std::nullopt;
  std::size_t i = f->value[0] == '-' ? 1 : 0;
  if (i == f->value.size()) return std::nullopt;
  for (std::size_t k = i; k < f->value.size(); ++k)
    if (!std::isdigit(static_cast<unsigned char>(f->value[k]))) return std::nullopt;
  return std::stoll(f->value);
}

std::optional<std::int64_t> victim_pid(const core::Event& e) {
  if (auto v = field_int(e, "victim_pid")) return v;
  return std::nullopt;
}

std::string victim_comm(const core::Event& e) {
  if (const core::Field* f = e.field("victim_comm")) return f->value;
  return e.comm;
}

std::string normalise_bdf(std::string_view pci) {
  std::string s(pci);
  if (s.rfind("PCI:", 0) == 0) s = s.substr(4);
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (auto dot = s.rfind('.'); dot != std::string::npos && dot > s.rfind(':')) s = s.substr(0, dot);
  // Split on ':' -> [domain:]bus:device
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == ':') {
      parts.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  auto hex = [](const std::string& p) {
    if (p.empty()) return false;
    for (char c : p)
      if (!std::isxdigit(static_cast<unsigned char>(c))) return false;
    return true;
  };
  if (parts.size() == 2) parts.insert(parts.begin(), "0");
  if (parts.size() != 3 || !hex(parts[0]) || !hex(parts[1]) || !hex(parts[2])) return std::string(pci);
  std::string domain = parts[0];
  if (domain.size() > 4) domain = domain.substr(domain.size() - 4);
  while (domain.size() < 4) domain = "0" + domain;
  auto two = [](std::string p) {
    while (p.size() < 2) p = "0" + p;
    return p;
  };
  return domain + ":" + two(parts[1]) + ":" + two(parts[2]);
}

}  // namespace culprit::conformance
