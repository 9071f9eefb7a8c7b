// Cgroup names the runtimes give containers and pods (see cgroup_place.hpp). The table first:
// each runtime's unit / directory prefix, then one walk over the path's components.
//   runc / crun, systemd driver: `<prefix>-<id>.scope` (libcontainer's systemd manager names the
//     scope `ScopePrefix + "-" + id`: Docker `docker`, containerd's CRI `cri-containerd`,
//     CRI-O `crio`, Podman `libpod`, nerdctl `nerdctl`);
//   cgroupfs driver: Docker `/docker/<id>`, Podman `/libpod_parent/libpod-<id>`, CRI-O `crio-<id>`,
//     and kubelet's `/kubepods/<qos>/pod<uid>/<id>` where the runtime adds no prefix;
//   kubelet's pods: `pod<uid>` (cgroupfs), `kubepods-<qos>-pod<uid with _ for ->.slice` (systemd).
#include "culprit/core/cgroup_place.hpp"

#include <array>

namespace culprit::core {
namespace {

struct Prefix {
  std::string_view prefix;   ///< before the id
  std::string_view runtime;
};

// Monitors first: `libpod-conmon-<id>` must not read as `libpod-` + a 70-character "id".
constexpr std::array kMonitors = {std::string_view("libpod-conmon-"), std::string_view("crio-conmon-")};
constexpr std::array kPrefixes = {
    Prefix{"cri-containerd-", runtime::kContainerd}, Prefix{"docker-", runtime::kDocker},
    Prefix{"crio-", runtime::kCrio},                 Prefix{"libpod-", runtime::kPodman},
    Prefix{"nerdctl-", runtime::kContainerd},
};

bool hex_id(std::string_view s) {
  if (s.size() != 64) return false;
  for (char c : s)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

std::string_view drop_suffix(std::string_view s, std::string_view suffix) {
  return s.ends_with(suffix) ? s.substr(0, s.size() - suffix.size()) : s;
}

/// A pod uid as kubelet writes it: 32 hex digits with 4 dashes (or underscores in systemd slice
/// names, where `-` separates the slice's parents).
std::string pod_uid_of(std::string_view uid) {
  std::string out;
  int hex = 0, dashes = 0;
  for (char c : uid) {
    if (c == '_' || c == '-') {
      out += '-';
      ++dashes;
    } else if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')) {
      out += c;
      ++hex;
    } else {
      return {};
    }
  }
  return hex == 32 && (dashes == 4 || dashes == 0) ? out : std::string();
}

/// `kubepods-besteffort-pod<uid>.slice` / `kubepods-pod<uid>.slice` / `pod<uid>`; qos from the
/// slice name or from the cgroupfs parent (`/kubepods/burstable/pod…`).
bool read_pod(std::string_view comp, std::string_view parent, CgroupPlace& out) {
  if (comp.starts_with("kubepods") && comp.ends_with(".slice")) {
    const std::string_view slice = drop_suffix(comp, ".slice");
    const auto at = slice.rfind("-pod");
    if (at == std::string_view::npos) return false;
    const std::string uid = pod_uid_of(slice.substr(at + 4));
    if (uid.empty()) return false;
    out.pod_uid = uid;
    const std::string_view levels = slice.substr(0, at);  // kubepods[-<qos>]
    out.qos = levels.size() > 9 ? std::string(levels.substr(9)) : "guaranteed";
    return true;
  }
  if (comp.starts_with("pod") && (parent.starts_with("kubepods") || parent == "burstable" || parent == "besteffort")) {
    const std::string uid = pod_uid_of(comp.substr(3));
    if (uid.empty()) return false;
    out.pod_uid = uid;
    out.qos = parent == "burstable" || parent == "besteffort" ? std::string(parent) : "guaranteed";
    return true;
  }
  return false;
}

/// A container's own cgroup, by the runtime's name for it.
bool read_container(std::string_view comp, std::string_view parent, bool in_pod, CgroupPlace& out) {
  const std::string_view name = drop_suffix(comp, ".scope");
  for (const auto m : kMonitors)
    if (name.starts_with(m)) return false;
  for (const auto& p : kPrefixes) {
    if (name.starts_with(p.prefix) && hex_id(name.substr(p.prefix.size()))) {
      out.runtime = std::string(p.runtime);
      out.container_id = std::string(name.substr(p.prefix.size()));
      return true;
    }
  }
  if (!hex_id(comp)) return false;
  if (parent == "docker") {
    out.runtime = std::string(runtime::kDocker);
  } else if (!in_pod) {
    return false;  // a bare hex name under no runtime's or pod's directory says nothing
  }
  out.container_id = std::string(comp);
  return true;
}

}  // namespace

CgroupPlace cgroup_place(std::string_view path) {
  CgroupPlace out;
  std::string_view parent;
  std::size_t i = 0;
  while (i <= path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    const std::string_view comp = path.substr(i, j - i);
    i = j + 1;
    if (comp.empty()) continue;
    if (out.pod_uid.empty() && out.container_id.empty() && read_pod(comp, parent, out)) {
      parent = comp;
      continue;
    }
    // The first container component is the container: a nested cgroup below it (`…scope/init.scope`,
    // Podman's `…scope/container`) is still inside it.
    if (out.container_id.empty() && read_container(comp, parent, !out.pod_uid.empty(), out)) break;
    parent = comp;
  }
  return out;
}

std::string cgroup_path_of(std::string_view proc_cgroup) {
  std::string_view v2, memory, pids, systemd;
  std::size_t start = 0;
  while (start < proc_cgroup.size()) {
    std::size_t end = proc_cgroup.find('\n', start);
    if (end == std::string_view::npos) end = proc_cgroup.size();
    const std::string_view line = proc_cgroup.substr(start, end - start);
    start = end + 1;
    const auto c1 = line.find(':');
    if (c1 == std::string_view::npos) continue;
    const auto c2 = line.find(':', c1 + 1);
    if (c2 == std::string_view::npos) continue;
    const std::string_view id = line.substr(0, c1), controllers = line.substr(c1 + 1, c2 - c1 - 1);
    const std::string_view path = line.substr(c2 + 1);
    if (path.empty() || path.front() != '/') continue;
    if (id == "0" && controllers.empty()) {
      v2 = path;
      continue;
    }
    // `memory`, `cpu,cpuacct`, `name=systemd`: a comma-separated list.
    std::size_t k = 0;
    while (k <= controllers.size()) {
      std::size_t e = controllers.find(',', k);
      if (e == std::string_view::npos) e = controllers.size();
      const std::string_view c = controllers.substr(k, e - k);
      if (c == "memory") memory = path;
      else if (c == "pids") pids = path;
      else if (c == "name=systemd") systemd = path;
      k = e + 1;
    }
  }
  if (!v2.empty() && v2 != "/") return std::string(v2);
  for (const std::string_view p : {memory, pids, systemd})
    if (!p.empty()) return std::string(p);
  return std::string(v2);
}

}  // namespace culprit::core
