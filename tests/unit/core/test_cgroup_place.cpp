// The cgroup path reader (core/cgroup_place.hpp): every runtime's name for a container's cgroup,
// under cgroup v1 and v2, the systemd and cgroupfs drivers, Kubernetes pods of each QoS class —
// and the look-alikes that are not containers (login sessions, user managers, the daemons' own
// units, the runtimes' monitors, short hex names).
#include <catch2/catch.hpp>

#include <string>

#include "culprit/core/cgroup_place.hpp"
#include "unit/sample_container_ids.hpp"

using culprit::core::cgroup_path_of;
using culprit::core::cgroup_place;

namespace {
using culprit::test::kContainerId;
using culprit::test::kPodUid;
using culprit::test::kPodUidUnderscores;
}  // namespace

TEST_CASE("cgroup place: Docker under the systemd and cgroupfs drivers", "[core][cgroup_place]") {
  auto p = cgroup_place("/system.slice/docker-" + kContainerId + ".scope");
  CHECK(p.runtime == "docker");
  CHECK(p.container_id == kContainerId);
  CHECK(p.pod_uid.empty());
  p = cgroup_place("/docker/" + kContainerId);
  CHECK(p.runtime == "docker");
  CHECK(p.container_id == kContainerId);
  // A container running systemd (or a cgroup namespace) nests below its scope: still inside it.
  p = cgroup_place("/system.slice/docker-" + kContainerId + ".scope/init.scope");
  CHECK(p.container_id == kContainerId);
}

TEST_CASE("cgroup place: Podman rootful, rootless and cgroupfs", "[core][cgroup_place]") {
  auto p = cgroup_place("/machine.slice/libpod-" + kContainerId + ".scope");
  CHECK(p.runtime == "podman");
  CHECK(p.container_id == kContainerId);
  p = cgroup_place("/user.slice/user-1000.slice/user@1000.service/user.slice/libpod-" + kContainerId +
                   ".scope/container");
  CHECK(p.runtime == "podman");
  CHECK(p.container_id == kContainerId);
  p = cgroup_place("/libpod_parent/libpod-" + kContainerId);
  CHECK(p.runtime == "podman");
  CHECK(p.container_id == kContainerId);
}

TEST_CASE("cgroup place: Kubernetes pods with containerd and CRI-O, each QoS class", "[core][cgroup_place]") {
  auto p = cgroup_place("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + kPodUidUnderscores +
                        ".slice/cri-containerd-" + kContainerId + ".scope");
  CHECK(p.runtime == "containerd");
  CHECK(p.container_id == kContainerId);
  CHECK(p.pod_uid == kPodUid);
  CHECK(p.qos == "burstable");
  p = cgroup_place("/kubepods.slice/kubepods-pod" + kPodUidUnderscores + ".slice/crio-" + kContainerId + ".scope");
  CHECK(p.runtime == "cri-o");
  CHECK(p.pod_uid == kPodUid);
  CHECK(p.qos == "guaranteed");
  p = cgroup_place("/kubepods.slice/kubepods-besteffort.slice/kubepods-besteffort-pod" + kPodUidUnderscores +
                   ".slice/cri-containerd-" + kContainerId + ".scope");
  CHECK(p.qos == "besteffort");
  // cgroupfs driver (cgroup v1 and v2): the runtime adds no prefix, the pod's folder tells.
  p = cgroup_place("/kubepods/burstable/pod" + kPodUid + "/" + kContainerId);
  CHECK(p.runtime.empty());
  CHECK(p.container_id == kContainerId);
  CHECK(p.pod_uid == kPodUid);
  CHECK(p.qos == "burstable");
  p = cgroup_place("/kubepods/pod" + kPodUid + "/crio-" + kContainerId);
  CHECK(p.runtime == "cri-o");
  CHECK(p.qos == "guaranteed");
  // The pod's own cgroup (its pause container's parent): a pod, no container.
  p = cgroup_place("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" + kPodUidUnderscores + ".slice");
  CHECK(p.pod_uid == kPodUid);
  CHECK(p.container_id.empty());
}

TEST_CASE("cgroup place: nerdctl's containerd scope", "[core][cgroup_place]") {
  auto p = cgroup_place("/system.slice/nerdctl-" + kContainerId + ".scope");
  CHECK(p.runtime == "containerd");
  CHECK(p.container_id == kContainerId);
}

TEST_CASE("cgroup place: look-alikes are no container", "[core][cgroup_place]") {
  for (const std::string& path :
       {std::string("/"), std::string("/user.slice/user-1000.slice/user@1000.service/app.slice/app-gnome-firefox-4242.scope"),
        std::string("/user.slice/user-1000.slice/session-3.scope"), std::string("/user.slice/user-1000.slice/user@1000.service"),
        std::string("/system.slice/docker.service"), std::string("/system.slice/containerd.service"),
        std::string("/init.scope"), std::string("/machine.slice/libpod-conmon-" + kContainerId + ".scope"),
        std::string("/kubepods.slice/kubepods-burstable.slice/crio-conmon-" + kContainerId + ".scope"),
        std::string("/system.slice/docker-3f2a9c1b7d4e.scope"),          // 12 hex digits: not an id
        std::string("/system.slice/docker-" + kContainerId.substr(0, 63) + "g.scope"),  // not hex
        std::string("/" + kContainerId),                                          // a bare id under no runtime or pod
        std::string("/slurm/uid_1000/job_4242/step_0"), std::string("/process_api/7df78977862972e1b91b9f6f0914f713")}) {
    INFO(path);
    const auto p = cgroup_place(path);
    CHECK(p.container_id.empty());
    CHECK(p.runtime.empty());
    CHECK(p.pod_uid.empty());
  }
  // `pod…` outside kubepods is someone's folder name.
  CHECK(cgroup_place("/system.slice/pod" + kPodUid).pod_uid.empty());
}

TEST_CASE("cgroup path of a /proc/PID/cgroup file: v2, v1 and hybrid", "[core][cgroup_place]") {
  CHECK(cgroup_path_of("0::/system.slice/docker-" + kContainerId + ".scope\n") ==
        "/system.slice/docker-" + kContainerId + ".scope");
  // v1: the memory controller's line, wherever it is among the hierarchies.
  CHECK(cgroup_path_of("12:hugetlb:/docker/a\n11:memory:/docker/" + kContainerId +
                       "\n1:name=systemd:/docker/b\n0::/\n") ==
        "/docker/" + kContainerId);
  // hybrid: an empty v2 line `0::/` gives way to v1's.
  CHECK(cgroup_path_of("4:memory:/process_api/x\n0::/\n") == "/process_api/x");
  CHECK(cgroup_path_of("9:cpu,cpuacct:/a\n3:pids:/b\n") == "/b");
  CHECK(cgroup_path_of("1:name=systemd:/c\n") == "/c");
  CHECK(cgroup_path_of("0::/\n") == "/");
  CHECK(cgroup_path_of("") == "");
  CHECK(cgroup_path_of("garbage\n::\n1:memory:relative\n") == "");
}
