// Data-driven: every fixtures/formats/{app_log,traceback,torch_oom}/<variant>.txt goes through
// the app-log parser and is compared with its <variant>.expect.json.
#include "culprit/rules/loader.hpp"
#include "unit/ingest/gpu_fixture_runner.hpp"

using culprit::test::run_fixture_folder;

TEST_CASE("app_log fixtures", "[gpu][fixtures]") { run_fixture_folder("app_log", false); }
TEST_CASE("traceback fixtures", "[gpu][fixtures]") { run_fixture_folder("traceback", false); }
TEST_CASE("torch_oom fixtures", "[gpu][fixtures]") { run_fixture_folder("torch_oom", false); }

// The same fixtures through the shipped rules (rules/signals): the structures parsed in code do
// not depend on the rules, and every failure the stand-in signals flag is flagged by the real
// ones too, on the same line and with the same kind.
TEST_CASE("app-log fixtures under the shipped rules", "[gpu][fixtures][rules]") {
  static const auto loaded = culprit::rules::load_rules(culprit::rules::builtin_rules());
  REQUIRE(loaded.ok());
  for (const char* folder : {"app_log", "traceback", "torch_oom"}) {
    for (const auto& txt : culprit::test::fixtures_in(folder)) {
      const std::string text = culprit::test::read_file(txt.string());
      culprit::test::GpuRecordingSink with_test, with_real;
      auto ctx_test = culprit::test::gpu_context(with_test, "app_log");
      culprit::ingest::parse_app_log(text, ctx_test);
      auto ctx_real = culprit::test::gpu_context(with_real, "app_log");
      ctx_real.signals = &loaded.rules.signals;
      culprit::ingest::parse_app_log(text, ctx_real);
      INFO(folder << "/" << txt.filename().string());
      CHECK(with_real.of_kind("traceback").size() == with_test.of_kind("traceback").size());
      CHECK(with_real.snapshots.size() == with_test.snapshots.size());
      for (const char* kind : {"cuda_oom", "signal_exit", "nccl_timeout"}) {
        for (const auto& want : with_test.of_kind(kind)) {
          if (want.rule == "torchrun_child_failed") continue;  // parser-made, checked above
          bool found = false;
          for (const auto& got : with_real.of_kind(kind)) found = found || got.line == want.line;
          INFO(kind << " at line " << want.line << ": " << want.message);
          CHECK(found);
        }
      }
    }
  }
}
