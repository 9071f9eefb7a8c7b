// Where a process ran: its pid inside its namespace, the container and Kubernetes pod its cgroup
// names (core/cgroup_place.hpp), matched by id to a container listing (docker / podman / crictl
// ps) for the name a person acts on, and whether its process was gone while its GPU memory was
// held. Pure over records (placement_load.cpp reads them); says nothing about ownership — a
// container is not foreign because it is a container (roles.cpp decides that).
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "culprit/diagnose/finding.hpp"

namespace culprit::diagnose {

/// What the timeline recorded about one process (processes: nspid, cgroup, absent, state).
struct PlaceFacts {
  std::int64_t pid = 0;
  std::optional<std::int64_t> nspid;
  std::string cgroup;
  std::string state;         ///< ps STAT or /proc State ('' unknown)
  bool absent = false;       ///< /proc had no such pid, read from the host's pid namespace
  bool gpu_listed = false;   ///< an nvidia-smi snapshot lists it holding GPU memory
  std::string driver_frame;  ///< its kernel stack's first frame in an nvidia module ('' none)
};

/// A container listing's row on the same host.
struct ListedContainer {
  std::string id, name, pod, pod_namespace;
};

/// Whether a listing's id (`docker ps`' 12 hex digits, `crictl ps`' 13, inspect's 64) names the
/// container whose full id is `full_id`: a prefix of at least 12 digits.
bool listed_id_matches(std::string_view listed, std::string_view full_id);

/// Where the process ran, or nullopt when nothing recorded says (no cgroup, no pid inside, not
/// gone). A container listed on its host under its id (exactly one row) gives the name and pod.
std::optional<ProcessPlace> place_process(const PlaceFacts& facts, std::span<const ListedContainer> listed);

}  // namespace culprit::diagnose
