// The kernel OOM report grammar (formats.md Part 1): collects the lines of one OOM kill (invoked
// line … task table … kill line, reaper) from one host and turns them into ONE `kernel_oom` event
// plus a core::OomReport, or an `oom_kill` event when only kill lines were seen.
// Private to the ingest module; kernel_log.cpp drives it line by line.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/core/records.hpp"
#include "culprit/ingest/parser.hpp"
#include "kernel_stamp.hpp"

namespace culprit::ingest::kernel {

/// What feeding a line to an open block did.
enum class Feed {
  taken,     ///< a line of the OOM grammar, consumed
  absorbed,  ///< inside the report but not grammar (stack frames, Mem-Info, registers …)
  rejected,  ///< not part of this block: finish() it, then handle the line afresh
};

/// True when `message` (prefixes peeled) can start a block: the invoked line, or — for reports
/// whose head was cut or rate-limited away — a memcg line (a counter needs usage and limit),
/// the task table, the `oom-kill:`
/// summary, a memory.oom.group line or a kill line. `Mem-Info:` alone does not (page
/// allocation failures and sysrq-m print it too).
bool opens_block(std::string_view message);
/// True when `message` (prefixes peeled) is a row of an OOM report's task table,
/// `[ <pid>]  <uid> <tgid> <total_vm> …`: the one part of a report that runs for thousands of
/// lines without a block opener word. A byte check.
bool is_task_row(std::string_view message);
/// The same for a whole kernel-log line, its stamp or syslog prefix not peeled (the row starts
/// the line or follows a space or a /dev/kmsg record's `;`), for ingest::quiet_piece_end.
bool looks_like_task_row(std::string_view line);
/// Words one of which every line opens_block() takes holds (ASCII case folded): a line without
/// any cannot open a block.
const std::vector<std::string>& block_opener_words();

/// The parts of a kill line `[<reason>: ]Killed process <pid> (<comm>) total-vm:…` (every
/// wording of §1.8: with/without shmem-rss, UID/pgtables/oom_score_adj, RHEL 6
/// `Killed process N, UID u, (x)`, 2.6 `vsz:`, comma-grouped numbers). Sizes in bytes.
struct KillLine {
  std::string reason;
  std::int64_t pid = 0;
  std::string comm;
  std::optional<std::int64_t> uid, total_vm, anon_rss, file_rss, shmem_rss, pgtables;
  std::optional<int> oom_score_adj;
};
std::optional<KillLine> parse_kill_line(std::string_view message);

/// `oom-kill:constraint=…` (5.0+), fields parsed from both ends (`task=` may hold commas).
struct OomSummary {
  std::string constraint, nodemask, cpuset, mems_allowed, oom_memcg, task_memcg, task;
  bool global_oom = false;
  std::optional<std::int64_t> pid, uid;
};
std::optional<OomSummary> parse_oom_summary(std::string_view message);

/// Kubernetes pod uid (dashed form) and container id (hex) named by a cgroup path, if any:
/// `/kubepods/burstable/pod<uid>/<id>`, `…kubepods-burstable-pod<uid_with_underscores>.slice/
/// cri-containerd-<id>.scope`, `/docker/<id>`, `/system.slice/docker-<id>.scope`, `crio-<id>`.
struct CgroupIds {
  std::string pod_uid, container_id;
};
CgroupIds cgroup_ids(std::string_view path);

/// `<comm> invoked oom-killer: gfp_mask=…, [nodemask=…,] order=…, oom_score_adj=…` (§1.1); the
/// comm may hold spaces and parentheses, so the split is at the last ` invoked oom-killer: `.
struct InvokedLine {
  std::string comm, gfp_mask, nodemask;
  std::optional<int> order, oom_score_adj;
};
std::optional<InvokedLine> parse_invoked(std::string_view message);

/// Stack-dump header `CPU: <n> [UID: <u>] PID: <pid> Comm: <comm> {Not tainted|Tainted: <flags>}
/// <kernel version> #<build>` (§1.3; `UID:` since 6.11). The comm may hold spaces; the version is
/// the first word after the taint flags (which are capitals and spaces).
struct CpuLine {
  std::int64_t pid = 0;
  std::optional<std::int64_t> uid;
  std::string comm, kernel_version;
};
std::optional<CpuLine> parse_cpu_line(std::string_view message);

/// memcg counter line `memory: usage NkB, limit NkB, failcnt N` (also `memory+swap:`, `kmem:`,
/// `swap:`), sizes in bytes.
struct CounterLine {
  std::string name;
  std::optional<std::int64_t> usage, limit, failcnt;
};
std::optional<CounterLine> parse_counter(std::string_view message);

/// `<reason>: Kill process N (x) score S or sacrifice child` (≤ 5.0), or
/// `Kill process N (x) sharing same memory` (`sharing` = true).
struct SelectLine {
  std::string reason;
  std::int64_t pid = 0;
  std::string comm;
  std::optional<std::int64_t> score;
  bool sharing = false;
};
std::optional<SelectLine> parse_kill_select(std::string_view message);

/// Integer with optional sign, `,` thousands separators and a `kB`/`KB` suffix removed.
std::optional<std::int64_t> parse_number(std::string_view text);

/// The figures of a report's `Mem-Info:` dump (§1.5) that say where memory went: the global
/// page counters (slab, shmem), each zone's free pages against its watermarks, the zones with
/// buddy free lists, and hugepages reserved per size. Fed the lines after `Mem-Info:`.
class MemInfo {
 public:
  /// Takes one line of the dump; false when the line is not one of these figures.
  bool feed(std::string_view message);
  /// Adds the fields (`slab_unreclaimable_bytes`, `shmem_bytes`, `zones`, `zones_below_min`,
  /// `zones_below_low`, `buddy_zones`, `hugepages_<size>kB_total`) to `event`.
  void emit(core::Event& event, std::int64_t page_size) const;

