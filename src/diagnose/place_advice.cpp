// Stop commands by place (see place_advice.hpp). Names pass core/container_name.hpp's checks
// before they go into a command: those are the quoting rule (a name a runtime gives needs no
// quotes, anything else is not pasted into a shell at all).
#include "place_advice.hpp"

#include <fmt/format.h>

#include "culprit/core/cgroup_place.hpp"
#include "culprit/core/container_name.hpp"

namespace culprit::diagnose {

std::string place_stop_command(const ProcessRef& c) {
  if (!c.place) return {};
  const ProcessPlace& p = *c.place;
  if (!p.pod_name.empty() && !p.pod_namespace.empty() && core::is_kubernetes_name(p.pod_name) &&
      core::is_kubernetes_name(p.pod_namespace, true))
    return fmt::format("`kubectl delete pod -n {} {}` (a pod its controller recreates comes back: scale the "
                       "controller down instead)",
                       p.pod_namespace, p.pod_name);
  if (p.container_id.empty()) return {};
  const bool cri = !p.pod_uid.empty() || p.runtime == core::runtime::kCrio;  // nerdctl's are no CRI's
  if (!cri && !p.container_name.empty() && core::is_docker_name(p.container_name))
    return fmt::format("`{} stop {}`", p.runtime == core::runtime::kPodman ? "podman" : "docker", p.container_name);
  if (cri) return fmt::format("`crictl stop {}`", p.container_id.substr(0, 13));  // hex: safe as it is
  return {};
}

std::string gone_holder_advice(const ProcessRef& c) {
  if (!c.place || c.place->gone.empty()) return {};
  return fmt::format(" Its process is {}. A zombie's memory goes when its parent reaps it (stop the parent); "
                     "memory held past its process's end is freed only by the driver (`nvidia-smi` shows when), "
                     "else by a GPU reset (`nvidia-smi --gpu-reset`, with the GPU idle) or a reboot.",
                     c.place->gone);
}

}  // namespace culprit::diagnose
