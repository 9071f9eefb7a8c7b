// The GPU memory ledger as plain records, and the pure function that turns them into a budget
// and a culprit. No SQLite here: ledger.cpp loads a GpuLedgerInput from the timeline once;
// decide_ledger() reasons over it and is unit-tested over hand-made records
// (tests/unit/diagnose/test_ledger_rules.cpp). Each culprit rule has an id (LedgerResult::rule,
// JSON `budget.rule`) and a line in ARCHITECTURE.md ("Ledger rules").
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "culprit/diagnose/finding.hpp"

namespace culprit::diagnose {

inline constexpr std::int64_t kMiB = std::int64_t{1} << 20;
inline constexpr std::int64_t kGiB = std::int64_t{1} << 30;

/// What the failing process can hold beyond what its framework counts (PyTorch's reserved
/// pool, TensorFlow's allocator, nothing at all before its first allocation): the CUDA context
/// (≈300–600 MiB with CUDA 11/12 lazy loading, more without), cuBLAS / cuDNN workspaces and
/// NCCL's buffers. 1 GiB covers those on every recent stack; memory beyond it is another
/// holder's. Not applied where NVML measured the process ("this process has": context included).
inline constexpr std::int64_t kContextBound = kGiB;

/// The rule ids (ARCHITECTURE.md "Ledger rules" gives each its threshold and why).
namespace ledger_rule {
inline constexpr const char* kForeignHolder = "foreign-holder";          ///< a foreign holder covers the shortfall
inline constexpr const char* kForeignHolders = "foreign-holders";        ///< foreign holders together cover it
inline constexpr const char* kListedOther = "listed-other-process";      ///< a process listed apart from "this process", larger than it
inline constexpr const char* kUnaccounted = "unaccounted-holder";        ///< capacity − free beyond the job's own + bound
inline constexpr const char* kStartupCheck = "startup-check-holder";     ///< the same at a serving engine's start-up check
inline constexpr const char* kContextCreate = "context-create-failed";   ///< no room for even a CUDA context
inline constexpr const char* kInvisibleHolder = "invisible-holder";      ///< a full GPU, no process listed, the job's share unknown
inline constexpr const char* kSecondInstance = "second-instance";        ///< another engine instance on the GPU, said by the inputs
inline constexpr const char* kUnknownHolder = "unattributed-holder";     ///< a large holder no log ties to anyone
inline constexpr const char* kRanksShareGpu = "ranks-share-gpu";          ///< the job's own processes fill the GPU together
inline constexpr const char* kJobItself = "job-itself";                  ///< the ledger leaves nothing else
/// Every id, as the JSON schema's `budget.rule` enumerates them (a unit test holds the two together).
inline constexpr std::array kAll = {kForeignHolder, kForeignHolders,  kListedOther,  kUnaccounted,
                                    kStartupCheck,  kContextCreate,   kInvisibleHolder, kSecondInstance,
                                    kUnknownHolder, kRanksShareGpu,   kJobItself};
}  // namespace ledger_rule

/// When the allocation failed, which says what the failing process could hold at that point.
enum class FailureStage {
  running,         ///< an allocation of a running process (it holds its framework's pool + context)
  startup_check,   ///< a serving engine's start-up free-memory check, or a framework's free figure at
                   ///< device creation (TensorFlow): the process holds only its context
  context_create,  ///< creating the CUDA context failed: an OOM at the process's first CUDA use
                   ///< (cuCtxCreate / cuInit, lazy init, a device query): it held nothing yet
};

/// One process holding memory on the failing GPU (from the error's own list or a snapshot).
struct GpuHolder {
  std::int64_t pid = 0;
  std::int64_t bytes = 0;
  std::string name;
  std::string role;       ///< job | foreign | unknown ('' = unknown) from assign_roles
  std::string why;        ///< the role's reasons
  std::string container;
  std::string type;       ///< nvidia-smi's C / G / C+G ('' when the error quoted it)
  bool from_error = false;  ///< quoted by the error message itself (PyTorch's `Process N has`)
  /// nvidia-smi printed no name for it (`[Not Found]`, `Unknown Error`: it could not read
  /// /proc/PID): the pid is another PID namespace's — the host's, seen from a container — or gone.
  bool outside_view = false;
};

/// A CPU process's resident memory (`ps`), a holder of the pool on unified memory.
struct HostProcess {
  std::int64_t pid = 0;
  std::string name;
  std::int64_t rss = 0;
};

/// Everything the culprit decision needs, as plain data.
struct GpuLedgerInput {
  std::string host;
  std::optional<int> gpu;
  bool unified = false;
  bool mig = false;          ///< the GPU is split into MIG instances
  bool multi_rank = false;   ///< the failing process is one rank of several (rank prefix, torchrun)
  bool from_snapshot = false;  ///< capacity / free came from a table snapshot of the GPU, not the error
  bool kv_budget = false;      ///< the failure is a serving engine's own KV-cache budget (kv_cache_budget)
  std::string second_instance;  ///< where the inputs say a second engine shares the GPU (`file:line`), or ''
  FailureStage stage = FailureStage::running;
  std::optional<std::int64_t> capacity, free, requested;
  /// Percent of the GPU's memory in use from a monitor that prints only that (rocm-smi's concise
  /// `VRAM%`), when no snapshot gives bytes: enough to call the GPU full, not to size a ledger.
  std::optional<int> used_percent;
  bool amd_monitor = false;  ///< that snapshot is rocm-smi's or amd-smi's: advice names their process listings
  std::optional<std::int64_t> self_reported;  ///< NVML's "this process has" (context included)
  std::optional<std::int64_t> torch_allocated, torch_reserved;
  std::optional<std::int64_t> self_pid;       ///< the failing process as the logs name it
  std::string self_name;
  std::vector<GpuHolder> holders;             ///< may include the failing process itself
  std::vector<HostProcess> host_processes;    ///< unified memory: largest resident first
  /// Unified memory: the page cache (`free`'s buff/cache, /proc/meminfo Buffers + Cached) nearest
  /// the failure. CUDA's free figure on such a pool does not count it, so it is a holder of the
  /// pool (role `kernel`) that `sync; echo 3 > /proc/sys/vm/drop_caches` gives back.
  std::optional<std::int64_t> page_cache;
};

struct LedgerResult {
  Budget budget;
  std::optional<ProcessRef> culprit;
  std::optional<ProcessRef> victim;  ///< the process whose allocation failed, when known
  Confidence confidence = Confidence::low;
  std::string rule;                  ///< ledger_rule id that chose the culprit
  std::vector<Evidence> evidence;    ///< snapshot lines that back the ledger (filled by the loader)
  std::string reason;                ///< one sentence: why this culprit
  /// The last row's answer with nothing known of the GPU (no sizes, no process list, no stage):
  /// a repeat of the same failure whose ledger knows more decides instead (engine.cpp's merge).
  bool by_default = false;
  /// Only a monitor's share of the GPU in use is known (GpuLedgerInput::used_percent), no bytes:
  /// the budget is still shown, with that share as its arithmetic, so the report does not say
  /// that no snapshot of the GPU was read.
  bool share_only = false;
};

/// The ledger and the culprit it implies. Pure: same input, same answer.
LedgerResult decide_ledger(const GpuLedgerInput& in);

}  // namespace culprit::diagnose
