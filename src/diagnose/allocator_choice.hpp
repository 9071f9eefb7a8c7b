// Which allocator snapshot the report shows (culprit/diagnose/allocator_view.hpp), chosen over
// the loaded views (load_report.cpp's load_allocator_views): no SQL here.
#pragma once

#include <optional>
#include <vector>

#include "culprit/diagnose/finding.hpp"

namespace culprit::diagnose {

/// Snapshot events read at most (the report shows one of them).
inline constexpr int kMaxAllocatorSnapshots = 64;

/// The snapshot on the root failure's host (any host when there is no root), nearest the root
/// in time, else the last read; its request from the OOM's message, else the ledger's when the
/// ledger is a GPU's of that host and GPU. nullopt when `views` is empty.
std::optional<AllocatorView> choose_allocator_view(std::vector<AllocatorView> views, const Verdict& verdict);

}  // namespace culprit::diagnose
