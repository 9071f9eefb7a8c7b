// Reads the figures out of PyTorch's caching-allocator OOM message (formats.md §3.1, every
// generation since 1.0, CUDA/HIP/XPU), so the failure carries a reading of the GPU: what was
// asked for, what the device had, and which processes held it (the NVML list).
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "culprit/core/event.hpp"
#include "culprit/core/records.hpp"

namespace culprit::ingest {

struct ParseContext;

/// Sizes at or above this (NVML_VALUE_NOT_AVAILABLE prints as 17179869184.00 GiB) are unknown.
inline constexpr double kUnknownSizeBytes = 1125899906842624.0;  // 1 PiB

/// One process of the NVML list: `Process <pid> has <sz> memory in use.`
struct TorchOomProcess {
  std::int64_t pid = 0;
  std::optional<std::int64_t> bytes;  ///< nullopt when NVML said "not available"
};

/// The figures an OOM message gave; each is absent when the message (or its generation) lacks
/// it or was cut short. Sizes are bytes.
struct TorchOom {
  std::string device;                                 ///< CUDA, HIP, XPU
  std::optional<int> gpu;
  std::optional<std::int64_t> requested, total, free;
  std::optional<std::int64_t> allocated;              ///< live tensors ("allocated by PyTorch")
  std::optional<std::int64_t> reserved;               ///< total reserved by the caching allocator
  std::optional<std::int64_t> reserved_unallocated;   ///< 2.1+: "reserved by PyTorch but unallocated"
  std::optional<std::int64_t> private_pools, allowed;
  std::optional<std::int64_t> self;                   ///< "this process has <sz> memory in use"
  bool self_listed = false;                           ///< the sentence was there (even if unknown)
  std::vector<TorchOomProcess> processes;
};

/// True when `message` holds an allocator OOM (`CUDA out of memory. Tried to allocate`), or the
/// 2.1+ body pasted without that head (`... Tried to allocate 2.00 GiB. GPU 0 has a total
/// capacity of …`: the line opens with it, after blanks and an elision mark).
bool is_torch_oom(std::string_view message);

/// Parses the OOM figures; nullopt when `message` is not an allocator OOM.
std::optional<TorchOom> parse_torch_oom(std::string_view message);

/// Sets requested_bytes, gpu, total_bytes, free_bytes, used_bytes, allocated_bytes,
/// reserved_bytes, reserved_unallocated_bytes, private_pool_bytes, allowed_bytes, self_bytes,
/// proc_<pid>_bytes, processes (count), oom_device on `event`.
void set_torch_oom_fields(const TorchOom& oom, core::Event& event);

/// The GPU reading the message amounts to (gpu index, mem_total, mem_used = total − free, the
/// listed processes, and the failing process when `event.pid` is known); nullopt without a GPU
/// index or any figure.
std::optional<core::GpuSnapshot> torch_oom_snapshot(const TorchOom& oom, const core::Event& event);

/// Pushes the snapshot and the process sightings (the failing process as job, the listed
/// ones as not known to be job) into `ctx.sink`. `reported` (optional) remembers the
/// (host, pid, job) sightings already pushed, so a message printed twice sights each pid once.
void report_torch_oom(const TorchOom& oom, const core::Event& event, ParseContext& ctx,
                      std::set<std::tuple<std::string, std::int64_t, bool>>* reported = nullptr);

}  // namespace culprit::ingest
