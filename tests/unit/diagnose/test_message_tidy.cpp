// tidy_message on what empty template columns and quoted errors leave in rule messages.
#include <catch2/catch.hpp>

#include "diagnose/message_tidy.hpp"

using culprit::diagnose::tidy_message;

TEST_CASE("tidy_message mends empty hosts and doubled stops", "[diagnose][tidy]") {
  CHECK(tidy_message("The engine's start-up memory check failed on : ValueError: No available memory. no other "
                     "process holds enough memory.") ==
        "The engine's start-up memory check failed: ValueError: No available memory. No other process holds enough "
        "memory.");
  CHECK(tidy_message("A CUDA allocation failed on . .") == "A CUDA allocation failed.");
  CHECK(tidy_message("Killed x on ; the report is missing.") == "Killed x; the report is missing.");
  CHECK(tidy_message("A CUDA allocation failed on GPU 0. no other process") ==
        "A CUDA allocation failed on GPU 0. No other process");
  CHECK(tidy_message("Killed on spark-b: pid 4.") == "Killed on spark-b: pid 4.");
  CHECK(tidy_message("Local rank 3 on  was killed by SIGKILL.") == "Local rank 3 was killed by SIGKILL.");
  CHECK(tidy_message("It ran on one node.") == "It ran on one node.");
  CHECK(tidy_message("It ran out of memory... then stopped .") == "It ran out of memory... then stopped.");
}

TEST_CASE("tidy_message keeps code, numbers and abbreviations as written", "[diagnose][tidy]") {
  CHECK(tidy_message("Lower it, e.g. the batch size.") == "Lower it, e.g. the batch size.");
  CHECK(tidy_message("Set it. gpu_memory_utilization=0.8 helps.") == "Set it. gpu_memory_utilization=0.8 helps.");
  CHECK(tidy_message("Holds 1.5 GiB. more than needed") == "Holds 1.5 GiB. More than needed");
  CHECK(tidy_message("") == "");
  CHECK(tidy_message("python3 was killed.") == "python3 was killed.");
  // Paths quoted from a log keep their dots: only a doubled stop ending a sentence is mended.
  CHECK(tidy_message("stopped: ../aten/src/ATen/native/cuda/Loss.cu:250 failed.") ==
        "stopped: ../aten/src/ATen/native/cuda/Loss.cu:250 failed.");
  CHECK(tidy_message("It failed on: x.. Next") == "It failed: x. Next");
}
