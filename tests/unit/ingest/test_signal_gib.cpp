// Size captures as the ledger reads them: a signal's bare GiB figure (`<x>_gib`, printed apart
// from its unit as in vLLM's "(69.42/121.63 GiB)") becomes `<x>_bytes` like a `<x>_size` does.
#include <catch2/catch.hpp>

#include "culprit/ingest/parser.hpp"
#include "ingest/signal_events.hpp"
#include "unit/ingest/test_signals.hpp"

using culprit::test::make_signal;

namespace {

culprit::text::SignalSet gib_signals() {
  culprit::text::SignalSet set;
  set.add(make_signal(
      "vllm_free", "startup_mem_check", culprit::core::Severity::error,
      R"(Free memory on device(?: (?:cuda:(?P<gpu>\d+)|\S+))? \((?P<free_gib>\d+(?:\.\d+)?)/(?P<total_gib>\d+(?:\.\d+)?) GiB\) on startup is less than desired GPU memory utilization \((?P<utilization>\d+(?:\.\d+)?), (?P<requested_size>\d+(?:\.\d+)? GiB)\))",
      {"Free memory on device"}));
  set.add(make_signal("kv_available", "log", culprit::core::Severity::info,
                      R"(Available KV cache memory: (?P<available_gib>-?[\d.]+) GiB)", {"Available KV cache"}));
  set.add(make_signal("both", "log", culprit::core::Severity::info,
                      R"(pool (?P<pool_size>\d+ MiB) \((?P<pool_gib>[\d.]+)\))", {"pool "}));
  set.build();
  return set;
}

std::int64_t int_field(const culprit::core::Event& e, std::string_view key) {
  const auto* f = e.field(key);
  REQUIRE(f);
  return std::stoll(e.field_or(key));
}

}  // namespace

TEST_CASE("a *_gib capture yields <base>_bytes in GiB (2^30)", "[gpu][signals]") {
  const auto set = gib_signals();
  culprit::ingest::ParseContext ctx;
  ctx.signals = &set;
  ctx.format = "app_log";
  culprit::core::Event base;
  const auto events = culprit::ingest::events_from_signals(
      base,
      "ValueError: Free memory on device cuda:0 (69.42/121.63 GiB) on startup is less than desired GPU memory "
      "utilization (0.8, 97.3 GiB). Decrease GPU memory utilization or reduce GPU memory used by other processes.",
      ctx);
  REQUIRE(events.size() == 1);
  CHECK(int_field(events[0], "free_bytes") == 74539157422);    // 69.42 x 2^30, rounded
  CHECK(int_field(events[0], "total_bytes") == 130599218053);  // 121.63 x 2^30
  CHECK(int_field(events[0], "requested_bytes") == 104475079475);
  CHECK(events[0].field_or("free_gib") == "69.42");  // the printed figure stays
}

TEST_CASE("negative GiB figures convert: a *_size of the same base wins: junk is skipped", "[gpu][signals]") {
  const auto set = gib_signals();
  culprit::ingest::ParseContext ctx;
  ctx.signals = &set;
  ctx.format = "app_log";
  culprit::core::Event base;
  auto kv = culprit::ingest::events_from_signals(base, "INFO 07-11 06:18:32 [gpu_worker.py:227] Available KV cache memory: -0.5 GiB", ctx);
  REQUIRE(kv.size() == 1);
  CHECK(int_field(kv[0], "available_bytes") == -536870912);
  auto both = culprit::ingest::events_from_signals(base, "pool 512 MiB (7.5)", ctx);
  REQUIRE(both.size() == 1);
  CHECK(int_field(both[0], "pool_bytes") == 512LL << 20);
  auto junk = culprit::ingest::events_from_signals(base, "INFO Available KV cache memory: 1.2.3 GiB", ctx);
  REQUIRE(junk.size() == 1);
  CHECK(junk[0].field("available_bytes") == nullptr);
}
