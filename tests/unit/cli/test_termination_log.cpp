// `culprit run --termination-log`: the message the kubelet reads (at most 4096 bytes of
// /dev/termination-log) holds the headline and the culprit, holds no byte a terminal acts on
// whatever the logs named, is cut on a UTF-8 boundary, and is written whole.
#include <catch2/catch.hpp>

#include <fstream>
#include <sstream>

#include "cli/termination_log.hpp"
#include "culprit/diagnose/finding.hpp"
#include "unit/temp_dir.hpp"
#include "unit/test_text.hpp"

using culprit::cli::fit_utf8;
using culprit::cli::kTerminationLogBytes;
using culprit::cli::termination_message;

namespace {

using culprit::test::valid_utf8;

culprit::Analysis cuda_oom(const std::string& culprit_name, const std::string& why) {
  culprit::Analysis a;
  a.verdict.verdict = culprit::diagnose::verdict::kCudaOom;
  a.verdict.confidence = culprit::diagnose::Confidence::high;
  culprit::diagnose::ProcessRef c;
  c.host = "gpu-node-3";
  c.pid = 48211;
  c.name = culprit_name;
  c.role = "foreign";
  c.why = why;
  a.verdict.culprit = c;
  return a;
}

}  // namespace

TEST_CASE("termination message: headline first, then the culprit, the job's end and the incident", "[termination_log]") {
  const std::string m = termination_message(cuda_oom("VLLM::EngineCore", "vLLM server in container vllm-embeddings"),
                                            "job: torchrun exited with 1", "culprit-incident-20261205T140000Z");
  std::istringstream lines(m);
  std::string first, second, third, fourth;
  std::getline(lines, first);
  std::getline(lines, second);
  std::getline(lines, third);
  std::getline(lines, fourth);
  CHECK(first.rfind("CUDA OOM", 0) == 0);
  CHECK(first.find("pid 48211 VLLM::EngineCore") != std::string::npos);
  CHECK(first.find("[high]") != std::string::npos);
  CHECK(second == "culprit: pid 48211 VLLM::EngineCore (foreign) on gpu-node-3: vLLM server in container vllm-embeddings");
  CHECK(third == "job: torchrun exited with 1");
  CHECK(fourth == "incident: culprit-incident-20261205T140000Z");
}

TEST_CASE("termination message: names from logs are made terminal-safe", "[termination_log]") {
  const std::string m = termination_message(cuda_oom("evil\x1b]0;owned\x07\x1b[2Jname\nsecond", "why\rline\x9b"),
                                            "job: x exited with 1", "dir\x1b[31m");
  for (char c : m) {
    const auto u = static_cast<unsigned char>(c);
    INFO(static_cast<int>(u));
    CHECK((u == '\n' || u >= 0x20));
    CHECK(u != 0x7f);
  }
  CHECK(valid_utf8(m));
  CHECK(m.find("\x1b") == std::string::npos);
}

TEST_CASE("termination message: at most 4096 bytes, cut on a UTF-8 boundary", "[termination_log]") {
  std::string long_why;
  for (int i = 0; i < 3000; ++i) long_why += "é";  // 6000 bytes of two-byte characters
  for (const std::string& pad : {std::string(""), std::string("a"), std::string("ab")}) {
    const std::string m = termination_message(cuda_oom("python3", pad + long_why), "job: x exited with 1", "dir");
    INFO("pad " << pad.size());
    CHECK(m.size() <= kTerminationLogBytes);
    CHECK(m.size() >= kTerminationLogBytes - 4);
    CHECK(valid_utf8(m));
    CHECK(m.rfind("CUDA OOM", 0) == 0);  // the headline survives the cut
    CHECK(m.size() >= 3);
    CHECK(m.substr(m.size() - 3) == "…");
  }
  CHECK(fit_utf8("short", 4096) == "short");
  CHECK(fit_utf8("€€€", 7) == "€…");  // 9 bytes into 7: one euro sign (3) and the ellipsis (3)
  CHECK(fit_utf8("abcdef", 2).empty());  // no room for the ellipsis
}

TEST_CASE("termination log: written whole, replacing what was there", "[termination_log]") {
  culprit::test::TempDir dir;
  const std::string path = dir.file("termination-log");
  { std::ofstream(path) << "old contents that are longer than the new ones\n"; }
  REQUIRE(culprit::cli::write_termination_log(path, "new\n").empty());
  std::ifstream in(path);
  std::stringstream got;
  got << in.rdbuf();
  CHECK(got.str() == "new\n");
  // No temporary file is left beside it.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path)) ++files;
  CHECK(files == 1);
  // A folder that does not exist is an error message, not a crash.
  CHECK(!culprit::cli::write_termination_log(dir.file("no/such/dir"), "x").empty());
}
