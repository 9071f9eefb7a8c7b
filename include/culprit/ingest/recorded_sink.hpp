// RecordedSink: an EventSink that keeps what parsers push, in order, to be replayed into the
// real sink later. It lets inputs be parsed on worker threads while one thread writes the
// timeline, in input order, so a run gives the same timeline with any number of threads.
#pragma once

#include <cstdint>
#include <variant>
#include <vector>

#include "culprit/core/event_sink.hpp"

namespace culprit::ingest {

class RecordedSink final : public core::EventSink {
 public:
  /// Ids returned are local (1, 2, …, per kind); replay() maps them to the target's ids in the
  /// records that carry one (an event's and a snapshot's source_id, an OOM report's event_id).
  std::int64_t add_source(const core::SourceInfo& source) override;
  std::int64_t add_event(const core::Event& event) override;
  void add_gpu_snapshot(const core::GpuSnapshot& snapshot) override;
  void add_host_memory(const core::HostMemory& memory) override;
  void add_oom_report(const core::OomReport& report) override;
  void add_process(const core::ProcessSighting& process) override;
  void add_container(const core::ContainerInfo& container) override;

  /// Pushes every record into `target` in the order they came. Call once.
  void replay(core::EventSink& target);

 private:
  using Record = std::variant<core::SourceInfo, core::Event, core::GpuSnapshot, core::HostMemory, core::OomReport,
                              core::ProcessSighting, core::ContainerInfo>;
  std::vector<Record> records_;
  std::int64_t sources_ = 0;
  std::int64_t events_ = 0;
};

}  // namespace culprit::ingest
