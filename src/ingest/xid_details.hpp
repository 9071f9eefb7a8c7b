// What an NVIDIA driver line means beyond its words (formats.md Part 7): the Xid code's meaning,
// class and recommended action from NVIDIA's Xid catalogue, the GPU's PCI address in one form,
// the NVLink5 (Xid 144-150) details, Xid 13's GPC/TPC/SM, Xid 74's link, Xid 154's recovery
// action, and the SXid link and message. Private to ingest: every Xid / SXid / fall-off event a
// signal makes passes through enrich_xid_event(), whichever parser saw the line.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "culprit/core/event.hpp"

namespace culprit::ingest {

/// One row of the Xid catalogue.
struct XidCode {
  int code = 0;
  std::string_view name;    ///< NVIDIA's short meaning, e.g. "GPU memory page fault"
  std::string_view cls;     ///< app | driver | firmware | hardware | fabric | consequence | meta
  std::string_view action;  ///< restart_app | ignore | reset_gpu | reboot_node | contact_support
  core::Severity severity = core::Severity::error;
};

/// The catalogue row of `code`, or nullptr for a code the catalogue does not know.
const XidCode* find_xid_code(int code);

/// A PCI address in culprit's one form `dddd:bb:dd` (lower case, 4-digit domain, no function):
/// `PCI:0000:3B:00`, `00000000:3B:00.0`, `3b:00.0` -> `0000:3b:00`. nullopt when not an address.
std::optional<std::string> normalise_bdf(std::string_view pci);

/// NVLink5 detail of Xid 144-150: `<unit> <Fatal|Nonfatal> XC<n> i<n> Link <nn> (<hex words>)`.
/// `subcode` = (intrinfo >> 20) & 0x3F. Fields the line was cut before are absent.
struct NvlinkDetail {
  std::string unit, severity;
  std::optional<int> link;
  std::optional<unsigned long> intrinfo, error_status;
};
std::optional<NvlinkDetail> parse_nvlink_detail(std::string_view detail);

/// Adds to an event of kind `xid`: `bdf`; for an Xid (`xid` field) `xid_name`, `xid_class`,
/// `action` and the severity from the catalogue, then the per-code details (`nvlink_unit`,
/// `nvlink_severity`, `link`, `intrinfo`, `error_status`, `nvlink_subcode`; `gpc`/`tpc`/`sm`;
/// `recovery_action`); for a fall-off report without an Xid line (a signal providing `fallen_off_bus`)
/// `xid` = 79 and `xid_inferred` = 1; for an SXid `link`, `sxid_message`, and the severity
/// from its fatality. Other events are left alone.
void enrich_xid_event(core::Event& event);

}  // namespace culprit::ingest
