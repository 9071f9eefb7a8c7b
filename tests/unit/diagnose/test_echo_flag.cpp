// A finding is an echo or not in one place (issue 15): `findings` carries the same `echo` flag
// as `echoes`, which lists exactly the findings flagged; the root is never flagged. Inputs are
// written from the tools' own format strings: PyTorch's CUDACachingAllocator OOM message and
// ProcessGroupNCCL's watchdog timeout (glog prefix `[E MMDD hh:mm:ss.uuuuuu tid file:line]`).
#include <catch2/catch.hpp>

#include "unit/diagnose/diagnose_support.hpp"

namespace {

using culprit::diagnose::Finding;

bool same(const Finding& a, const Finding& b) {
  return a.rule == b.rule && a.event_id == b.event_id && a.host == b.host && a.title == b.title;
}

const Finding* in_findings(const culprit::diagnose::Verdict& v, const Finding& f) {
  for (const auto& x : v.findings)
    if (same(x, f)) return &x;
  return nullptr;
}

}  // namespace

TEST_CASE("an echo is flagged in findings as in echoes, the root in neither", "[diagnose][echo]") {
  const auto v = culprit::test::diagnose_texts(
      {{"train-rank0.log", "node-a",
        "2026-04-09 00:47:13,412 ERROR torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. "
        "GPU 0 has a total capacity of 79.15 GiB of which 1.20 GiB is free. Including non-PyTorch memory, this "
        "process has 77.90 GiB memory in use. Of the allocated memory 75.10 GiB is allocated by PyTorch, and "
        "1.20 GiB is reserved by PyTorch but unallocated.\n"},
       {"train-rank1.log", "node-b",
        "[rank1]:[E409 00:57:20.123456 2211 ProcessGroupNCCL.cpp:616] [Rank 1] Watchdog caught collective "
        "operation timeout: WorkNCCL(SeqNum=5, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran "
        "for 600085 milliseconds before timing out.\n"}});
  REQUIRE(v.root);
  CHECK(v.root->host == "node-a");
  CHECK_FALSE(v.root->echo);
  REQUIRE_FALSE(v.echoes.empty());
  std::size_t flagged = 0;
  for (const auto& f : v.findings) flagged += f.echo ? 1 : 0;
  CHECK(flagged == v.echoes.size());
  for (const auto& e : v.echoes) {
    INFO(e.rule << " on " << e.host);
    CHECK(e.echo);
    const Finding* f = in_findings(v, e);
    REQUIRE(f);
    CHECK(f->echo);
  }
  const Finding* root = in_findings(v, *v.root);
  REQUIRE(root);
  CHECK_FALSE(root->echo);
}
