// The report's loader: every SQL read behind Verdict::data, into plain records (report_data.hpp's
// structs), with each value bound, never written into the SQL. report_data.cpp decides what the
// pictures keep over these records and never sees the database. (load_timeline,
// load_host_clocks and load_memory_series are public: report_data.hpp.)
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "allocator_choice.hpp"
#include "culprit/diagnose/report_data.hpp"
#include "culprit/store/database.hpp"

namespace culprit::diagnose {

/// Every GPU's snapshots, in time order (unplaced last), with their processes and the roles the
/// diagnosis gave them, largest first; a unified-memory GPU's pool size from host_memory. All
/// samples: which are shown is keep_samples_near()'s.
std::vector<GpuSeries> load_gpu_series(store::Database& db);

/// The kernel OOM reports, `root_event`'s first, then by time (at most 5): each with its task
/// table's size and resident total (aggregated in SQL: the table may hold 200 000 rows), its
/// kReportOomTasks largest rows, and the victim's row wherever it ranks.
std::vector<OomTable> load_oom_tables(store::Database& db, std::int64_t root_event);

/// Which parts of its kernel OOM report `root_event` (a `kernel_oom` or `oom_kill` event) holds
/// and what the missing ones leave unknown (oom_report_parts.hpp); nullopt for any other event,
/// or one whose parser recorded no parts.
std::optional<OomReportParts> load_oom_parts(store::Database& db, std::int64_t root_event);

/// PyTorch's allocator snapshots (`allocator_snapshot` events, the first kMaxAllocatorSnapshots
/// read) with their sites (`allocator_site` events at the snapshot's source and line, the first
/// kMaxAllocationSites by rank); `requested` is the OOM message's. Which one the report shows is
/// choose_allocator_view()'s (allocator_choice.hpp).
std::vector<AllocatorView> load_allocator_views(store::Database& db);

}  // namespace culprit::diagnose
