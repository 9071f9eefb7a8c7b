// A core::EventSink that keeps everything in vectors, for parser tests (GPU / app-log tests;
// named to avoid clashing with another engineer's recording_sink.hpp).
#pragma once

#include <algorithm>
#include <string_view>
#include <vector>

#include "culprit/core/event_sink.hpp"

namespace culprit::test {

class GpuRecordingSink : public core::EventSink {
 public:
  std::vector<core::SourceInfo> sources;
  std::vector<core::Event> events;
  std::vector<core::GpuSnapshot> snapshots;
  std::vector<core::HostMemory> memory;
  std::vector<core::OomReport> reports;
  std::vector<core::ProcessSighting> processes;
  std::vector<core::ContainerInfo> containers;

  std::int64_t add_source(const core::SourceInfo& s) override {
    sources.push_back(s);
    return static_cast<std::int64_t>(sources.size());
  }
  std::int64_t add_event(const core::Event& e) override {
    events.push_back(e);
    return static_cast<std::int64_t>(events.size());
  }
  void add_gpu_snapshot(const core::GpuSnapshot& s) override { snapshots.push_back(s); }
  void add_host_memory(const core::HostMemory& m) override { memory.push_back(m); }
  void add_oom_report(const core::OomReport& r) override { reports.push_back(r); }
  void add_process(const core::ProcessSighting& p) override { processes.push_back(p); }
  void add_container(const core::ContainerInfo& c) override { containers.push_back(c); }

  /// Events of one kind, in the order they were added.
  std::vector<core::Event> of_kind(std::string_view kind) const {
    std::vector<core::Event> out;
    std::copy_if(events.begin(), events.end(), std::back_inserter(out),
                 [&](const core::Event& e) { return e.kind == kind; });
    return out;
  }
  /// The sighting of `pid` with `job` (nullptr when none).
  const core::ProcessSighting* sighting(std::int64_t pid, bool job) const {
    for (const auto& p : processes)
      if (p.pid == pid && p.job == job) return &p;
    return nullptr;
  }
};

}  // namespace culprit::test
