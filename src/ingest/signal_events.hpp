// The "signal match -> event" step shared by the line-oriented parsers (kernel log, app log):
// run the rule set's line signals on one message and turn each match into an Event.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "culprit/core/event.hpp"
#include "culprit/ingest/parser.hpp"

namespace culprit::ingest {

/// What a block scan (text::BlockScanner over a whole segment) said of one line: it holds a
/// signal literal (or a parser's marker), it holds none, or no block scan ran and the line's
/// own checks decide. `no` lets a parser skip the per-line literal pass and signal matching.
enum class LiteralHit { unknown, no, yes };

/// Segments this long are scanned as one block for their literals; a shorter one (a paste) keeps
/// the per-line checks, since building the block scanner costs more than it saves there.
inline constexpr std::size_t kBlockScanBytes = 256 * 1024;

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
