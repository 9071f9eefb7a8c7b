// Data-driven: every fixtures/formats/{app_log,traceback,torch_oom}/<variant>.txt goes through
// the app-log parser and is compared with its <variant>.expect.json.
#include "unit/ingest/gpu_fixture_runner.hpp"

using culprit::test::run_fixture_folder;

TEST_CASE("app_log fixtures", "[gpu][fixtures]") { run_fixture_folder("app_log", false); }
TEST_CASE("traceback fixtures", "[gpu][fixtures]") { run_fixture_folder("traceback", false); }
TEST_CASE("torch_oom fixtures", "[gpu][fixtures]") { run_fixture_folder("torch_oom", false); }
