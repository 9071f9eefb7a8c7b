// Which allocator snapshot the report shows (src/diagnose/allocator_view.cpp): the root's host,
// the nearest in time, and the request from the ledger only when the ledger is of that GPU.
#include <catch2/catch.hpp>

#include "diagnose/allocator_choice.hpp"

namespace d = culprit::diagnose;

namespace {

d::AllocatorView view(const char* host, std::optional<double> ts, int gpu) {
  d::AllocatorView v;
  v.host = host;
  v.ts = ts;
  v.gpu = gpu;
  v.source = std::string(host) + "/snapshot.json";
  return v;
}

d::Verdict failed_on(const char* host, std::optional<double> ts) {
  d::Verdict v;
  v.root = d::Finding{};
  v.root->host = host;
  v.root->ts = ts;
  return v;
}

}  // namespace

TEST_CASE("allocator choice: the root's host, nearest in time", "[allocator]") {
  std::vector<d::AllocatorView> views{view("node-a", 100.0, 0), view("node-b", 200.0, 0), view("node-b", 290.0, 1),
                                      view("node-b", 400.0, 0)};
  auto chosen = d::choose_allocator_view(views, failed_on("node-b", 300.0));
  REQUIRE(chosen);
  CHECK(chosen->ts == 290.0);
  chosen = d::choose_allocator_view(views, failed_on("node-a", 300.0));
  REQUIRE(chosen);
  CHECK(chosen->host == "node-a");
  // No snapshot of the root's host: the last read; no root: the last read too.
  CHECK(d::choose_allocator_view(views, failed_on("node-c", 300.0))->ts == 400.0);
  CHECK(d::choose_allocator_view(views, d::Verdict{})->ts == 400.0);
  CHECK_FALSE(d::choose_allocator_view({}, failed_on("node-b", 1.0)));
}

TEST_CASE("allocator choice: the request from the ledger of the same GPU only", "[allocator]") {
  auto verdict = failed_on("node-b", 300.0);
  verdict.budget = d::Budget{};
  verdict.budget->host = "node-b";
  verdict.budget->gpu = 0;
  verdict.budget->requested = 2LL << 30;
  CHECK(d::choose_allocator_view({view("node-b", 300.0, 0)}, verdict)->requested == (2LL << 30));
  CHECK_FALSE(d::choose_allocator_view({view("node-b", 300.0, 1)}, verdict)->requested);  // another GPU
  auto own = view("node-b", 300.0, 0);
  own.requested = 1LL << 30;  // the OOM message's own figure stands
  CHECK(d::choose_allocator_view({own}, verdict)->requested == (1LL << 30));
  verdict.budget->domain = "host";  // a kernel OOM's ledger asks for no GPU memory
  CHECK_FALSE(d::choose_allocator_view({view("node-b", 300.0, 0)}, verdict)->requested);
}
