// The "signal match -> event" step shared by the line-oriented parsers (kernel log, app log):
// run the rule set's line signals on one message and turn each match into an Event.
#pragma once

#include <string_view>
#include <vector>

#include "culprit/core/event.hpp"
#include "culprit/ingest/parser.hpp"

namespace culprit::ingest {

/// One event per signal of `ctx.signals` that matches `message` for `ctx.format`.
/// Each event is a copy of `base` (source, line, stamp, host, pid, comm already set) with the
/// signal's kind and severity, `rule` = signal id, `message` = `message`, and the named captures
/// as fields: `pid`, `rank`, `gpu`, `xid`, `exitcode` are numeric when they parse as integers
/// (and `pid`/`rank` also set event.pid / event.rank); a capture `<x>_size` also yields a numeric
/// `<x>_bytes` (core::parse_size), and so does a bare GiB figure `<x>_gib` when no `<x>_size` gave
/// one; a `comm` (or `name`) capture fills event.comm when `base` has none.
/// Empty captures are skipped. Events of kind `xid` also get enrich_xid_event()'s fields (the
/// Xid catalogue, the normalised PCI address). No signals (null set) -> no events.
std::vector<core::Event> events_from_signals(const core::Event& base, std::string_view message,
                                             const ParseContext& ctx);

}  // namespace culprit::ingest
