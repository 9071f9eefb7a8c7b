// api::ingest_sources with a core::CoreShare (`culprit scan`'s incidents side by side): a big
// source is parsed beside the reading only on a core the share has free, taken as the incident's
// big sources come and given back when its reading ends; the events are those read with one
// thread, in the same order.
#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "api/parallel_ingest.hpp"
#include "culprit/core/core_share.hpp"
#include "culprit/rules/loader.hpp"
#include "unit/ingest/recording_sink.hpp"

namespace {

const culprit::rules::RuleSet& builtin() {
  static const auto loaded = culprit::rules::load_rules(culprit::rules::builtin_rules());
  return loaded.rules;
}

/// A source of `name` past api::kParallelSourceBytes: routine lines around a CUDA OOM (the
/// PyTorch 2.x message, as test_pipeline.cpp's), so each gives events to compare.
culprit::input::Source big_source(const std::string& name) {
  culprit::input::Source src;
  src.name = name;
  src.origin = "in";
  std::string text;
  int i = 0;
  while (text.size() < culprit::api::kParallelSourceBytes + 4096)
    text += "routine output " + std::to_string(i++) + ": nothing to see here\n";
  text +=
      "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 MiB. GPU 0 has a total capacity of "
      "119.70 GiB of which 1.06 MiB is free.\n";
  src.text = std::move(text);
  return src;
}

/// Ingests four big sources; before handing source k, `before(k)` runs (the other incidents'
/// doings) and the share's free cores are noted in `free_seen`.
culprit::test::RecordingSink ingest_four(unsigned threads, culprit::core::CoreShare* share, std::vector<int>& free_seen,
                                         const std::function<void(int)>& before = {}) {
  culprit::test::RecordingSink sink;
  culprit::core::Diagnostics problems;
  const culprit::api::SourceReader read = [&](culprit::core::Diagnostics&, const culprit::input::SourceHandler& on) {
    for (int k = 0; k < 4; ++k) {
      if (before) before(k);
      free_seen.push_back(share ? share->free() : -1);
      culprit::input::Source src = big_source("node-" + std::to_string(k) + ".log");
      on(src);
    }
  };
  CHECK(culprit::api::ingest_sources(read, builtin().signals, {}, threads, share, sink, problems) == 4);
  CHECK(problems.empty());
  return sink;
}

std::vector<std::string> texts(const culprit::test::RecordingSink& sink) {
  std::vector<std::string> out;
  for (const auto& e : sink.events)
    out.push_back(std::to_string(e.source_id) + ":" + std::to_string(e.line) + " " + e.kind + " " + e.message);
  return out;
}

}  // namespace

TEST_CASE("shared cores: a free core is taken for the parse beside the reading, and given back", "[api][scan]") {
  std::vector<int> none;
  const auto alone = texts(ingest_four(1, nullptr, none));
  REQUIRE(alone.size() >= 4);  // an OOM event from each source

  // Two cores, one the reading's own (taken by its scan worker): the other is free, taken at
  // the first big source and held while the reading lasts.
  culprit::core::CoreShare share(2);
  REQUIRE(share.try_take());
  std::vector<int> free_seen;
  CHECK(texts(ingest_four(1, &share, free_seen)) == alone);
  CHECK(free_seen == std::vector<int>{1, 0, 0, 0});
  CHECK(share.free() == 1);  // given back as the reading ended
}

TEST_CASE("shared cores: none free, the sources are parsed where they are read, until one comes free", "[api][scan]") {
  std::vector<int> none;
  const auto alone = texts(ingest_four(1, nullptr, none));

  // Both cores held by two incidents' workers; the other one ends before source 2.
  culprit::core::CoreShare share(2);
  REQUIRE(share.try_take());
  REQUIRE(share.try_take());
  std::vector<int> free_seen;
  const auto other_ends = [&](int k) {
    if (k == 2) share.give_back();
  };
  CHECK(texts(ingest_four(1, &share, free_seen, other_ends)) == alone);
  CHECK(free_seen == std::vector<int>{0, 0, 1, 0});  // taken at source 2, as it came free
  CHECK(share.free() == 1);
}

TEST_CASE("shared cores: an incident never takes the core it reads on", "[api][scan]") {
  // One core: the reading's own. Nothing to take; every source inline.
  culprit::core::CoreShare share(1);
  REQUIRE(share.try_take());
  std::vector<int> free_seen;
  ingest_four(1, &share, free_seen);
  CHECK(free_seen == std::vector<int>{0, 0, 0, 0});
  CHECK(share.free() == 0);
}
