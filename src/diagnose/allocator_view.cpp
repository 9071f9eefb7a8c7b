// The allocator view's reading (fragmentation) and the choice of the snapshot the report shows.
#include "allocator_choice.hpp"

#include <cmath>
#include <limits>
#include <utility>

namespace culprit::diagnose {

bool fragmented(const AllocatorView& view) {
  return view.requested && *view.requested > view.largest_free && view.unallocated >= *view.requested;
}

std::optional<AllocatorView> choose_allocator_view(std::vector<AllocatorView> views, const Verdict& verdict) {
  if (views.empty()) return std::nullopt;
  const std::string root_host = verdict.root ? verdict.root->host : std::string();
  // The root's time as a plain double and a flag (GCC 12 warns that an optional copied here may be
  // read uninitialised, which it cannot be).
  const bool root_timed = verdict.root && verdict.root->ts;
  const double root_ts = root_timed ? *verdict.root->ts : 0.0;
  std::size_t best = views.size();
  double best_gap = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < views.size(); ++i) {
    if (!root_host.empty() && views[i].host != root_host) continue;
    const double gap = views[i].ts && root_timed ? std::fabs(*views[i].ts - root_ts) : std::numeric_limits<double>::max();
    if (best == views.size() || gap <= best_gap) {
      best = i;
      best_gap = gap;
    }
  }
  AllocatorView v = std::move(views[best == views.size() ? views.size() - 1 : best]);
  const auto& b = verdict.budget;
  if (!v.requested && b && b->requested && (b->domain == "gpu" || b->domain == "unified") &&
      (b->host.empty() || b->host == v.host) && (!b->gpu || !v.gpu || *b->gpu == *v.gpu))
    v.requested = b->requested;
  return v;
}

}  // namespace culprit::diagnose
