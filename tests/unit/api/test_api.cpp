// The public API (include/culprit/culprit.hpp) on texts held in memory: no file is read.
// analyze's verdict and diagnostics, typed errors for what stops a run, hosts and names of
// in-memory inputs, one Rules shared by concurrent analyses, and render's formats.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "culprit/culprit.hpp"
#include "unit/api/api_samples.hpp"

namespace {

using culprit::test::kHealthy;
using culprit::test::kTorchOom;
using culprit::test::builtin_rules;

}  // namespace

TEST_CASE("api: a CUDA OOM traceback held in memory is diagnosed as the command would") {
  auto analysis = culprit::analyze({culprit::Input::memory(kTorchOom)}, {}, builtin_rules());
  REQUIRE(analysis);
  CHECK(analysis->sources == 1);
  CHECK(analysis->verdict.verdict == "cuda_oom");
  REQUIRE(analysis->verdict.root);
  CHECK_FALSE(analysis->verdict.evidence.empty());
  REQUIRE(analysis->verdict.budget);
  CHECK(analysis->verdict.budget->requested == std::int64_t{2} << 30);
  // The text's default name is the one the command gives standard input.
  REQUIRE(analysis->verdict.sources.size() == 1);
  CHECK(analysis->verdict.sources[0].name == "<stdin>");
  CHECK(analysis->db_path.empty());
  CHECK_FALSE(analysis->has_errors());
}

TEST_CASE("api: an ordinary log is read and gives no verdict, without an error") {
  auto analysis = culprit::analyze({culprit::Input::memory(kHealthy)}, {}, builtin_rules());
  REQUIRE(analysis);
  CHECK(analysis->sources == 1);
  CHECK(analysis->verdict.verdict == "unknown");
  CHECK(analysis->verdict.findings.empty());
}

TEST_CASE("api: an in-memory input's host and name") {
  auto analysis = culprit::analyze({culprit::Input::memory(kTorchOom, "gpu-node-7", "train.log")}, {}, builtin_rules());
  REQUIRE(analysis);
  REQUIRE(analysis->verdict.sources.size() == 1);
  CHECK(analysis->verdict.sources[0].name == "train.log");
  CHECK(analysis->verdict.sources[0].host == "gpu-node-7");
  CHECK(analysis->verdict.sources[0].host_from == "--host");

  // Options::host names the host of an input that names none; the input's own host wins.
  culprit::Options options;
  options.host = "login-1";
  auto both = culprit::analyze({culprit::Input::memory(kHealthy, "", "a.log"),
                                culprit::Input::memory(kHealthy, "gpu-node-7", "b.log")},
                               options, builtin_rules());
  REQUIRE(both);
  REQUIRE(both->verdict.sources.size() == 2);
  CHECK(both->verdict.sources[0].host == "login-1");
  CHECK(both->verdict.sources[1].host == "gpu-node-7");
}

TEST_CASE("api: what stops a run is a typed error") {
  SECTION("no input") {
    auto r = culprit::analyze({}, {}, builtin_rules());
    REQUIRE_FALSE(r);
    CHECK(r.error().code == culprit::Errc::no_input);
    CHECK(culprit::to_string(r.error().code) == "no_input");
  }
  SECTION("nothing readable: the reader's diagnostic comes with it") {
    auto r = culprit::analyze({culprit::Input::file("/nonexistent/culprit-api-test/x.log")}, {}, builtin_rules());
    REQUIRE_FALSE(r);
    CHECK(r.error().code == culprit::Errc::no_input);
    CHECK(r.error().message.find("no input could be read") == 0);
    REQUIRE_FALSE(r.error().diagnostics.empty());
    CHECK(r.error().diagnostics[0].code == "input-missing");
  }
  SECTION("nothing readable, asked for the empty analysis instead") {
    culprit::Options options;
    options.empty_is_error = false;
    auto r = culprit::analyze({culprit::Input::file("/nonexistent/culprit-api-test/x.log")}, options, builtin_rules());
    REQUIRE(r);
    CHECK(r->sources == 0);
    CHECK(r->has_errors());
  }
  SECTION("options out of range") {
    culprit::Options tz;
    tz.tz = "Mars/Olympus";
    culprit::Options year;
    year.year = 24;
    culprit::Options timeout;
    timeout.rule_timeout_seconds = 0;
    culprit::Options boot;
    boot.boot_times = {"no-equals-sign"};
    for (const auto& o : {tz, year, timeout, boot}) {
      auto r = culprit::analyze({culprit::Input::memory(kTorchOom)}, o, builtin_rules());
      REQUIRE_FALSE(r);
      CHECK(r.error().code == culprit::Errc::invalid_option);
      CHECK_FALSE(r.error().message.empty());
      CHECK(culprit::check_options(o));
    }
    CHECK_FALSE(culprit::check_options(culprit::Options{}));
  }
  SECTION("a timeline file that cannot be created") {
    culprit::Options options;
    options.db_path = "/nonexistent/culprit-api-test/timeline.db";
    auto r = culprit::analyze({culprit::Input::memory(kTorchOom)}, options, builtin_rules());
    REQUIRE_FALSE(r);
    CHECK(r.error().code == culprit::Errc::database);
  }
}

TEST_CASE("api: one Rules serves concurrent analyses, and the answer is the same") {
  const std::string alone = culprit::render(*culprit::analyze({culprit::Input::memory(kTorchOom)}, {}, builtin_rules()),
                                            culprit::Format::json);
  std::vector<std::string> out(4);
  std::vector<std::thread> threads;
  for (auto& o : out)
    threads.emplace_back([&o] {
      o = culprit::render(*culprit::analyze({culprit::Input::memory(kTorchOom)}, {}, builtin_rules()),
                          culprit::Format::json);
    });
  for (auto& t : threads) t.join();
  for (const auto& o : out) CHECK(o == alone);
  // analyze without a Rules loads the built-in ones itself: the same report.
  CHECK(culprit::render(*culprit::analyze({culprit::Input::memory(kTorchOom)}), culprit::Format::json) == alone);
}

