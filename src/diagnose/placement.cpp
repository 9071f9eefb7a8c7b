// Placement (see placement.hpp): the cgroup path read once (core::cgroup_place), a listing row
// matched by id, and the states in which a holder's process is gone while the driver still
// charges its memory — no /proc entry (seen from the host's pid namespace), a zombie the parent
// never reaped, or a process in uninterruptible sleep inside the NVIDIA driver.
#include "placement.hpp"

#include <fmt/format.h>

#include "culprit/core/cgroup_place.hpp"

namespace culprit::diagnose {
namespace {

/// Why its process is gone while its memory is held; '' when it is not (or nothing says).
std::string gone_reason(const PlaceFacts& f) {
  // Phrases without parentheses: the headline puts the place in parentheses already.
  if (f.absent && f.gpu_listed) return "gone: no such process in /proc, nvidia-smi still lists its memory";
  if (!f.gpu_listed) return {};  // no memory of its held on a GPU: nothing to say
  if (!f.state.empty() && f.state[0] == 'Z') return "a zombie: exited, never reaped, its memory still held";
  if (!f.state.empty() && f.state[0] == 'D' && !f.driver_frame.empty())
    return fmt::format("stuck in the NVIDIA driver: uninterruptible sleep in {}", f.driver_frame);
  return {};
}

}  // namespace

bool listed_id_matches(std::string_view listed, std::string_view full_id) {
  return listed.size() >= 12 && listed.size() <= full_id.size() && full_id.starts_with(listed);
}

std::optional<ProcessPlace> place_process(const PlaceFacts& f, std::span<const ListedContainer> listed) {
  ProcessPlace p;
  p.cgroup = f.cgroup;
  const core::CgroupPlace where = core::cgroup_place(f.cgroup);
  p.runtime = where.runtime;
  p.container_id = where.container_id;
  p.pod_uid = where.pod_uid;
  if (f.nspid && *f.nspid != f.pid) p.nspid = f.nspid;
  p.gone = gone_reason(f);
  if (!p.container_id.empty()) {
    // `docker ps` and `docker inspect` list one container twice (12 and 64 digits): rows that
    // agree on the name are one; rows that disagree name nobody.
    const ListedContainer* match = nullptr;
    bool ambiguous = false;
    for (const auto& c : listed) {
      if (!listed_id_matches(c.id, p.container_id) || c.name.empty()) continue;
      if (match && match->name != c.name) ambiguous = true;
      if (!match || (match->pod.empty() && !c.pod.empty())) match = &c;
    }
    if (match && !ambiguous) {
      p.container_name = match->name;
      p.pod_name = match->pod;
      p.pod_namespace = match->pod_namespace;
    }
  }
  if (p.container_id.empty() && p.pod_uid.empty() && !p.nspid && p.gone.empty()) return std::nullopt;
  return p;
}

}  // namespace culprit::diagnose
