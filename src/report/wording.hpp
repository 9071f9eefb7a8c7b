// Sentences and labels shared by the text and Markdown reports, so both say the same thing:
// the verdict line, process phrases, sizes, times and the memory ledger rows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/diagnose/finding.hpp"

namespace culprit::report {

/// Said in place of the memory budget of a CUDA OOM whose inputs give no sizes (an NCCL or XLA
/// failure names none, and no nvidia-smi snapshot of the GPU was given), and what would give one.
inline constexpr std::string_view kNoBudget =
    "Not known: the error names no sizes and the inputs hold no nvidia-smi snapshot of that GPU. Next time, save "
    "`nvidia-smi` (or `nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv`) on the host "
    "while the job runs or right after it fails.";

/// Said under a budget that has the request but not the GPU's capacity (llama.cpp, TF and raw
/// CUDA errors name only what they asked for), and what would complete it.
inline constexpr std::string_view kPartialBudget =
    "The GPU's capacity and its other holders are not known: the error names only the request and the inputs hold "
    "no nvidia-smi snapshot of that GPU. Next time, save `nvidia-smi` on the host while the job runs or right "
    "after it fails.";

/// Whether kPartialBudget is said under `b`: a GPU's ledger with the request but not the
/// capacity. A host or cgroup ledger without its RAM or limit lacks a part of the kernel's report,
/// which the report's "parts missing" list names instead; a ledger of a monitor's share alone
/// says that share in its arithmetic.
inline bool says_partial_budget(const diagnose::Budget& b) {
  return !b.total && b.requested && b.domain != "host" && b.domain != "cgroup";
}

/// `cuda_oom` -> `CUDA OOM`, `kernel_oom` -> `Host kernel OOM`, …; unknown ids pass through.
std::string verdict_label(std::string_view verdict_id);

/// The heading over a kernel OOM report's missing parts (text, Markdown and HTML):
/// `Kernel OOM report on gpu-b3: parts missing`; "" when no part is missing (no section).
std::string oom_parts_title(const diagnose::OomReportParts& parts);

/// True for the OOM verdicts (the ones that must name a culprit).
bool is_oom_verdict(std::string_view verdict_id);

/// core::format_size that also handles negative values (an overdrawn ledger) -> `-1.50 GiB`.
std::string size_text(std::int64_t bytes);
/// `size_text`, or `—` when unknown.
std::string size_text(const std::optional<std::int64_t>& bytes);

/// Full ISO 8601 UTC (core::format_iso), or empty when unknown.
std::string iso_time(const std::optional<double>& ts);
/// For headlines: `2026-04-09 00:47:13Z` (seconds, no milliseconds), or empty.
std::string short_time(const std::optional<double>& ts);

/// A source's formats for people: every id of its segments, comma-separated (`ps,app_log`).
std::string formats_text(const diagnose::SourceSummary& s);

/// `job`, `foreign` (a ledger's `kernel`, `host`), or `unknown` for anything else: the value of a
/// `role` row.
std::string role_value(std::string_view role);
/// role_value, with `role unknown` for unknown: the role beside a name, `(role unknown)`.
std::string role_text(std::string_view role);
/// A process nothing names, by its role: "the job itself", "another process" (foreign, unnamed:
/// an inferred holder), else "unknown process".
std::string unnamed_process(std::string_view role);

/// Where a process ran, after its host pid: `pid 1 in container vllm-embeddings, pod ns/embed-0`,
/// `in Docker container 3f2a9c1b7d4e` (no listing names it), `pod uid …`, and why its process is
/// gone while its memory is held (`gone: no such process in /proc, nvidia-smi still lists its
/// memory`). Raw text (callers clean or escape); empty when the place says nothing.
std::string place_phrase(const diagnose::ProcessPlace& place);

/// `pid 48211 VLLM::EngineCore (foreign)`, with its place when one is recorded (`pid 48211 (pid 1
/// in container vllm-embeddings) python3 (foreign)`); adds ` on HOST` when the process is on another host
/// than `here`; `with_role` false drops the parenthesis. Text is raw (callers clean or escape).
std::string process_phrase(const diagnose::ProcessRef& p, std::string_view here = {},
                           bool with_role = true);

/// The host the incident happened on: root failure, else culprit, budget, victim.
std::string incident_host(const diagnose::Verdict& v);

/// `spark-b GPU 0`, `node-3`, or empty.
std::string where_phrase(const diagnose::Verdict& v);

/// The one-line answer in parts: what, where, when, who, how sure. One shape for every verdict
/// and every format (text, Markdown title, HTML title), so a script can read it:
///   `CUDA OOM on spark-b GPU 0 at 2026-04-09 00:47:13Z — pid 48211 VLLM::EngineCore (foreign) [high]`
///   `Host kernel OOM on node-3 at … — pid 4242 python3 (job); killed: pid 5151 postgres [high]`
///   `Not an OOM: NCCL error on node-b [medium]`
struct Headline {
  std::string lead;          ///< `CUDA OOM on spark-b GPU 0` (what and where)
  std::string when;          ///< `2026-04-09 00:47:13Z` (the lead says `at` it), or empty
  std::string culprit;       ///< `pid 48211 VLLM::EngineCore (foreign)`, `culprit unknown`, or empty
  /// The process `culprit` names and the incident's host it was phrased against, so a narrow
  /// terminal can phrase it again with a shorter name.
  std::optional<diagnose::ProcessRef> culprit_process;
  std::string host;
  std::string victim;        ///< `pid 5151 postgres` when the victim is not the culprit, else empty
  std::string victim_word = "killed";  ///< victim_word(v)
  std::string confidence;    ///< `high` | `medium` | `low`
};
Headline headline(const diagnose::Verdict& v);

/// The body without the confidence bracket (`with_victim` false leaves the victim clause out, as a
/// narrow terminal does: the Victim section names it), and the bracket alone (`[high]`).
std::string headline_body(const Headline& h, bool with_victim = true);
std::string headline_confidence(const Headline& h);

/// True when victim and culprit name different processes: different pids, else different
/// names; where either is known by neither, true unless the culprit is the job itself.
bool victim_differs(const diagnose::Verdict& v);

/// What happened to the victim: `killed`, or for a CUDA OOM `failed` (its allocation failed;
/// nothing was killed).
const char* victim_word(const diagnose::Verdict& v);

/// One row of the memory ledger as the reports show it. `share` rows partition the total.
struct LedgerRow {
  std::string label;
  std::string role;
  std::optional<std::int64_t> pid;
  std::optional<std::int64_t> bytes;
  bool share = false;
};

/// total, free, requested, shortfall, job entries, foreign entries, other holders,
/// unexplained, then the framework allocator's allocated / reserved — each only when known.
std::vector<LedgerRow> ledger_rows(const diagnose::Budget& b);

/// `12.3%` of `total`, or empty when it cannot be computed.
std::string share_text(std::int64_t bytes, const std::optional<std::int64_t>& total);

/// The findings that are neither the root nor an echo (same rule and event).
std::vector<const diagnose::Finding*> other_findings(const diagnose::Verdict& v);

/// When a timeline event happened: ISO UTC when placed, else `boot+93.1s` (boot-relative stamp
/// of a host whose boot time is unknown), else the raw stamp, else `line N`.
std::string event_time_text(const diagnose::TimelineEvent& e);

/// Who logged a timeline event: `pid 4242 python3, rank 1`, or empty when nothing is known.
std::string event_process_text(const diagnose::TimelineEvent& e);

/// `source:line` of a timeline event (just the source when the line is unknown).
std::string event_location(const diagnose::TimelineEvent& e);

/// Indexes (in timeline order) of at most `max` events around the failure: the root, every
/// echo (up to half of `max`), then the events nearest the root, alternating before and after.
/// Without a root: the last `max` events.
std::vector<std::size_t> events_around_failure(const std::vector<diagnose::TimelineEvent>& events,
                                               std::size_t max);

/// A host's clock alignment in words: `journald boot time (high)`, `not aligned`.
std::string clock_text(const diagnose::HostClock& h);

/// Sentence for an `unknown` verdict with no root: `no failure recognised in 3 sources (1,204 lines)`.
std::string nothing_found_phrase(const diagnose::Verdict& v);

}  // namespace culprit::report