 private:
  struct Zone {
    std::string name;  ///< `Node 0 Normal`
    std::optional<std::int64_t> free_kb, min_kb, low_kb;
  };
  std::optional<std::int64_t> slab_unreclaimable_pages_, shmem_pages_;
  std::vector<Zone> zones_;
  std::vector<std::string> buddy_zones_;
  std::vector<std::pair<std::int64_t, std::int64_t>> hugepages_;  ///< (size kB, total) summed per size
};

/// One OOM report (or a run of kill lines) from one host, assembled line by line.
class OomBlock {
 public:
  OomBlock() = default;

  /// Offers the next kernel line of this host. The first line fed must satisfy opens_block().
  Feed feed(std::int64_t seg_line, const KernelLine& line);

  /// True when the last line may continue on the next one: a task-table row that ended before
  /// its name, or (stamped logs) a kill / `oom-kill:` line that a terminal may have wrapped.
  bool wants_continuation() const { return pending_row_.has_value() || pending_tail_.has_value(); }
  /// Offers `raw` (the whole next line) as the wrapped tail of the pending line. True when taken.
  bool continue_row(std::int64_t seg_line, std::string_view raw, const KernelLine& line);

  /// True when `line` is too far in time from the block's last stamped line to belong to it.
  bool stale(const KernelLine& line) const;

  /// Emits the block: `kernel_oom` event + OomReport + process sightings, or `oom_kill`
  /// event(s) for a block of kill lines only. Adds a note when a report has no kill line.
  void finish(ParseContext& ctx);

  std::int64_t lines() const { return last_line_ - first_line_ + 1; }

 private:
  struct Stamp {
    core::TsKind kind = core::TsKind::none;
    std::optional<double> ts, ts_value, boot_ts;
    std::string ts_raw, host;
  };
  enum class Col {
    uid, tgid, total_vm, rss, rss_anon, rss_file, rss_shmem, pgtables_bytes, nr_ptes, nr_pmds,
    swapents, oom_score_adj, cpu, oom_adj, name, other
  };
  struct PendingRow {
    std::string text;  // the row so far (from `[`)
    std::int64_t seg_line = 0;
    bool stamped = false;
  };
  enum class RowParse { ok, incomplete, bad };
  struct PendingTail {
    enum class What { kill, summary, header } what = What::kill;
    std::string text;
  };

  void note_line(std::int64_t seg_line, const KernelLine& line);
  Feed feed_tail(std::string_view t, const KernelLine& line);
  static std::optional<double> time_of(const KernelLine& line);
  bool parse_header(std::string_view t);
  RowParse parse_row(std::string_view t, core::OomTask& task) const;
  void infer_page_size();
  void emit_kill_only(ParseContext& ctx);
  void emit_report(ParseContext& ctx);
  core::Event base_event(ParseContext& ctx) const;
  /// Writes which report parts (core/oom_parts.hpp) this block holds into `parts` and the
  /// missing ones into `parts_missing`: a kill line the kernel never printed (nothing killable,
  /// the victim already exiting) is not missing, nor an `oom-kill:` summary before 5.0.
  void set_parts(core::Event& ev) const;
  /// True when this kernel prints the `oom-kill:` summary (5.0+): its version from the stack
  /// header, or a kill line with `pgtables:` (5.4+).
  bool summary_expected() const;

  std::int64_t first_line_ = 0, last_line_ = 0;
  Stamp first_stamp_, kill_stamp_;
  std::optional<double> last_time_;  // last stamped line (boot or wall seconds)
  core::TsKind last_kind_ = core::TsKind::none;
  bool has_kill_stamp_ = false;

  core::OomReport report_;
  /// Adds a task-table row. Past kMaxTasks rows memory stays bounded by keeping the largest
  /// resident sets (what the table is read for: the hog); the rest are counted.
  void keep_task(core::OomTask&& task);
  std::int64_t dropped_tasks_ = 0;  // rows over kMaxTasks not kept (the smallest)
  bool report_content_ = false;  // anything beyond kill/reaper lines
  bool has_invoked_ = false, has_mem_info_ = false, has_memcg_block_ = false;
  bool killed_ = false, oom_group_ = false, reaped_ = false, no_killable_ = false;
  std::optional<std::int64_t> selected_pid_;
  std::string selected_comm_;
  std::optional<KillLine> victim_;
  std::optional<OomSummary> summary_;
  std::string kill_message_, summary_message_, invoked_message_;
  std::int64_t kill_line_ = 0, summary_line_ = 0, invoked_line_ = 0;  ///< segment lines of those messages
  std::string task_in_task_memcg_, task_in_oom_memcg_;
  std::optional<std::int64_t> memsw_usage_, memsw_limit_, kmem_usage_, swap_usage_, swap_limit_;
  std::optional<std::int64_t> pages_ram_, pages_reserved_, swap_cache_pages_;
  std::optional<std::int64_t> selected_score_;
  std::string kernel_version_;
  MemInfo mem_info_;
  std::vector<Col> cols_;
  bool cols_guessed_ = false;
  std::optional<PendingRow> pending_row_;
  std::optional<PendingTail> pending_tail_;
  std::optional<double> kill_time_;
  bool page_size_inferred_ = false;
  std::string exiting_comm_;
  std::optional<std::int64_t> exiting_pid_;
  std::optional<std::int64_t> reaped_pid_;  ///< `oom_reaper: reaped process N` seen before any kill line
  std::string reaped_comm_;
  bool memcg_frame_ = false;  ///< the call trace runs through mem_cgroup_out_of_memory
};

}  // namespace culprit::ingest::kernel
