// What culprit reads from one peer input: the input goes through culprit's own ingest (format
// sniffing, the kernel-log / app-log parsers, the built-in signals) into an in-memory sink, and
// the events and OOM reports that come out are the "facts" the peers' assertions are compared with.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/core/diagnostic.hpp"
#include "culprit/core/event.hpp"
#include "culprit/core/records.hpp"
#include "culprit/rules/loader.hpp"

namespace culprit::conformance {

/// One input fed to culprit: its display name and the line range it has in the fed text
/// (several inputs of one peer case are concatenated in order into one stream).
struct InputPart {
  std::string file;
  std::int64_t first_line = 1;
  std::int64_t last_line = 0;
};

struct Facts {
  std::vector<core::Event> events;
  std::vector<core::OomReport> reports;  ///< report.event_id = 1-based index into events
  std::vector<std::string> formats;      ///< sniffed format of each segment, in order
  std::vector<InputPart> parts;
  core::Diagnostics notes;

  /// OOM kill events (`kernel_oom` reports and `oom_kill` lines), in input order.
  std::vector<const core::Event*> ooms() const;
  /// OOM events that name a killed process (a victim pid): what the peers call "an OOM".
  std::vector<const core::Event*> kills() const;
  /// NVIDIA Xid events (GPU, field `xid`), in input order.
  std::vector<const core::Event*> xids() const;
  /// NVSwitch SXid events (field `sxid`).
  std::vector<const core::Event*> sxids() const;
  /// Events made by signal / parser rule `rule`.
  std::vector<const core::Event*> by_rule(std::string_view rule) const;
  /// The OOM report written with `event` (kernel_oom events), or nullptr.
  const core::OomReport* report_for(const core::Event& event) const;
  /// The input part that holds absolute line `line` (0-based index), or -1.
  int part_of(std::int64_t line) const;
};

/// Runs culprit's ingest on `text` (one stream named `name`) with `rules`' signals.
Facts run_culprit(std::string_view text, const std::string& name, const rules::RuleSet& rules);

/// A field's text ("" when absent).
std::string field(const core::Event& e, std::string_view key);
/// A field as an integer (numeric fields and integer text), or nullopt.
std::optional<std::int64_t> field_int(const core::Event& e, std::string_view key);
/// The killed process's pid of an OOM event (event pid, else field victim_pid).
std::optional<std::int64_t> victim_pid(const core::Event& e);
/// The killed process's name of an OOM event.
std::string victim_comm(const core::Event& e);

/// PCI address in culprit's normal form `dddd:bb:dd` (lower case, 4-digit domain, no function,
/// no `PCI:`), as the README of the peer data asks: `PCI:0000:05:00`, `0000:05:00.0`, `05:00.0`
/// all give `0000:05:00`. Text that is not an address comes back unchanged.
std::string normalise_bdf(std::string_view pci);

}  // namespace culprit::conformance
