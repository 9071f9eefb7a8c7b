// FallOffTracker (see kernel_nvrm.hpp): one Xid 79 event per GPU fall, whichever way the driver
// told it. A record without a valid PCI address (`The NVIDIA GPU invalid-bdf.0`) makes no Xid:
// culprit cannot say which GPU fell.
#include "kernel_nvrm.hpp"

#include <algorithm>

#include "culprit/core/facts.hpp"
#include "ingest/xid_details.hpp"
#include "kernel_text.hpp"

namespace culprit::ingest::kernel {
namespace {

constexpr std::string_view kTheGpu = "NVRM: The NVIDIA GPU ";
constexpr std::string_view kFallen = "fallen off the bus";

}  // namespace

void FallOffTracker::flush(ParseContext& ctx) {
  if (held_ && ctx.sink != nullptr) ctx.sink->add_event(*held_);
  held_.reset();
}

void FallOffTracker::hold(core::Event event, ParseContext& ctx) {
  flush(ctx);
  held_ = std::move(event);
}

void FallOffTracker::line(std::int64_t seg_line, std::string_view message, const core::Event& base,
                          std::vector<core::Event>& events, ParseContext& ctx) {
  std::string_view m = trim(message);
  if (!contains(m, "NVRM: ")) {  // the run of driver lines ended
    flush(ctx);
    open_.reset();
    return;
  }
  // An Xid line: the fall it reports (79) stands; text forms for the same GPU are echoes.
  bool xid_line = false;
  for (const auto& e : events) {
    if (!core::fact::provides(e, core::fact::kXidLine)) continue;
    xid_line = true;
    if (e.field_or("xid") != "79") continue;
    std::string bdf = e.field_or("bdf");
    xid79_.insert(bdf);
    if (held_ && held_->field_or("bdf") == bdf) held_.reset();
    if (open_ && open_->bdf == bdf) open_->suppressed = true;
  }
  if (xid_line) {  // `…: 79, GPU has fallen off the bus and is not responding …` is one fact
    events.erase(std::remove_if(events.begin(), events.end(),
                                [](const core::Event& e) { return core::fact::provides(e, core::fact::kGpuNotResponding); }),
                 events.end());
    return;
  }
  // One-line `NVRM: GPU <pci>: GPU has fallen off the bus.` (the signal made it an Xid 79).
  for (auto it = events.begin(); it != events.end();) {
    if (!core::fact::provides(*it, core::fact::kFallenOffBus)) {
      ++it;
      continue;
    }
    core::Event e = std::move(*it);
    it = events.erase(it);
    if (!xid79_.count(e.field_or("bdf"))) hold(std::move(e), ctx);
  }
  // The multi-line record.
  if (std::size_t p = m.find(kTheGpu); p != std::string_view::npos) {
    std::string_view rest = m.substr(p + kTheGpu.size());
    std::string_view pci = rest.substr(0, rest.find(' '));
    open_.reset();
    if (auto bdf = normalise_bdf(pci)) {
      flush(ctx);
      open_ = Open{std::string(pci), *bdf, "", std::string(m), base};
    }
    if (!open_ || !contains(rest, kFallen)) return;
  } else if (open_) {
    open_->text += "\n" + std::string(m);
    if (std::size_t p = m.find("(PCI ID: "); p != std::string_view::npos) {
      std::size_t close = m.find(')', p);
      if (close != std::string_view::npos) open_->pci_id = std::string(m.substr(p + 9, close - p - 9));
    }
  }
  if (!open_ || !contains(m, kFallen)) return;
  // The record is complete: one Xid 79 for it, replacing the signal's partial event.
  events.erase(std::remove_if(events.begin(), events.end(),
                              [](const core::Event& e) { return core::fact::provides(e, core::fact::kGpuNotResponding); }),
               events.end());
  Open o = std::move(*open_);
  open_.reset();
  if (o.suppressed || xid79_.count(o.bdf)) return;
  core::Event e = o.base;
  e.line_end = ctx.absolute_line_end(seg_line);
  e.kind = std::string(core::kind::kXid);
  e.rule = "nvrm_fallen_off_bus_report";
  e.message = o.text;
  e.set("pci", o.pci);
  e.set_int("xid", 79);
  e.set_int("xid_inferred", 1);
  if (!o.pci_id.empty()) e.set("pci_id", o.pci_id);
  e.set("detail", "GPU has fallen off the bus and is not responding to commands");
  enrich_xid_event(e);
  hold(std::move(e), ctx);
}

void FallOffTracker::finish(ParseContext& ctx) {
  flush(ctx);
  open_.reset();
}

}  // namespace culprit::ingest::kernel
