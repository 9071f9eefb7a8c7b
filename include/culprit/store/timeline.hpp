// The SQLite timeline as an EventSink: parsers' events and records become rows.
// Inserts use prepared statements inside one open transaction, committed by finish().
#pragma once

#include <memory>

#include "culprit/core/event_sink.hpp"
#include "culprit/store/database.hpp"
#include "culprit/store/hosts.hpp"

namespace culprit::store {

class TimelineWriter : public core::EventSink {
 public:
  explicit TimelineWriter(Database& db);
  ~TimelineWriter() override;

  std::int64_t add_source(const core::SourceInfo& source) override;
  std::int64_t add_event(const core::Event& event) override;
  void add_gpu_snapshot(const core::GpuSnapshot& snapshot) override;
  void add_host_memory(const core::HostMemory& memory) override;
  void add_oom_report(const core::OomReport& report) override;
  void add_process(const core::ProcessSighting& process) override;
  void add_container(const core::ContainerInfo& container) override;

  /// Commits the open transaction (call once after ingest). Returns an error or empty.
  std::string finish();
  /// The sources whose events may name a host, for settle_folder_hosts (store/hosts.hpp).
  const HostsNamed& hosts_named() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Serialises fields as a JSON object (numbers unquoted, strings escaped).
std::string fields_to_json(const std::vector<core::Field>& fields);

}  // namespace culprit::store
