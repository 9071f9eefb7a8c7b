// Leftover GPU holders: a process that holds (or held) GPU memory although nothing should run
// it any more — defunct, stopped, a serving engine's worker orphaned by its server, a process
// nvidia-smi cannot name. Pure over a record (unit-tested alone); roles.cpp feeds it the
// timeline's facts and writes the reasons to processes.leftover.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::diagnose {

/// What the timeline knows about one process that is not the job's.
struct LeftoverFacts {
  std::vector<std::string> names;       ///< every name it was seen under (nvidia-smi, ps)
  std::string cmdline;                  ///< ps COMMAND ('' unknown)
  std::string state;                    ///< ps STAT ('' unknown)
  std::optional<std::int64_t> ppid;     ///< ps PPID
  bool gpu_listed = false;              ///< an nvidia-smi snapshot lists it holding GPU memory
  /// The name of pid 1 on its host when a listing shows pid 1; nullopt when none does.
  std::optional<std::string> pid1_name;
  std::string driver_frame;             ///< its kernel stack's first frame in an nvidia module ('' none)
};

/// A serving engine's GPU worker process by its process title (vLLM's `VLLM::EngineCore`,
/// `VLLM::Worker_TP0`, `VllmWorker`, `EngineCore_DP0`; SGLang's `sglang::scheduler_TP0`; Ray's
/// `ray::RayWorkerWrapper`): a child its server starts and should take down with it.
bool engine_gpu_worker(std::string_view name);

/// The name nvidia-smi prints when NVML cannot read the process's name (`Unknown Error`, `Not
/// Found`, `[Not Found]`: a defunct process, or one outside this PID namespace). `N/A` is not
/// one: nvidia-smi prints it for every process inside a container.
bool unnamed_by_nvidia_smi(std::string_view name);

/// Why the process is a leftover, each reason a phrase (empty: it is not one). A process that
/// no snapshot lists counts only as an orphaned engine worker (its name says it held a GPU).
std::vector<std::string> leftover_reasons(const LeftoverFacts& p);

}  // namespace culprit::diagnose
