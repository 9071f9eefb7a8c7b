// Text repair before matching: the shapes people and web UIs give a log when they paste it,
// undone so the signals see the lines the program printed. Private to the ingest module; runs
// after normalisation, before segmentation and sniffing.
//
// Repairs, in order (each one counted in RepairReport, every moved line kept in a LineMap so
// evidence still cites the input's own file:line):
//  1. chrome: lines a viewer adds — Markdown fences (```lang, ~~~), `> ` quote markers, Buildkite's
//     "Actions for L<n>" / "<n>" line pairs, GitHub Actions' `##[group]` / `##[endgroup]` /
//     `##[error]` markers, tmux / screen status lines ([detached (from session x)], [exited]).
//  2. gutters: a line-number column (`123 `, `  45| `, `L123 `, `cat -n`'s tab) on consecutive
//     numbers down (nearly) the whole input; a number column that does not count up by one is data.
//  3. ANSI escapes written as text (`#033[` from rsyslog, `\033[`, `\x1b[`, `\e[`, `\u001b[`)
//     become the escape byte, which text::strip_ansi then removes as it does a real one.
//  4. escaped newlines: a quoted value (JSON string, Kubernetes termination message, Rust panic,
//     Python repr) holding `\n` escapes is split into the lines it stands for (`\t`, `\"`, `\\`
//     unescaped with it). A Windows path (`C:\new`) or a value with an unknown escape is left.
//  5. wraps: a line cut by a terminal at a fixed column (the input's widest lines all share one
//     width) or by a person mid-sentence is joined with the next line(s) — only when the joined
//     line matches a signal (or more of one) that its pieces do not, and loses none they match.
//
// A repair may add false candidates but never loses a match: joins are checked against the
// signal set, splits keep every signal their line matched, and the literal shortcut that skips
// the check is off with the prefilter (--no-prefilter), like every other shortcut.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "culprit/text/signal_set.hpp"

namespace culprit::ingest::detail {

/// What repair did, per kind: lines concerned and the first one (in the input's numbering,
/// counted from the text's first line).
struct RepairReport {
  struct Kind {
    std::int64_t lines = 0;
    std::int64_t first_line = 0;
    void add(std::int64_t line, std::int64_t n = 1) {
      if (lines == 0) first_line = line;
      lines += n;
    }
  };
  Kind fence, quote, ci_chrome, terminal, gutter, ansi_text, unescape, join;
  bool any() const {
    return fence.lines || quote.lines || ci_chrome.lines || terminal.lines || gutter.lines || ansi_text.lines ||
           unescape.lines || join.lines;
  }
};

struct RepairOptions {
  /// The input is a structured document (JSON, XML) or a tool's table (ps, nvidia-smi, free):
  /// only chrome and gutters are repaired; its escapes belong to its parser and its lines are
  /// never joined.
  bool structured = false;
  /// The text's census (text::RareBytes), where the caller took one: its `\r`, `#` and `\`
  /// are read from it instead of a scan for each.
  text::RareBytes rare = text::RareBytes::all();
};

/// Returns the repaired text: `text` itself when nothing changed (the common case, no copy),
/// else a view of `storage`. `map` is filled when lines were dropped, split or joined (empty
/// otherwise: line k is still line k). `signals` may be null: then nothing is joined or split.
/// `unchanged_lines`, when given and `text` comes back unchanged, gets its lines as
/// text::split_lines gives them (the repair split it; the sniffer need not again); when it
/// holds them already (not empty), the repair reads them instead of a split of its own. When
/// the text changed, it comes back empty.
std::string_view repair_text(std::string_view text, const text::SignalSet* signals, std::string& storage,
                             LineMap& map, RepairReport& report, const RepairOptions& options = {},
                             std::vector<std::string_view>* unchanged_lines = nullptr);

}  // namespace culprit::ingest::detail
