// Peels the prefixes that wrappers put in front of an application log line (ANSI colour,
// docker/CI stamps, vLLM/Ray process tags, torchrun rank tags, srun labels, glog and NCCL
// headers, logger headers) so the message is what the program printed, and keeps what each
// layer said (host, pid, rank, severity, time) for the event. Hand-written: no regex per line.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>

#include "culprit/core/event.hpp"

namespace culprit::ingest {

/// The stamp a prefix layer carried. `kind` says which parts are known.
struct PeeledTime {
  core::TsKind kind = core::TsKind::none;
  std::string raw;               ///< the stamp as written
  int year = 0;                  ///< 0 when the stamp has none
  int month = 0, day = 0;        ///< 0 for a time of day only
  double seconds_of_day = 0;     ///< with the fraction
  double utc_offset = 0;         ///< seconds east of UTC (`+02:00`); 0 for `Z` or no zone
};

/// What the prefixes of one line said. Optional parts are absent when no layer named them.
struct PeeledLine {
  std::string message;                  ///< the text after every prefix (one separator space eaten)
  std::string host;                     ///< NCCL `host:pid:tid`, pdsh `host: `
  std::optional<std::int64_t> pid;      ///< `(X pid=N)`, NCCL, torch elastic glog
  std::optional<int> rank;              ///< `[rankN]:`, `rank=N`, mpirun `[job,rank]`
  std::optional<int> local_rank;        ///< torchrun `[default0]:`
  std::optional<int> srun_task;         ///< srun --label `0: `
  std::optional<int> tp_rank, dp_rank, pp_rank, ep_rank;  ///< SGLang ` TP1`, vLLM `Worker_TP1`
  std::optional<int> cuda_dev;          ///< NCCL `[3]`
  std::optional<core::Severity> severity;
  PeeledTime time;
  std::string proc_name;                ///< `VllmWorker`, `EngineCore_DP0`, `RayWorkerWrapper`
  std::string ip;                       ///< Ray `ip=`
  std::string pod;                      ///< kubectl --prefix `[pod/<pod>/<container>]`
  std::string logger;                   ///< logger name or `file:line` from the header
  std::string pid_evidence;             ///< why `pid` belongs to the job ("vLLM worker prefix", …)
  int repeated = 0;                     ///< Ray `[repeated 12x across cluster]`
  int layers = 0;                       ///< prefix layers peeled; 0 for a bare line
  bool header = false;                  ///< a logger header (not only transport tags) was peeled
  bool logfmt = false;                  ///< a logfmt line: the message is rebuilt from its keys

  /// Groups the lines of one process / rank: lines with the same key come from one writer.
  /// Empty when no layer identified a writer.
  std::string key() const;
  /// The rank to put on the event: explicit rank, else srun task, else a lone TP rank.
  std::optional<int> effective_rank() const;
};

/// True when `a` and `b` name one host, one perhaps qualified (`node-17` / `node-17.cluster.local`).
bool same_host(std::string_view a, std::string_view b);

/// Knowledge about the whole text that a single line cannot give.
struct PeelOptions {
  /// Hosts that label lines pdsh-style (`worker-1: …`, DeepSpeed multi-node); see pdsh_hosts().
  const std::set<std::string, std::less<>>* pdsh_hosts = nullptr;
  /// The caller's census says the whole text holds no control byte (no ESC, no C0 but tab; its
  /// lines no \r) and no pasted `^[[`: strip_ansi would return each line as it is, so
  /// peel_line reads the line in place (the ANSI pass was a fifth of a big log's scan).
  bool plain = false;
};

/// The host-like labels that start many of `lines` (pdsh / DeepSpeed multi-node output; the
/// lines the parser peels): each at least 3 times, labels on at least a tenth of the first 20000
/// non-blank lines. A label seen only here and there (`step-10: loss …`) is message text, not a host.
std::set<std::string, std::less<>> pdsh_hosts(std::span<const std::string_view> lines);

/// Peels every recognised prefix of `raw` (ANSI colour first), outermost first.
PeeledLine peel_line(std::string_view raw, const PeelOptions& options = {});

/// The length of NCCL's debug tag `host:pid:tid [dev] ` at the start of `line`, behind a pdsh /
/// mpirun `host: ` label or not (every NCCL_DEBUG line has one; formats.md, NCCL), else 0.
std::size_t nccl_prefix_length(std::string_view line);

/// Copies host, pid, rank, time, severity and the rank-like fields (tp_rank, dp_rank, …) of
/// `peeled` into `event`. Stamps without a year get a wall time only when `year_hint` != 0.
/// A host the line names replaces event.host unless both name the same host (same_host).
void apply_peeled(const PeeledLine& peeled, core::Event& event, int year_hint);

/// Reads an ISO-like date-time `YYYY-MM-DD[T ]HH:MM:SS[.,frac][Z|±HH[:]MM]` at the start of
/// `s`. Returns its length (0 when absent) and fills `time` as a wall stamp.
std::size_t read_iso_stamp(std::string_view s, PeeledTime& time);

/// Reads a ctime stamp (`Thu Apr  9 00:47:22 2026`) at the start of `s`; length or 0.
std::size_t read_ctime_stamp(std::string_view s, PeeledTime& time);

/// Wall-clock UTC seconds of a stamp that has a date and a year (`year_hint` fills a missing
/// year); nullopt otherwise.
std::optional<double> stamp_epoch(const PeeledTime& time, int year_hint);

}  // namespace culprit::ingest
