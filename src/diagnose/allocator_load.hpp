// Reads the allocator view (culprit/diagnose/allocator_view.hpp) out of the timeline for the
// report: the `allocator_snapshot` event nearest the root failure and its `allocator_site`s.
#pragma once

#include <optional>

#include "culprit/diagnose/finding.hpp"
#include "culprit/store/database.hpp"

namespace culprit::diagnose {

/// Snapshot events looked at (the nearest one to the root is chosen).
inline constexpr int kMaxAllocatorSnapshots = 64;

/// The snapshot on the root failure's host (any host when none is), nearest the root in time,
/// else the last one read; its request from the OOM's message, else the ledger's when the
/// ledger is of that host and GPU. nullopt when no snapshot was read.
std::optional<AllocatorView> load_allocator_view(store::Database& db, const Verdict& verdict);

}  // namespace culprit::diagnose
