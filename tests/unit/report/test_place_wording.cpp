// A holder's place in the reports (wording.hpp's place_phrase, process_phrase; the text, Markdown
// and JSON renderers): "pid 48211 (pid 1 in container vllm-embeddings, pod ns/embed-0)", the
// runtime and short id where no listing names the container, a gone holder named as such — and
// a container name from a listing passes the terminal filter: an escape sequence in it never
// reaches the terminal.
#include <catch2/catch.hpp>

#include <string>

#include "culprit/report/renderer.hpp"
#include "report/wording.hpp"
#include "unit/report/sample_verdicts.hpp"
#include "unit/test_text.hpp"
#include "unit/sample_container_ids.hpp"

namespace place_wording_tests {

using namespace culprit::report;
namespace d = culprit::diagnose;

namespace {
using culprit::test::kContainerId;

d::ProcessPlace pod_place() {
  d::ProcessPlace p;
  p.nspid = 1;
  p.runtime = "containerd";
  p.container_id = kContainerId;
  p.container_name = "vllm-embeddings";
  p.pod_namespace = "ns";
  p.pod_name = "embed-0";
  return p;
}

using culprit::test::contains;
}  // namespace

TEST_CASE("place phrase: pid inside, container, pod", "[report][placement]") {
  CHECK(place_phrase(pod_place()) == "pid 1 in container vllm-embeddings, pod ns/embed-0");
  d::ProcessPlace docker;
  docker.runtime = "docker";
  docker.container_id = kContainerId;
  CHECK(place_phrase(docker) == "in Docker container 3f2a9c1b7d4e");
  d::ProcessPlace bare;  // kubelet's cgroupfs names no runtime
  bare.container_id = kContainerId;
  bare.pod_uid = "5e0c7d2a-91b4-4c3e-8f6a-2d7b1c9e4a13";
  CHECK(place_phrase(bare) == "in container 3f2a9c1b7d4e, pod uid 5e0c7d2a-91b4-4c3e-8f6a-2d7b1c9e4a13");
  d::ProcessPlace gone;
  gone.gone = "gone: no such process in /proc, nvidia-smi still lists its memory";
  CHECK(place_phrase(gone) == "gone: no such process in /proc, nvidia-smi still lists its memory");
  d::ProcessPlace ns_only;
  ns_only.nspid = 7;
  CHECK(place_phrase(ns_only) == "pid 7 in another pid namespace");
  CHECK(place_phrase(d::ProcessPlace{}).empty());
}

TEST_CASE("process phrase: the place follows the host pid", "[report][placement]") {
  d::ProcessRef p;
  p.host = "gpu-node-7";
  p.pid = 48211;
  p.name = "python3";
  p.role = "foreign";
  p.place = pod_place();
  CHECK(process_phrase(p) == "pid 48211 (pid 1 in container vllm-embeddings, pod ns/embed-0) python3 (foreign)");
  p.place.reset();
  CHECK(process_phrase(p) == "pid 48211 python3 (foreign)");
}

TEST_CASE("reports show the culprit's place: text, Markdown, JSON", "[report][placement]") {
  d::Verdict v = culprit::report::test::cuda_oom_foreign();
  v.culprit->place = pod_place();
  const std::string text = render(v, Format::text, {false, 200});
  CHECK(contains(text, "pid 48211 (pid 1 in container vllm-embeddings, pod ns/embed-0) VLLM::EngineCore"));
  CHECK(contains(text, "place"));
  const std::string md = render(v, Format::markdown);
  CHECK(contains(md, "pid 48211 (pid 1 in container vllm-embeddings, pod ns/embed-0)"));
  const std::string json = render(v, Format::json);
  CHECK(contains(json, R"("place":{"nspid":1,"runtime":"containerd","container_id":")" + kContainerId +
                           R"(","container_name":"vllm-embeddings","pod_namespace":"ns","pod_name":"embed-0")"));
  v.culprit->place.reset();
  CHECK(contains(render(v, Format::json), R"("place":null)"));
}

TEST_CASE("a container name with escapes reaches the terminal filtered", "[report][placement]") {
  d::Verdict v = culprit::report::test::cuda_oom_foreign();
  auto place = pod_place();
  place.container_name = "evil\x1b]0;owned\x07name";
  v.culprit->place = place;
  const std::string text = render(v, Format::text, {false, 200});
  INFO(text);
  CHECK_FALSE(contains(text, "\x1b"));
  CHECK_FALSE(contains(text, "\x07"));
  CHECK(contains(text, "place      pid 1 in container evilname, pod ns/embed-0"));  // the sequence dropped whole
}

}  // namespace place_wording_tests
