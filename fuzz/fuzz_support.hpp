// Shared by the libFuzzer targets: the built-in rules loaded once, and a sink that checks
// what parsers push (line numbers inside the segment, OOM reports pointing at a real event)
// and traps on a broken invariant, so the fuzzer reports it like a crash.
#pragma once

#include <cstdint>
#include <string_view>

#include "culprit/core/event_sink.hpp"
#include "culprit/rules/loader.hpp"

namespace culprit::fuzz {

#define CULPRIT_FUZZ_CHECK(cond) \
  do {                           \
    if (!(cond)) __builtin_trap(); \
  } while (0)

inline const rules::RuleSet& builtin_rules() {
  static const auto loaded = rules::load_rules(rules::builtin_rules());
  return loaded.rules;
}

/// Checks and counts; keeps nothing, so memory stays flat over millions of runs.
class CheckingSink final : public core::EventSink {
 public:
  /// Lines pushed must lie in [first, last] (the segment's lines in source numbering).
  void expect_lines(std::int64_t first, std::int64_t last) {
    first_ = first;
    last_ = last;
  }
  std::int64_t add_source(const core::SourceInfo& s) override {
    CULPRIT_FUZZ_CHECK(s.first_line >= 1);
    return ++sources_;
  }
  std::int64_t add_event(const core::Event& e) override {
    CULPRIT_FUZZ_CHECK(e.line >= first_ && e.line <= last_);
    CULPRIT_FUZZ_CHECK(e.line_end == 0 || e.line_end >= e.line);
    CULPRIT_FUZZ_CHECK(e.line_end <= last_);
    return ++events_;
  }
  void add_gpu_snapshot(const core::GpuSnapshot& s) override { CULPRIT_FUZZ_CHECK(s.line <= last_); }
  void add_host_memory(const core::HostMemory& m) override { CULPRIT_FUZZ_CHECK(m.line <= last_); }
  void add_oom_report(const core::OomReport& r) override {
    CULPRIT_FUZZ_CHECK(r.event_id >= 1 && r.event_id <= events_);
  }
  void add_process(const core::ProcessSighting&) override {}
  void add_container(const core::ContainerInfo&) override {}

 private:
  std::int64_t first_ = 1, last_ = INT64_MAX;
  std::int64_t sources_ = 0, events_ = 0;
};

}  // namespace culprit::fuzz
