// A core::EventSink for tests: stores everything it receives in vectors, hands out ids 1, 2, ….
#pragma once

#include <string_view>
#include <vector>

#include "culprit/core/event_sink.hpp"

namespace culprit::test {

class RecordingSink : public core::EventSink {
 public:
  std::int64_t add_source(const core::SourceInfo& source) override {
    sources.push_back(source);
    return static_cast<std::int64_t>(sources.size());
  }
  std::int64_t add_event(const core::Event& event) override {
    events.push_back(event);
    return static_cast<std::int64_t>(events.size());
  }
  void add_gpu_snapshot(const core::GpuSnapshot& snapshot) override { gpu_snapshots.push_back(snapshot); }
  void add_host_memory(const core::HostMemory& memory) override { host_memory.push_back(memory); }
  void add_oom_report(const core::OomReport& report) override { oom_reports.push_back(report); }
  void add_process(const core::ProcessSighting& process) override { processes.push_back(process); }
  void add_container(const core::ContainerInfo& container) override { containers.push_back(container); }

  /// Events of one kind, in arrival order.
  std::vector<core::Event> of_kind(std::string_view kind) const {
    std::vector<core::Event> out;
    for (const auto& e : events)
      if (e.kind == kind) out.push_back(e);
    return out;
  }
  /// The event an OOM report belongs to (ids are 1-based positions).
  const core::Event& event_of(const core::OomReport& report) const {
    return events.at(static_cast<std::size_t>(report.event_id - 1));
  }

  std::vector<core::SourceInfo> sources;
  std::vector<core::Event> events;
  std::vector<core::GpuSnapshot> gpu_snapshots;
  std::vector<core::HostMemory> host_memory;
  std::vector<core::OomReport> oom_reports;
  std::vector<core::ProcessSighting> processes;
  std::vector<core::ContainerInfo> containers;
};

}  // namespace culprit::test
