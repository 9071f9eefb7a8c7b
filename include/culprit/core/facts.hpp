// What a signal declares it provides (rules/README.md "What a signal provides"), in the words the
// code reads: a signal's TOML says `provides = ["failing_pid"]`, `framework = "jax"` or
// `killer = "limit"`, and every event it makes carries them as fields, so C++ asks an event
// what it is, never which rule made it. One home for each word: the rule reader refuses a fact,
// framework or killer not listed here, and a test requires every one of them declared by a
// built-in signal, so code and rules cannot drift apart.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::core {
struct Event;
}

namespace culprit::core::fact {

/// A serving engine's start-up free-memory check: the process holds only its context there
/// (the ledger's start-up stage).
inline constexpr std::string_view kStartupCheck = "startup_check";
/// The line names the process whose allocation failed (`raised_pid`, `name`): Ray's
/// `RayTaskError(...) (pid=N, ip=…)`.
inline constexpr std::string_view kFailingPid = "failing_pid";
/// The line pairs a rank with its pid (`local_rank`, `pid`: torchrun's `failed (exitcode: N)
/// local_rank: R (pid: P)`): a `[rankR]:` traceback that names no pid is that process's.
inline constexpr std::string_view kRankPid = "rank_pid";
/// The device's total and free memory before the process allocated (`total_bytes`,
/// `free_bytes`, or `which` + `amount_bytes`): TensorFlow's device-creation lines.
inline constexpr std::string_view kDeviceMemory = "device_memory";
/// A GPU-memory setting the job's own logs echo (`setting`, `value`), which a job-caused OOM's
/// advice names.
inline constexpr std::string_view kMemorySetting = "memory_setting";
/// A serving engine's own KV-cache budget came up short after the weights (vLLM's "No available
/// memory for the cache blocks", a KV cache too small for max_model_len, SGLang's "Not enough
/// memory … increase --mem-fraction-static"): the engine's share of the GPU is too small for its
/// settings, so the advice raises that share or lowers the context length, never the share.
inline constexpr std::string_view kKvCacheBudget = "kv_cache_budget";
/// The inputs say a second serving engine (another instance, another model's server) shares the
/// failing GPU: the start-up or KV-cache check of the new one came up short by the other's
/// memory (vLLM up to 0.8 charges memory in use on the device to the new instance).
inline constexpr std::string_view kSecondInstance = "second_instance";
/// The driver's own Xid line (`NVRM: Xid (PCI:…): N, …`), which the fall-off record defers to.
inline constexpr std::string_view kXidLine = "xid_line";
/// The driver says a GPU stopped responding (NVRM), which groups with its Xid.
inline constexpr std::string_view kGpuNotResponding = "gpu_not_responding";
/// The driver says a GPU fell off the bus (NVRM), with or without an Xid line.
inline constexpr std::string_view kFallenOffBus = "fallen_off_bus";

inline constexpr std::array kAll = {kStartupCheck,     kFailingPid,    kRankPid,          kDeviceMemory,
                                    kMemorySetting,    kKvCacheBudget, kSecondInstance,   kXidLine,
                                    kGpuNotResponding, kFallenOffBus};

/// The event field the facts are kept in, each between single spaces (" a b "), so that one
/// `instr` asks for one.
inline constexpr std::string_view kField = "provides";

/// The field's value for `facts`; "" for none.
std::string field_value(const std::vector<std::string>& facts);
/// Whether `event` carries `fact`.
bool provides(const Event& event, std::string_view fact);
/// An SQL condition that the events row `alias` carries `fact` (a constant: `fact` is one of
/// kAll, never user text).
std::string provides_sql(std::string_view fact, std::string_view alias = "e");

}  // namespace culprit::core::fact

namespace culprit::core::framework {

/// The frameworks whose signals say so (`framework = "..."`) and whose own settings a
/// job-caused OOM's advice names (diagnose/advice.cpp).
inline constexpr std::string_view kLlamaCpp = "llama.cpp";
inline constexpr std::string_view kJax = "jax";
inline constexpr std::string_view kTensorflow = "tensorflow";
inline constexpr std::string_view kMps = "mps";
inline constexpr std::string_view kVllm = "vllm";
inline constexpr std::string_view kSglang = "sglang";
inline constexpr std::string_view kTensorrtLlm = "tensorrt-llm";
inline constexpr std::array kAll = {kLlamaCpp, kJax, kTensorflow, kMps, kVllm, kSglang, kTensorrtLlm};

/// The event field a signal's framework is kept in.
inline constexpr std::string_view kField = "framework";

}  // namespace culprit::core::framework

namespace culprit::core::killer {

/// A limit enforcer: it kills the job for passing its own allowance (Slurm's accounting, YARN's
/// container monitor, Dask's nanny): the job over its own limit.
inline constexpr std::string_view kLimit = "limit";
/// A pressure killer: it kills whatever scores highest when the node runs short (earlyoom,
/// systemd-oomd, the kubelet's eviction, Ray's monitor): the victim is weighed against the others.
inline constexpr std::string_view kPressure = "pressure";
inline constexpr std::array kAll = {kLimit, kPressure};

/// The event field a signal's killer kind is kept in (rules/diagnoses/other_killers.toml reads it).
inline constexpr std::string_view kField = "killer";

}  // namespace culprit::core::killer
