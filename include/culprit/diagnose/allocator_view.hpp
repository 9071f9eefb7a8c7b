// The caching allocator's own view at a CUDA OOM (PyTorch's memory snapshot, read by the
// `torch_memory_snapshot` format): the fragmentation figures and the largest live allocations
// by the Python frame that made them, shown beside the ledger. Plain data; renderers read it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace culprit::diagnose {

/// Sites a report shows at most (the parser keeps as many: ingest's torch_memory::kMaxSites).
inline constexpr int kMaxAllocationSites = 10;

/// Live memory one Python frame allocated (the snapshot's active_allocated blocks).
struct AllocationSite {
  std::string file;        ///< as the snapshot recorded it (a path)
  std::int64_t line = 0;
  std::string function;
  std::int64_t bytes = 0;
  std::int64_t blocks = 0;
  std::int64_t largest = 0;  ///< its largest block
};

/// One snapshot's figures. Sizes are bytes. unallocated = reserved − allocated: memory the
/// allocator holds from the driver but no tensor uses; a request larger than `largest_free`
/// cannot be served from it however large it is (the allocator does not join blocks of two
/// segments).
struct AllocatorView {
  std::string host;
  std::optional<int> gpu;
  std::optional<double> ts;  ///< when the hook took it (UTC), as placed on the timeline
  std::string source;      ///< the snapshot file, as the report's sources name it
  std::int64_t line = 0;
  std::string torch_version;
  std::int64_t reserved = 0, allocated = 0, active = 0, unallocated = 0;
  std::int64_t largest_free = 0;
  std::optional<std::int64_t> requested;  ///< the failed request: the OOM's message, else the ledger's
  std::int64_t segments = 0, blocks = 0, live_blocks = 0, free_blocks = 0;
  std::int64_t unattributed = 0;  ///< live bytes whose blocks carry no Python frame (history was off)
  std::int64_t site_count = 0;    ///< distinct sites; `sites` holds the largest
  std::vector<AllocationSite> sites;
  bool cut = false;               ///< a bound dropped segments or blocks from the snapshot
};

/// Whether the request could not fit in any free block although the allocator's cache held
/// enough in total: fragmentation, the case `expandable_segments` addresses.
bool fragmented(const AllocatorView& view);

}  // namespace culprit::diagnose
