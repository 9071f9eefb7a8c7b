// Structured readings that are more than a line: sources, GPU and host memory snapshots,
// kernel OOM reports with their task tables, and process sightings. Sizes are bytes.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace culprit::core {

/// A stream of text with a name and a host (a file, an archive member, a paste segment).
struct SourceInfo {
  std::string name;        ///< display name, e.g. `spark-b/worker.log` or `<stdin>:12`
  std::string host;        ///< empty when unknown
  std::string format;      ///< sniffed format id, e.g. `dmesg`, `nvidia_smi_table`
  std::int64_t bytes = 0;
  std::int64_t lines = 0;
  std::int64_t first_line = 1;  ///< for paste segments: line of the segment in the paste
  std::string origin;      ///< the input path the source came from
  std::string host_from;   ///< where `host` came from: `folder name`, `--host`, `prompt` ('' none)
};

struct GpuProcess {
  std::int64_t pid = 0;
  std::string name;
  std::string type;                     ///< C, G, C+G, or empty
  std::optional<std::int64_t> mem_used; ///< bytes; nullopt for N/A
  std::optional<int> gpu;
};

/// One reading of one GPU (nvidia-smi table row / CSV row / -q block), with its processes.
struct GpuSnapshot {
  std::int64_t source_id = 0;
  std::int64_t line = 0;
  std::string host;
  std::optional<double> ts;
  std::string ts_raw;
  int gpu = 0;
  std::string model;
  std::string bus_id;
  std::optional<std::int64_t> mem_used;
  std::optional<std::int64_t> mem_total;
  bool unified = false;                 ///< memory "Not Supported" (GB10, Jetson)
  std::vector<GpuProcess> processes;
};

/// `free` output (or /proc/meminfo): host memory in bytes.
struct HostMemory {
  std::int64_t source_id = 0;
  std::int64_t line = 0;
  std::string host;
  std::optional<double> ts;
  std::optional<std::int64_t> total, used, free, shared, buff_cache, available;
  std::optional<std::int64_t> swap_total, swap_used, swap_free;
};

/// A row of the kernel's OOM task table. Page counts stay pages; `page_size` on the report.
struct OomTask {
  std::int64_t pid = 0;
  std::optional<std::int64_t> uid, tgid, total_vm_pages, rss_pages, rss_anon_pages,
      rss_file_pages, rss_shmem_pages, pgtables_bytes, swapents;
  std::optional<int> oom_score_adj;
  std::string name;
};

/// One kernel OOM report: invoked line, memcg block, task table, oom-kill summary, kill line(s).
struct OomReport {
  std::int64_t event_id = 0;            ///< filled by the sink when the event is written
  std::string host;
  std::string constraint;               ///< CONSTRAINT_NONE, CONSTRAINT_MEMCG, … (or inferred)
  bool memcg = false;                   ///< a cgroup limit, not the whole host
  std::string oom_memcg, task_memcg, cpuset;
  std::optional<std::int64_t> trigger_pid;
  std::string trigger_comm, gfp_mask;
  std::optional<int> order, trigger_oom_score_adj;
  std::optional<std::int64_t> victim_pid, victim_uid;
  std::string victim_comm;
  std::optional<std::int64_t> victim_total_vm, victim_anon_rss, victim_file_rss, victim_shmem_rss;
  std::optional<int> victim_oom_score_adj;
  std::optional<std::int64_t> memcg_usage, memcg_limit, memcg_failcnt;
  std::optional<std::int64_t> swap_total_kb, swap_free_kb;  ///< from Mem-Info, when present
  std::int64_t page_size = 4096;
  std::string reason;                   ///< `Out of memory`, `Memory cgroup out of memory`, …
  std::vector<OomTask> tasks;
  std::vector<std::int64_t> other_killed_pids;  ///< memory.oom.group / several kills
};

/// What one source says about a process: it exists, under a name, maybe in a container,
/// and whether the source is the job's own log (so the pid belongs to the job).
struct ProcessSighting {
  std::string host;
  std::int64_t pid = 0;
  std::optional<std::int64_t> ppid;  ///< parent pid (`ps` PPID); 1 for a process orphaned to init
  std::string name;
  std::string cmdline;
  std::string container;
  std::string user;
  std::optional<double> ts;
  std::string state;         ///< `ps` STAT / S (`R`, `Sl`, `T`, `Z`…); '' when not listed by ps
  std::optional<double> started;   ///< when it started (UTC s; `ps` lstart, or a day's end for `Apr08`)
  std::optional<double> elapsed;   ///< how long it had run when listed (`ps` etime / etimes)
  std::optional<std::int64_t> rss; ///< resident memory in bytes (`ps` RSS)
  bool job = false;          ///< the job's own logs name this pid
  std::string evidence;      ///< why (`sglang worker log`, `nvidia-smi`, `torchrun`)
  /// From a recorded /proc/PID/status and /proc/PID/cgroup (the snapshot's proc-status.txt):
  std::optional<std::int64_t> nspid{};  ///< its pid in its own (innermost) pid namespace: NSpid's last
  std::string cgroup{};               ///< its cgroup's path (core::cgroup_path_of)
  bool absent = false;                ///< /proc had no such pid, read from the host's pid namespace
};

/// A container listed by `docker ps` (or inspect): who it is, what it runs, since when.
struct ContainerInfo {
  std::string host;
  std::string id, name, image, command, status;
  std::optional<double> up_seconds;  ///< from `Up 3 days`: how long it had run when listed
  std::string pod{}, pod_namespace{};  ///< the Kubernetes pod it runs in (`crictl ps` POD, NAMESPACE)
};

}  // namespace culprit::core
