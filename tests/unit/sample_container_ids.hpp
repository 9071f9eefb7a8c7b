// The container and the Kubernetes pod the placement tests name in cgroup paths, runtimes'
// listings and reports: one container id, one pod uid in both of its spellings.
#pragma once

#include <string>

namespace culprit::test {

/// A container's full id, 64 hex digits (`docker ps` shows the first 12).
inline const std::string kContainerId = "3f2a9c1b7d4e8a6f0c5b2d1e9f7a8b6c4d3e2f1a0b9c8d7e6f5a4b3c2d1e0f9a";

/// A pod's uid as Kubernetes writes it, and as the systemd cgroup driver writes it (`_` for `-`).
inline const std::string kPodUid = "5e0c7d2a-91b4-4c3e-8f6a-2d7b1c9e4a13";
inline const std::string kPodUidUnderscores = "5e0c7d2a_91b4_4c3e_8f6a_2d7b1c9e4a13";

}  // namespace culprit::test
