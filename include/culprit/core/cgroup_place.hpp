// Where a cgroup path puts a process: the container runtime and container it runs in, and the
// Kubernetes pod. The runtimes name their cgroups (runc's libcontainer and crun for the systemd
// and cgroupfs drivers; kubelet's cgroup manager for pods), so /proc/PID/cgroup says where a GPU
// holder lives even where nvidia-smi prints only a host pid. One home for those names: the
// snapshot's process facts (ingest) and the holders' placement (diagnose) read them here.
#pragma once

#include <string>
#include <string_view>

namespace culprit::core {

/// The runtimes a cgroup name can tell (`runtime` below).
namespace runtime {
inline constexpr std::string_view kDocker = "docker";          ///< `docker-<id>.scope`, `/docker/<id>`
inline constexpr std::string_view kContainerd = "containerd";  ///< `cri-containerd-<id>.scope`, `nerdctl-<id>.scope`
inline constexpr std::string_view kCrio = "cri-o";             ///< `crio-<id>.scope`, `crio-<id>`
inline constexpr std::string_view kPodman = "podman";          ///< `libpod-<id>.scope`, `/libpod_parent/libpod-<id>`
}  // namespace runtime

/// What a cgroup path says. Every field is '' when the path does not say it.
struct CgroupPlace {
  std::string runtime;       ///< one of core::runtime; '' when the container's name carries none (a bare id in a pod)
  std::string container_id;  ///< 64 lower-case hex digits, as every one of these runtimes makes its ids
  std::string pod_uid;       ///< the Kubernetes pod's uid, dashed and lower case
  std::string qos;           ///< the pod's QoS class: `burstable`, `besteffort`, `guaranteed`
};

/// Reads a cgroup path (v1 or v2, as /proc/PID/cgroup gives it after the second `:`):
///   /system.slice/docker-<id>.scope            Docker, systemd driver
///   /docker/<id>                               Docker, cgroupfs driver
///   /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid_>.slice/cri-containerd-<id>.scope
///   /kubepods/besteffort/pod<uid>/<id>         kubelet, cgroupfs driver (any runtime: runtime '')
///   …/crio-<id>.scope, /machine.slice/libpod-<id>.scope, /libpod_parent/libpod-<id>,
///   …/user@1000.service/user.slice/libpod-<id>.scope (rootless Podman), …/nerdctl-<id>.scope
/// A runtime's monitor is not its container (`libpod-conmon-<id>.scope`, `crio-conmon-<id>.scope`),
/// and neither are the daemons' own units (`docker.service`) nor login sessions (`session-3.scope`,
/// `user@1000.service`): those give an empty place. An id must be 64 hex digits: a shorter hex
/// name is a look-alike, not an id.
CgroupPlace cgroup_place(std::string_view path);

/// The path of the cgroup a /proc/PID/cgroup file names: the v2 line (`0::/path`) when it has
/// one that is not the root, else the v1 line of the memory controller, else of `pids`, else of
/// `name=systemd` (proc(5): `hierarchy-ID:controller-list:cgroup-path`). '' when none.
std::string cgroup_path_of(std::string_view proc_cgroup);

}  // namespace culprit::core
