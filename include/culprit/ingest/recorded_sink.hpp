// RecordedSink: an EventSink that keeps what parsers push, in order, to be replayed into the
// real sink later. It lets inputs be parsed on worker threads while one thread writes the
// timeline, in input order, so a run gives the same timeline with any number of threads.
#pragma once

#include <cstddef>
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
  /// Everything but events: a source, a snapshot, a report… (a few per input).
  using Record = std::variant<core::SourceInfo, core::GpuSnapshot, core::HostMemory, core::OomReport,
                              core::ProcessSighting, core::ContainerInfo>;
  /// Events, the bulk (10^5 in a big log where a line in ten is kept), in chunks of their own:
  /// not in Record, whose every slot is the size of its largest member (an OOM report, twice
  /// an event), and not in one vector, whose doublings copied every event and touched fresh
  /// pages each time (page faults are slow on a VM); not a std::deque either, whose libstdc++
  /// blocks of 512 bytes hold one event each. replay() frees each chunk once replayed.
  static constexpr std::size_t kEventsPerChunk = 1024;
  std::vector<std::vector<core::Event>> events_;
  std::vector<Record> others_;
  /// Arrival order: kEventMark for the next event, else the index of a record in others_.
  static constexpr std::uint32_t kEventMark = UINT32_MAX;
  std::vector<std::uint32_t> order_;
  std::int64_t sources_ = 0;
  std::int64_t event_count_ = 0;
};

}  // namespace culprit::ingest
