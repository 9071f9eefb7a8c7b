// Data-driven: every fixtures/formats/nvidia_smi/<variant>.txt goes through the nvidia-smi
// table parser and is compared with its <variant>.expect.json.
#include "unit/ingest/gpu_fixture_runner.hpp"

TEST_CASE("nvidia_smi fixtures", "[gpu][fixtures]") {
  culprit::test::run_fixture_folder("nvidia_smi", true);
}
