// Why a pid belongs to the job, in the words ingest stores in the processes table's
// `job_evidence` and diagnose matches there: one home for each, so a reworded reason cannot
// silently stop a query from finding it.
#pragma once

namespace culprit::core::job_evidence {

/// vLLM's `(VllmWorker rank=N pid=P)` / `(Worker_TP0 pid=P)` prefix: a GPU worker.
inline constexpr const char* kVllmWorkerPrefix = "vLLM worker prefix";
/// vLLM's `(EngineCore_0 pid=P)` prefix: the engine core, which holds the GPU in V1.
inline constexpr const char* kVllmEngineCorePrefix = "vLLM engine-core prefix";
/// vLLM V0's API server naming the engine process it started (`Started engine process with PID
/// P`, api_server.py 0.6–0.8): the engine, which holds the GPU and raises its errors.
inline constexpr const char* kVllmEngineProcess = "vLLM engine process (its API server's record)";
/// vLLM's `(APIServer pid=P)` prefix: the API server, which allocates no GPU memory.
inline constexpr const char* kVllmApiServerPrefix = "vLLM API server prefix";
/// Ray's `(Name pid=P)` prefix for any other actor or task name: a worker.
inline constexpr const char* kRayWorkerPrefix = "Ray worker prefix";
/// The job `culprit run` started (its snapshot manifest): its start time is exact.
inline constexpr const char* kCulpritRun = "culprit run";

}  // namespace culprit::core::job_evidence
