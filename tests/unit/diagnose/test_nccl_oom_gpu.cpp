// An NCCL allocation failure names its GPU only in the NCCL prefix (`host:pid:tid [dev]`): the
// finding and the ledger use that device, not GPU 0.
#include <catch2/catch.hpp>

#include "unit/diagnose/diagnose_support.hpp"

TEST_CASE("NCCL Cuda failure 'out of memory' is on the prefix's CUDA device", "[diagnose][nccl]") {
  const auto v = culprit::test::diagnose_texts(
      {{"train.log", "",
        "\n[2026-04-09 00:47:22] a3-node-2:2211:2530 [5] include/alloc.h:125 NCCL WARN Cuda failure 'out of "
        "memory'\n"}});
  CHECK(v.verdict == "cuda_oom");
  REQUIRE(v.root);
  CHECK(v.root->host == "a3-node-2");
  CHECK(v.root->summary.find("GPU 5") != std::string::npos);
  REQUIRE(v.culprit);
  CHECK(v.culprit->pid == 2211);
  CHECK(v.culprit->role == "job");
}
