// The unit of the timeline: one dated fact read from a source.
// Parsers produce Events; the store writes them; diagnoses read them back with SQL.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::core {

/// How the event's raw stamp relates to wall-clock time.
enum class TsKind {
  none,            ///< the line carried no stamp (ordered by line only)
  wall,            ///< a full wall-clock stamp (date + time, zone known or assumed UTC)
  wall_no_year,    ///< syslog / vLLM / glog style: month, day and time but no year
  boot,            ///< seconds since boot (dmesg `[  93.118204]`)
  time_of_day,     ///< only a time of day (SGLang `[00:47:13]`)
};

std::string_view to_string(TsKind kind);

enum class Severity { debug, info, warning, error, critical };

std::string_view to_string(Severity severity);
std::optional<Severity> parse_severity(std::string_view text);

/// One named value extracted from a line (a regex group or a parser's field).
/// `numeric` values are written to JSON unquoted.
struct Field {
  std::string key;
  std::string value;
  bool numeric = false;
};

/// Stable event kinds used across parsers, rules and diagnoses. Rules may add their own kinds;
/// these are the ones code refers to.
namespace kind {
inline constexpr std::string_view kCudaOom = "cuda_oom";               // a device allocation failed
inline constexpr std::string_view kStartupMemCheck = "startup_mem_check";  // vLLM/SGLang/TF start-up check
inline constexpr std::string_view kKernelOom = "kernel_oom";           // a kernel OOM report (one block)
inline constexpr std::string_view kOomKill = "oom_kill";               // a single kill line without report
inline constexpr std::string_view kUserspaceOomKill = "userspace_oom_kill";
inline constexpr std::string_view kContainerOom = "container_oom";     // docker/k8s/slurm OOM records
inline constexpr std::string_view kSignalExit = "signal_exit";         // a process died by signal (-9, 137…)
inline constexpr std::string_view kTraceback = "traceback";            // one Python exception chain
inline constexpr std::string_view kXid = "xid";
inline constexpr std::string_view kNcclTimeout = "nccl_timeout";
inline constexpr std::string_view kPeerLost = "peer_lost";             // echoes of another rank's death
inline constexpr std::string_view kIllegalAccess = "illegal_memory_access";
inline constexpr std::string_view kHostAllocFail = "host_alloc_fail";
inline constexpr std::string_view kLog = "log";                        // a plain log line kept for context
/// The command typed at a paste's prompt, one event at the prompt's line in the source of the
/// output it printed: who the job is, in the user's own words (`docker logs sglang-worker`).
inline constexpr std::string_view kCommand = "command";
/// A frame or call of a process's first CUDA use (context creation, device query), printed next
/// to a CUDA error (rules/signals/cuda_first_use.toml): the process held nothing yet.
inline constexpr std::string_view kCudaFirstUse = "cuda_first_use";
/// How the job `culprit run` started ended (its snapshot manifest: exit code or signal, and
/// whether the kernel log was read), never from a log line.
inline constexpr std::string_view kJobEnd = "job_end";
/// PyTorch's allocator snapshot (format torch_memory_snapshot): its totals and largest free block
/// (one event), and each of its largest live allocation sites (one event each: detail, which the
/// report's allocator section shows, not its timeline).
inline constexpr std::string_view kAllocatorSnapshot = "allocator_snapshot";
inline constexpr std::string_view kAllocatorSite = "allocator_site";
/// Every kind above: a signal may name one of these, or a kind some diagnosis query reads.
inline constexpr std::array kAll = {kCudaOom,  kStartupMemCheck, kKernelOom,   kOomKill,       kUserspaceOomKill,
                                    kContainerOom, kSignalExit,  kTraceback,   kXid,           kNcclTimeout,
                                    kPeerLost,     kIllegalAccess, kHostAllocFail, kLog,         kCommand,
                                    kCudaFirstUse, kJobEnd,      kAllocatorSnapshot, kAllocatorSite};
}  // namespace kind

/// One dated fact. `line` is 1-based within the source; `line_end` >= `line` for blocks.
struct Event {
  std::int64_t source_id = 0;
  std::int64_t line = 0;
  std::int64_t line_end = 0;
  std::optional<double> ts;        ///< wall-clock UTC seconds, when known at parse time
  std::string ts_raw;              ///< the stamp as the line wrote it
  TsKind ts_kind = TsKind::none;
  /// The raw stamp as a number: boot seconds (boot), seconds of the day (time_of_day), or seconds
  /// since 1 January counted as in a leap year (wall_no_year: Mar 1 is day 60 every year; clock
  /// alignment subtracts a day from Mar 1 on in common years).
  std::optional<double> ts_value;
  std::string host;
  std::optional<std::int64_t> pid;
  std::string comm;                ///< process name as this source saw it
  std::optional<int> rank;
  std::string kind{kind::kLog};
  Severity severity = Severity::info;
  std::string rule;                ///< the signal id (or parser name) that made it
  std::string message;             ///< the line (or block) with transport prefixes peeled
  std::vector<Field> fields;

  const Field* field(std::string_view key) const;
  std::string field_or(std::string_view key, std::string_view fallback = {}) const;
  void set(std::string key, std::string value, bool numeric = false);
  void set_number(std::string key, double value);
  void set_int(std::string key, std::int64_t value);
  /// Sets `key` only when the reading has a value (a figure the log did not print is no field).
  void set_int_if(std::string key, const std::optional<std::int64_t>& value);
};

}  // namespace culprit::core
