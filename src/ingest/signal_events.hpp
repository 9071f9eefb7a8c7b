// The "signal match -> event" step shared by the line-oriented parsers (kernel log, app log):
// run the rule set's line signals on one message and turn each match into an Event.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/core/event.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/text/block_scanner.hpp"

namespace culprit::ingest {

/// What a block scan (text::BlockScanner over a whole segment) said of one line: it holds a
/// signal literal (or a parser's marker), it holds none, or no block scan ran and the line's
/// own checks decide. `no` lets a parser skip the per-line literal pass and signal matching.
enum class LiteralHit { unknown, no, yes };

/// The markers a parser block-scans for beside the signals' literals (SignalSet::block_scanner's
/// `extra`), so that a line holding none can skip its per-line checks: the application-log
/// parser's fast-path markers (a line holding one is never skipped), the kernel-log parser's OOM
/// report openers, driver lines and the RTC clock line. Read as hand-written
/// (text::hand_written_literals): `NVRM: ` is looked for as `NVRM:`.
const std::vector<std::string>& fast_path_markers();
const std::vector<std::string>& kernel_log_markers();
/// Words the application-log parser's fast path searches a line for to tell whether it names a
/// process (NCCL's tag, torch's glog path: AppLogParser::skippable). The input's one block pass
/// marks the lines holding one, case-folded (kProcessWordHit), so that a line holding none is
/// not searched for them one by one.
const std::vector<std::string>& process_words();

/// Every literal list a run with `signals` scans with Hyperscan: each parser's (its markers and
/// the signals' literals), the format table's anchors, the signals' own (with their ids:
/// SignalSet::match's candidates), the input's one block pass (line_hit_list) and the piece
/// ends' (opener_list). The build prebuilds a database for
/// each (src/tools/literal_databases_gen.cpp) for the built-in rules.
std::vector<text::LiteralList> block_scan_literal_lists(const text::SignalSet& signals);

/// One event per signal of `ctx.signals` that matches `message` for `ctx.format`.
/// Each event is a copy of `base` (source, line, stamp, host, pid, comm already set) with the
/// signal's kind and severity, `rule` = signal id, `message` = `message`, and the named captures
/// as fields: `pid`, `rank`, `gpu`, `xid`, `exitcode` are numeric when they parse as integers
/// (and `pid`/`rank` also set event.pid / event.rank); a capture `<x>_size` also yields a numeric
/// `<x>_bytes` (core::parse_size), and so does a bare GiB figure `<x>_gib` when no `<x>_size` gave
/// one; a `comm` (or `name`) capture fills event.comm when `base` has none.
/// Empty captures are skipped. Events of kind `xid` also get enrich_xid_event()'s fields (the
/// Xid catalogue, the normalised PCI address). No signals (null set) -> no events. `scope`, when
/// given, stands for `ctx.format` (text::kTracebackFrameScope for a traceback's body lines).
/// `line`: the input's line the message was peeled from (a view of the text the input's block
/// pass read), where the caller has it: the message's candidate signals are then read from that
/// pass's hits within the same bytes of the line (ParseContext::pass_hits), not found by a scan
/// of the message; the events are the same either way.
std::vector<core::Event> events_from_signals(const core::Event& base, std::string_view message,
                                             const ParseContext& ctx, std::string_view scope = {},
                                             std::string_view line = {});

}  // namespace culprit::ingest