TEST_CASE("api: render's formats and options") {
  auto analysis = culprit::analyze({culprit::Input::memory(kTorchOom, "gpu-node-7")}, {}, builtin_rules());
  REQUIRE(analysis);
  const std::string json = culprit::render(*analysis, culprit::Format::json);
  CHECK(json.rfind("{\"schema_version\":", 0) == 0);
  CHECK(json.back() == '\n');
  CHECK(json.find("\"verdict\":\"cuda_oom\"") != std::string::npos);
  CHECK(culprit::render(*analysis, culprit::Format::markdown).rfind("#", 0) == 0);
  CHECK(culprit::render(*analysis, culprit::Format::html).find("<html") != std::string::npos);
  CHECK(culprit::render(*analysis, culprit::Format::text).find("\x1b[") == std::string::npos);
  culprit::RenderOptions color;
  color.color = true;
  CHECK(culprit::render(*analysis, culprit::Format::text, color).find("\x1b[") != std::string::npos);
  culprit::RenderOptions redact;
  redact.redact = true;
  CHECK(json.find("gpu-node-7") != std::string::npos);
  CHECK(culprit::render(*analysis, culprit::Format::json, redact).find("gpu-node-7") == std::string::npos);

  CHECK(culprit::parse_format("MD") == culprit::Format::markdown);
  CHECK(culprit::parse_format("htm") == culprit::Format::html);
  CHECK_FALSE(culprit::parse_format("yaml"));
  CHECK_FALSE(culprit::version().empty());
}

// Options::report_details false (`culprit scan`'s table): the verdict and its findings as the
// whole analysis has them, without the sources list and the report's data, on every fixture
// incident.
TEST_CASE("api: the verdict without the report's details is the verdict with them") {
  const std::filesystem::path fixtures = std::filesystem::path(CULPRIT_SOURCE_DIR) / "fixtures" / "incidents";
  std::size_t compared = 0;
  for (const auto& entry : std::filesystem::directory_iterator(fixtures)) {
    const auto inputs = entry.path() / "inputs";
    if (!std::filesystem::is_directory(inputs)) continue;
    INFO(entry.path().filename().string());
    culprit::Options full, headline;
    headline.report_details = false;
    auto a = culprit::analyze({culprit::Input::file(inputs.string())}, full, builtin_rules());
    auto b = culprit::analyze({culprit::Input::file(inputs.string())}, headline, builtin_rules());
    REQUIRE(a);
    REQUIRE(b);
    CHECK(b->verdict.verdict == a->verdict.verdict);
    CHECK(b->verdict.confidence == a->verdict.confidence);
    CHECK(b->verdict.summary == a->verdict.summary);
    CHECK(b->verdict.culprit.has_value() == a->verdict.culprit.has_value());
    if (a->verdict.culprit && b->verdict.culprit) {
      CHECK(b->verdict.culprit->pid == a->verdict.culprit->pid);
      CHECK(b->verdict.culprit->name == a->verdict.culprit->name);
      CHECK(b->verdict.culprit->role == a->verdict.culprit->role);
      CHECK(b->verdict.culprit->host == a->verdict.culprit->host);
    }
    CHECK(b->verdict.root.has_value() == a->verdict.root.has_value());
    if (a->verdict.root && b->verdict.root) CHECK(b->verdict.root->event_id == a->verdict.root->event_id);
    CHECK(b->verdict.findings.size() == a->verdict.findings.size());
    CHECK(b->verdict.skipped == a->verdict.skipped);
    CHECK(b->sources == a->sources);
    CHECK(b->verdict.sources.empty());
    CHECK(b->verdict.data.timeline.empty());
    CHECK(b->verdict.data.hosts.empty());
    ++compared;
  }
  CHECK(compared >= 10);
}

TEST_CASE("api: a server that restarts in a loop echoes its settings: the echoes past the first few are "
          "counted, and spend none of the event budget") {
  // vLLM's start-up line (the signal job_memory_setting_arg's own sample), once a start: 300
  // starts of a crash-looping server, then the job's CUDA OOM.
  std::string text;
  for (int i = 0; i < 300; ++i)
    text += "(APIServer pid=5121) INFO 04-12 09:14:05 [utils.py:233] non-default args: {'model': "
            "'Qwen/Qwen3-30B-A3B', 'max_model_len': 32768, 'gpu_memory_utilization': 0.8}\n";
  text += kTorchOom;
  culprit::Options options;
  options.max_events = 100;
  auto analysis = culprit::analyze({culprit::Input::memory(text, "node-00", "vllm.log")}, options, builtin_rules());
  REQUIRE(analysis);
  // The OOM after the echoes is recorded: 64 of them were stored, the budget is 100.
  CHECK(analysis->verdict.verdict == "cuda_oom");
  int restated = 0, over_budget = 0;
  for (const auto& d : analysis->diagnostics) {
    if (d.code == "timeline-restated") {
      ++restated;
      CHECK(d.where == "vllm.log:65");
      CHECK(d.message.find("236 events") != std::string::npos);
    }
    if (d.code == "input-max-events") ++over_budget;
  }
  CHECK(restated == 1);
  CHECK(over_budget == 0);
  // The advice still names the setting where the log first says it.
  REQUIRE(analysis->verdict.root);
  CHECK(analysis->verdict.root->advice.find("gpu_memory_utilization=0.8 (vllm.log:1)") != std::string::npos);
}
