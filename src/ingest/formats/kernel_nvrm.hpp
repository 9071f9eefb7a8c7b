// "GPU has fallen off the bus" as ONE Xid 79 per fall (formats.md §7.1). The driver reports a
// fall in three ways: an `NVRM: Xid (PCI:…): 79, …` line, a one-line `NVRM: GPU 0000:18:00.0: GPU
// has fallen off the bus.`, and a multi-line record `NVRM: The NVIDIA GPU 0000:18:00.0` /
// `NVRM: (PCI ID: 10de:2901) installed in this system has` / `NVRM: fallen off the bus and is not
// responding to commands.` — often together. The tracker turns the text forms into an Xid 79 event
// (`xid_inferred` = 1, with `pci_id`) unless an Xid 79 line for the same GPU is in the same record
// run or came before; the Xid line then stands for the fall. Private to ingest (kernel_log.cpp).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/core/event.hpp"
#include "culprit/ingest/parser.hpp"

namespace culprit::ingest::kernel {

class FallOffTracker {
 public:
  /// Offers one kernel line (prefixes peeled), the event its stamp gives (`base`) and the signal
  /// events made from it. May drop events of `events` (a fall told twice) or hold one back until
  /// the run of NVRM lines ends; held events are written to `ctx` when due.
  void line(std::int64_t seg_line, std::string_view message, const core::Event& base,
            std::vector<core::Event>& events, ParseContext& ctx);
  /// Writes what is still held (call at the end of the source).
  void finish(ParseContext& ctx);
  /// Nothing open or held: a line without `NVRM: ` changes nothing.
  bool idle() const { return !open_ && !held_; }

 private:
  struct Open {
    std::string pci, bdf, pci_id, text;
    core::Event base;
    bool suppressed = false;  ///< an Xid 79 line for this GPU sits inside the record
  };
  void flush(ParseContext& ctx);
  void hold(core::Event event, ParseContext& ctx);

  std::optional<Open> open_;
  std::optional<core::Event> held_;
  std::set<std::string> xid79_;  ///< GPUs (bdf) with an Xid 79 line in this source
};

}  // namespace culprit::ingest::kernel
