// Process roles: which processes belong to the job and which are foreign, and why — decided over
// plain records (RoleFacts, read by load.cpp's load_role_facts) by decide_roles(), which never
// sees the database; assign_roles() (load.hpp) reads, decides and writes them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::diagnose {

/// The serving / training framework a text mentions (`sglang`, `vllm`, `torchrun`, …), or ''.
std::string framework_of(std::string_view text);

/// What the timeline says that roles are decided from, read once.
struct RoleFacts {
  /// Per app-log source (the job's own output): its host and its name and first events' text.
  struct JobText {
    std::string host, text;
  };
  std::vector<JobText> job_texts;
  /// A container listing's row.
  struct Container {
    std::string host, name, image, command, status;
    std::optional<double> up_seconds;
    std::string id{};  ///< the listing's id (12 hex in `docker ps`, 13 in `crictl ps`, or whole)
  };
  std::vector<Container> containers;
  std::optional<double> job_age;  ///< from the job's first event to its last (seconds)
  std::optional<double> job_t0;   ///< the job's first sign of life (UTC seconds)
  /// A process the job's own logs name (processes.job_evidence), with what ps says of it.
  struct JobProcess {
    std::string host, user, evidence;
    std::optional<double> started, elapsed;
  };
  std::vector<JobProcess> job_processes;
  /// A GPU holder, or a process re-parented to init, that the job's logs do not name.
  struct Holder {
    std::string host;
    std::int64_t pid = 0;
    std::vector<std::string> names;
    std::string cmdline, user, state, container;
    std::string container_id{};  ///< from its recorded cgroup (placement.hpp); '' unknown
    std::optional<double> started, elapsed;
    std::optional<std::int64_t> ppid;
    bool gpu_listed = false;
    std::optional<std::string> pid1_name;  ///< pid 1's name on its host, when a listing shows it
    std::string driver_frame;
    /// A snapshot lists it holding after the job's processes on its host died (outlived_job).
    struct Outlived {
      double seen_ts = 0, end_ts = 0;
      std::optional<std::int64_t> bytes;
      std::string source;
      std::int64_t line = 0;
    };
    std::optional<Outlived> outlived;
  };
  std::vector<Holder> holders;
  /// A process whose name is infrastructure's (infrastructure.hpp), not named by the job's logs.
  struct Named {
    std::string host;
    std::int64_t pid = 0;
    std::string name;
  };
  std::vector<Named> infrastructure;
};

/// One process's role and its reasons; `container` only fills an empty processes.container.
struct RoleDecision {
  std::string host;
  std::int64_t pid = 0;
  std::string role, why, leftover, container;
};

/// The roles of the processes the job's logs do not name (those are `job`, applied in bulk by
/// assign_roles): infrastructure is `foreign`; a GPU holder is `foreign` only on positive
/// evidence, else `unknown`. Pure: same facts, same decisions, in the facts' order.
std::vector<RoleDecision> decide_roles(const RoleFacts& facts);

}  // namespace culprit::diagnose
