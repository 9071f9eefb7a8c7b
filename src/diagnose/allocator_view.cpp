// The allocator view for the report: SQL over the events the torch_memory_snapshot parser wrote
// (src/ingest/formats/torch_memory_snapshot.cpp: field names there), so renderers run none.
#include "allocator_load.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>

#include "culprit/core/event.hpp"

namespace culprit::diagnose {

bool fragmented(const AllocatorView& view) {
  return view.requested && *view.requested > view.largest_free && view.unallocated >= *view.requested;
}

namespace {

std::int64_t int_of(const store::Row& r, std::string_view column) { return r[column].as_int().value_or(0); }

}  // namespace

std::optional<AllocatorView> load_allocator_view(store::Database& db, const Verdict& verdict) {
  auto snaps = db.query(fmt::format(
      "SELECT e.id, e.source_id, e.host, e.ts, e.line, s.name AS source,"
      " json_extract(e.fields, '$.gpu') AS gpu, json_extract(e.fields, '$.torch_version') AS torch_version,"
      " json_extract(e.fields, '$.reserved_bytes') AS reserved, json_extract(e.fields, '$.allocated_bytes') AS allocated,"
      " json_extract(e.fields, '$.active_bytes') AS active, json_extract(e.fields, '$.largest_free_bytes') AS largest_free,"
      " json_extract(e.fields, '$.request_bytes') AS request, json_extract(e.fields, '$.segments') AS segments,"
      " json_extract(e.fields, '$.blocks') AS blocks, json_extract(e.fields, '$.live_blocks') AS live_blocks,"
      " json_extract(e.fields, '$.free_blocks') AS free_blocks, json_extract(e.fields, '$.unattributed_bytes') AS unattributed,"
      " json_extract(e.fields, '$.sites') AS sites, json_extract(e.fields, '$.cut') AS cut"
      " FROM events e JOIN sources s ON s.id = e.source_id WHERE e.kind = '{}'"
      " ORDER BY e.source_id, e.line, e.id LIMIT {}",
      core::kind::kAllocatorSnapshot, kMaxAllocatorSnapshots));
  if (!snaps.error.empty() || snaps.rows.empty()) return std::nullopt;

  // The root's host first; among those, the nearest in time to the root; else the last read.
  const std::string root_host = verdict.root ? verdict.root->host : std::string();
  const std::optional<double> root_ts = verdict.root ? verdict.root->ts : std::nullopt;
  const store::Row* best = nullptr;
  double best_gap = std::numeric_limits<double>::infinity();
  for (const auto& r : snaps.rows) {
    const bool same_host = root_host.empty() || r["host"].as_text() == root_host;
    if (!same_host) continue;
    const auto ts = r["ts"].as_double();
    const double gap = ts && root_ts ? std::fabs(*ts - *root_ts) : std::numeric_limits<double>::max();
    if (best == nullptr || gap <= best_gap) {
      best = &r;
      best_gap = gap;
    }
  }
  if (best == nullptr) best = &snaps.rows.back();
  const store::Row& r = *best;

  AllocatorView v;
  v.host = r["host"].as_text();
  if (auto g = r["gpu"].as_int()) v.gpu = static_cast<int>(*g);
  v.source = r["source"].as_text();
  v.line = int_of(r, "line");
  v.torch_version = r["torch_version"].as_text();
  v.reserved = int_of(r, "reserved");
  v.allocated = int_of(r, "allocated");
  v.active = int_of(r, "active");
  v.unallocated = v.reserved - v.allocated;
  v.largest_free = int_of(r, "largest_free");
  v.requested = r["request"].as_int();
  v.segments = int_of(r, "segments");
  v.blocks = int_of(r, "blocks");
  v.live_blocks = int_of(r, "live_blocks");
  v.free_blocks = int_of(r, "free_blocks");
  v.unattributed = int_of(r, "unattributed");
  v.site_count = int_of(r, "sites");
  v.cut = int_of(r, "cut") != 0;
  if (!v.requested && verdict.budget && verdict.budget->requested && verdict.budget->domain != "host" &&
      verdict.budget->domain != "cgroup" && (verdict.budget->host.empty() || verdict.budget->host == v.host) &&
      (!verdict.budget->gpu || !v.gpu || *verdict.budget->gpu == *v.gpu))
    v.requested = verdict.budget->requested;

  // The sites the parser wrote with this snapshot: its source, at its line.
  auto sites = db.query(fmt::format(
      "SELECT json_extract(e.fields, '$.site_file') AS file, json_extract(e.fields, '$.site_line') AS line,"
      " json_extract(e.fields, '$.site_function') AS function, json_extract(e.fields, '$.bytes') AS bytes,"
      " json_extract(e.fields, '$.blocks') AS blocks, json_extract(e.fields, '$.largest_bytes') AS largest"
      " FROM events e WHERE e.kind = '{}' AND e.source_id = {} AND e.line = {}"
      " ORDER BY json_extract(e.fields, '$.site_rank'), e.id LIMIT {}",
      core::kind::kAllocatorSite, int_of(r, "source_id"), v.line, kMaxAllocationSites));
  for (const auto& s : sites.rows) {
    AllocationSite site;
    site.file = s["file"].as_text();
    site.line = int_of(s, "line");
    site.function = s["function"].as_text();
    site.bytes = int_of(s, "bytes");
    site.blocks = int_of(s, "blocks");
    site.largest = int_of(s, "largest");
    v.sites.push_back(std::move(site));
  }
  return v;
}

}  // namespace culprit::diagnose
