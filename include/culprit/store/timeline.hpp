// The SQLite timeline as an EventSink: parsers' events and records become rows.
// Inserts use prepared statements inside one open transaction, committed by finish().
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "culprit/core/event_sink.hpp"
#include "culprit/store/database.hpp"
#include "culprit/store/hosts.hpp"

namespace culprit::store {

/// How many events alike that restate a fact the timeline stores of one input; the rest are
/// counted (RestatedFacts in src/store/restated_facts.hpp says which events these are).
inline constexpr std::int64_t kRestatedKept = 64;

/// The events of one input that restated a fact and were counted, not stored.
struct RestatedEvents {
  std::string input;            ///< the input's display name (its sources' name)
  std::int64_t first_line = 0;  ///< the line of the first event counted
  std::int64_t events = 0;      ///< how many were counted
  std::vector<std::string> rules;  ///< the rules of the counted events, the first few
};

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
  /// Each input's events that restated a fact past the first few alike, counted, not stored.
  const std::vector<RestatedEvents>& restated_events() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// Serialises fields as a JSON object (numbers unquoted, strings escaped).
std::string fields_to_json(const std::vector<core::Field>& fields);

}  // namespace culprit::store
