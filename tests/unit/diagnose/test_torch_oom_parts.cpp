// A PyTorch OOM report in parts (issue 35 item 4): the head (`torch.OutOfMemoryError: CUDA out of
// memory.`) on one line and the body (`Tried to allocate … GPU 0 has a total capacity of …`) on
// the next, as a logger that splits at the first sentence or a rank prefix on each line prints
// it: one failure, whose ledger has the body's figures and holders. Look-alike: the head alone
// has no figures. Written from c10/cuda/CUDACachingAllocator.cpp's 2.1+ message format.
#include <catch2/catch.hpp>

#include <string>

#include "unit/diagnose/diagnose_support.hpp"

namespace {
const std::string kHead = "[rank0]: torch.OutOfMemoryError: CUDA out of memory.\n";
const std::string kBody =
    "[rank0]:  Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.15 GiB of which 1.20 GiB is free. "
    "Process 48211 has 60.00 GiB memory in use. Including non-PyTorch memory, this process has 16.00 GiB memory "
    "in use. Of the allocated memory 15.10 GiB is allocated by PyTorch, and 300.00 MiB is reserved by PyTorch but "
    "unallocated.\n";
}  // namespace

TEST_CASE("torch OOM in parts: head and body on two lines are one failure with the body's figures", "[diagnose][torch_oom]") {
  const auto v = culprit::test::diagnose_texts({{"train.log", "h", kHead + kBody}});
  CHECK(v.verdict == "cuda_oom");
  REQUIRE(v.budget);
  REQUIRE(v.budget->total);
  CHECK(*v.budget->total == static_cast<std::int64_t>(79.15 * 1024 * 1024 * 1024 + 0.5));
  REQUIRE(v.culprit);
  REQUIRE(v.culprit->pid);
  CHECK(*v.culprit->pid == 48211);
  CHECK(v.echoes.empty());
}

TEST_CASE("torch OOM in parts look-alike: the head alone names no holder", "[diagnose][torch_oom]") {
  const auto v = culprit::test::diagnose_texts({{"train.log", "h", kHead}});
  CHECK(v.verdict == "cuda_oom");
  CHECK((!v.budget || !v.budget->total));
  CHECK((!v.culprit || !v.culprit->pid));
}
