// Infrastructure: the container runtime and orchestration daemons that run beside every job —
// runc and its init stages, crun, conmon, containerd and its shims, dockerd, the Kubernetes
// pause container and kubelet, CRI-O. They are never the job's workload, so a kernel or cgroup
// OOM whose largest holder is one of them blames the platform, not the job (issue 34's ownership
// "infrastructure"; reported with the role `foreign` and a why that says which). Pure; roles.cpp
// applies it to the timeline's processes.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace culprit::diagnose {

/// Process names (comm, as the kernel's task table and ps print them, 15 bytes at most) of
/// container runtimes and orchestration daemons.
std::span<const std::string_view> infrastructure_names();

/// Name prefixes of the same (the containerd shims: `containerd-shim`, `containerd-shim-runc-v2`
/// cut to 15 bytes).
std::span<const std::string_view> infrastructure_prefixes();

/// What the process is, as a phrase ("the container runtime (runc)"), or empty when `name` is
/// not infrastructure.
std::string infrastructure_what(std::string_view name);

}  // namespace culprit::diagnose
