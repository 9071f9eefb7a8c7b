// Infrastructure process names: the field table first, then the one lookup over it. runc's init
// stages (`runc:[1:CHILD]`, `runc:[2:INIT]`) are not here: that process execs the container's own
// command, so it is the workload at its start (a limit too small for it is the job's limit).
#include "infrastructure.hpp"

#include <algorithm>
#include <array>

namespace culprit::diagnose {
namespace {

struct Kind {
  std::string_view name;  ///< exact comm, or a prefix when `prefix`
  bool prefix;
  std::string_view what;
};

constexpr std::array kInfrastructure = {
    Kind{"runc", false, "the container runtime (runc)"},
    Kind{"crun", false, "the container runtime (crun)"},
    Kind{"conmon", false, "the container monitor (conmon, CRI-O / Podman)"},
    Kind{"containerd", false, "the container daemon (containerd)"},
    Kind{"containerd-shim", true, "a containerd shim"},
    Kind{"dockerd", false, "the Docker daemon"},
    Kind{"docker-proxy", false, "Docker's port proxy"},
    Kind{"pause", false, "a Kubernetes pod's pause container"},
    Kind{"kubelet", false, "the Kubernetes node agent (kubelet)"},
    Kind{"crio", false, "the container runtime (CRI-O)"},
};

constexpr std::size_t kNameCount =
    static_cast<std::size_t>(std::count_if(kInfrastructure.begin(), kInfrastructure.end(), [](const Kind& k) { return !k.prefix; }));

constexpr auto kNames = [] {
  std::array<std::string_view, kNameCount> out{};
  std::size_t n = 0;
  for (const auto& k : kInfrastructure)
    if (!k.prefix) out[n++] = k.name;
  return out;
}();

constexpr auto kPrefixes = [] {
  std::array<std::string_view, kInfrastructure.size() - kNameCount> out{};
  std::size_t n = 0;
  for (const auto& k : kInfrastructure)
    if (k.prefix) out[n++] = k.name;
  return out;
}();

}  // namespace

std::span<const std::string_view> infrastructure_names() { return kNames; }
std::span<const std::string_view> infrastructure_prefixes() { return kPrefixes; }

std::string infrastructure_what(std::string_view name) {
  const auto it = std::find_if(kInfrastructure.begin(), kInfrastructure.end(), [&](const Kind& k) {
    return k.prefix ? name.starts_with(k.name) : name == k.name;
  });
  return it == kInfrastructure.end() ? std::string() : std::string(it->what);
}

}  // namespace culprit::diagnose
