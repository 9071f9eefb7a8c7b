// PyTorch's caching-allocator snapshot (torch.cuda.memory._snapshot()) as JSON: what the
// allocator held at a CUDA OOM, read into the figures the report shows beside the ledger —
// reserved, allocated, reserved − allocated, the largest free block against the request that
// failed, and the largest live allocations grouped by the Python frame that made them.
//
// The layout is PyTorch's own (torch/cuda/memory.py `_snapshot`, torch/cuda/_memory_viz.py):
// 1.13 a list of segments; 2.0+ {"segments": [...], "device_traces": [...]}. A segment is
// {device, address, total_size, allocated_size, active_size, stream, segment_type, blocks}; a
// block {size, state, [address, requested_size], frames (2.1+) | history: [{addr, real_size,
// frames}] (1.13, 2.0)}; a frame {filename, line, name}, innermost first. Block states:
// active_allocated, active_pending_free, inactive (free). The Python hook
// (python/culprit/memory_snapshot.py) writes it with a `culprit_memory_snapshot` header (time,
// pid, torch version, the OOM's message, what its bounds dropped); a plain json.dump of the
// snapshot is read too.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::ingest::torch_memory {

/// Bounds (README "Bounds"): a text larger than kMaxBytes is not read; at most kMaxSegments
/// segments and kMaxBlocks blocks are read (the rest is counted as cut), kMaxFrames frames
/// looked at per block, kMaxSites sites kept.
inline constexpr std::size_t kMaxBytes = std::size_t{64} << 20;
inline constexpr std::size_t kMaxSegments = 65536;
inline constexpr std::size_t kMaxBlocks = 1 << 20;
inline constexpr std::size_t kMaxFrames = 64;
inline constexpr std::size_t kMaxSites = 10;
inline constexpr std::size_t kMaxTraceEntries = 1 << 20;  ///< device_traces entries looked at

/// Live memory that one Python frame (file:line in function) allocated: the frame is the
/// innermost Python frame outside torch's own package, else the innermost Python frame.
struct Site {
  std::string file;       ///< as recorded (a path)
  std::int64_t line = 0;
  std::string function;
  std::int64_t bytes = 0;    ///< sum of its active_allocated blocks' sizes
  std::int64_t blocks = 0;
  std::int64_t largest = 0;  ///< its largest block
};

/// The snapshot's figures. Sizes are bytes.
struct Summary {
  std::optional<int> device;
  std::optional<std::int64_t> pid;
  std::string time;            ///< the header's UTC stamp, as written ('' none)
  std::string torch_version;
  std::string error;           ///< the OOM's message the hook recorded ('' none)
  std::optional<std::int64_t> trace_request;  ///< the last device_traces `oom` entry's size (2.1+ with history "all")
  std::int64_t segments = 0;
  std::int64_t blocks = 0;     ///< blocks in the file (the header's blocks_total when larger)
  std::int64_t reserved = 0;   ///< Σ segments' total_size (+ what the hook's bounds dropped)
  std::int64_t allocated = 0;  ///< Σ allocated_size
  std::int64_t active = 0;     ///< Σ active_size
  std::int64_t live_blocks = 0, free_blocks = 0;
  std::int64_t largest_free = 0;        ///< the largest inactive block (a request must fit in one)
  std::int64_t unattributed = 0;        ///< live bytes of blocks without a Python frame
  std::int64_t site_count = 0;          ///< distinct sites (sites holds the largest kMaxSites)
  std::vector<Site> sites;              ///< largest bytes first
  bool cut = false;                     ///< a bound (the hook's or this reader's) dropped segments or blocks
};


/// Reads one JSON value (the whole snapshot); nullopt when it is not a snapshot (no segment list).
std::optional<Summary> summarize(std::string_view json);

/// The innermost Python frame outside torch's package among `frames` ((file, line, function),
/// innermost first), else the innermost Python frame; nullopt when none is a Python frame.
struct Frame {
  std::string_view file;
  std::int64_t line = 0;
  std::string_view function;
};
std::optional<Frame> allocation_site(const std::vector<Frame>& frames);

}  // namespace culprit::ingest::torch_memory
