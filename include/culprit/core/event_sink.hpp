// The one interface between parsing and storage: parsers push, the store (or a test) receives.
// Ingest never includes the store and the store never knows formats; the cli wires them.
#pragma once

#include <cstdint>

#include "culprit/core/event.hpp"
#include "culprit/core/records.hpp"

namespace culprit::core {

/// Receives everything parsed from sources. Not thread-safe: one sink per thread, or a lock
/// in the implementation. Ids returned are stable keys for later records.
class EventSink {
 public:
  virtual ~EventSink() = default;
  virtual std::int64_t add_source(const SourceInfo& source) = 0;
  /// The event's id; 0 where the sink keeps no row of it (the timeline counts, not stores, an
  /// event that restates a fact it already holds alike: store/timeline.hpp's RestatedEvents).
  virtual std::int64_t add_event(const Event& event) = 0;
  virtual void add_gpu_snapshot(const GpuSnapshot& snapshot) = 0;
  virtual void add_host_memory(const HostMemory& memory) = 0;
  /// `report.event_id` must name an event already added (the block's kernel_oom event).
  virtual void add_oom_report(const OomReport& report) = 0;
  virtual void add_process(const ProcessSighting& process) = 0;
  virtual void add_container(const ContainerInfo& container) = 0;
};

}  // namespace culprit::core
