// The command that stops a holder where it runs (its place, placement.hpp): the name a person can
// act on — the pod through kubectl, the container through its own runtime — or none when the
// names recorded are not ones the runtime gives (a stranger's text never goes into a command).
#pragma once

#include <string>

#include "culprit/diagnose/finding.hpp"

namespace culprit::diagnose {

/// `kubectl delete pod -n NS NAME` (a pod both names of which are Kubernetes names), `docker stop
/// NAME` / `podman stop NAME` (by the runtime its cgroup names; Docker when none is named),
/// `crictl stop ID` (a CRI container without a listed name: its id is hex), in backticks; ''
/// when its place names no container or the names fail core/container_name.hpp's checks.
std::string place_stop_command(const ProcessRef& c);

/// A sentence for a holder whose process is gone while its memory is held (ProcessPlace::gone):
/// what frees it. '' when its process is not gone.
std::string gone_holder_advice(const ProcessRef& c);

}  // namespace culprit::diagnose
