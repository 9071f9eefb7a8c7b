// PyTorch's allocator snapshot as JSON (src/ingest/formats/torch_memory_snapshot.cpp): the
// allocation site of a stack, the block states, the fragmentation figures, the bounds, and the
// JSON that only looks like a snapshot. The recorded snapshots of each version are in
// fixtures/formats/torch_memory_snapshot (test_host_format_fixtures.cpp reads them).
#include <catch2/catch.hpp>

#include <string>

#include "culprit/ingest/parser.hpp"
#include "culprit/ingest/sniff.hpp"
#include "ingest/formats/torch_memory_snapshot.hpp"
#include "unit/ingest/recording_sink.hpp"
#include "unit/test_units.hpp"

namespace tms = culprit::ingest::torch_memory;
using culprit::ingest::sniff_format;

namespace {

using culprit::test::kGiB;

std::string frame(const std::string& file, int line, const std::string& name) {
  return "{\"filename\": \"" + file + "\", \"line\": " + std::to_string(line) + ", \"name\": \"" + name + "\"}";
}

std::string block(std::int64_t size, const std::string& state, const std::string& frames) {
  return "{\"size\": " + std::to_string(size) + ", \"state\": \"" + state + "\", \"frames\": [" + frames + "]}";
}

/// A 2.1-shaped snapshot of one segment holding `blocks`.
std::string snapshot(std::int64_t total, std::int64_t allocated, const std::string& blocks) {
  return "{\"segments\": [{\"device\": 1, \"address\": 1024, \"total_size\": " + std::to_string(total) +
         ", \"allocated_size\": " + std::to_string(allocated) + ", \"active_size\": " + std::to_string(allocated) +
         ", \"stream\": 0, \"segment_type\": \"large\", \"blocks\": [" + blocks + "]}], \"device_traces\": []}\n";
}

const std::string kTorchFrame = frame("/usr/lib/python3/dist-packages/torch/nn/functional.py", 5373, "linear");
const std::string kUserFrame = frame("/srv/job/train.py", 42, "forward");

}  // namespace

TEST_CASE("torch_memory_snapshot: the site is the innermost Python frame outside torch", "[torch_memory_snapshot]") {
  using F = tms::Frame;
  // C++ frames (2.1+ stacks="all") and torch's own Python frames are passed over.
  auto s = tms::allocation_site({F{"??", 0, "c10::cuda::CUDACachingAllocator::malloc"},
                                F{"/usr/lib/python3/dist-packages/torch/nn/modules/linear.py", 114, "forward"},
                                F{"/srv/job/model.py", 88, "attention"}, F{"/srv/job/train.py", 42, "step"}});
  REQUIRE(s);
  CHECK(s->file == "/srv/job/model.py");
  CHECK(s->line == 88);
  // Only torch's frames: the innermost of them; `<stdin>` is Python; no Python frame: none.
  s = tms::allocation_site({F{"libtorch_cuda.so", 0, "x"}, F{"/opt/venv/lib/python3.11/site-packages/torch/optim/adamw.py", 161, "step"}});
  REQUIRE(s);
  CHECK(s->function == "step");
  s = tms::allocation_site({F{"<stdin>", 3, "<module>"}});
  REQUIRE(s);
  CHECK(s->file == "<stdin>");
  CHECK_FALSE(tms::allocation_site({F{"??", 0, "x"}, F{"/pytorch/c10/cuda/CUDACachingAllocator.cpp", 1200, "malloc"}}));
  CHECK_FALSE(tms::allocation_site({}));
}

TEST_CASE("torch_memory_snapshot: states, figures and sites of one segment", "[torch_memory_snapshot]") {
  const std::string text = snapshot(
      10 * kGiB, 6 * kGiB,
      block(4 * kGiB, "active_allocated", kTorchFrame + ", " + kUserFrame) + ", " +
          block(2 * kGiB, "active_allocated", kUserFrame) + ", " +
          block(3 * kGiB, "active_pending_free", kUserFrame) + ", " + block(kGiB, "inactive", ""));
  const auto s = tms::summarize(text);
  REQUIRE(s);
  CHECK(s->device == 1);
  CHECK(s->reserved == 10 * kGiB);
  CHECK(s->allocated == 6 * kGiB);
  CHECK(s->segments == 1);
  CHECK(s->blocks == 4);
  CHECK(s->live_blocks == 2);  // a block pending free is neither live nor free
  CHECK(s->free_blocks == 1);
  CHECK(s->largest_free == kGiB);
  REQUIRE(s->sites.size() == 1);
  CHECK(s->sites[0].file == "/srv/job/train.py");
  CHECK(s->sites[0].bytes == 6 * kGiB);
  CHECK(s->sites[0].blocks == 2);
  CHECK(s->sites[0].largest == 4 * kGiB);
  CHECK(s->unattributed == 0);
  CHECK_FALSE(s->cut);
}

TEST_CASE("torch_memory_snapshot: bounds on frames and sites", "[torch_memory_snapshot]") {
  // The user's frame past kMaxFrames is not looked at: the innermost torch frame stands.
  std::string frames;
  for (std::size_t i = 0; i < tms::kMaxFrames; ++i) frames += kTorchFrame + ", ";
  frames += kUserFrame;
  auto s = tms::summarize(snapshot(kGiB, kGiB, block(kGiB, "active_allocated", frames)));
  REQUIRE(s);
  REQUIRE(s->sites.size() == 1);
  CHECK(s->sites[0].function == "linear");
  // Many sites: the largest kMaxSites are kept, all are counted.
  std::string blocks;
  for (int i = 1; i <= 25; ++i)
    blocks += (i > 1 ? ", " : "") + block(i * 1000, "active_allocated", frame("/srv/job/train.py", i, "f"));
  s = tms::summarize(snapshot(1 << 20, 325000, blocks));
  REQUIRE(s);
  CHECK(s->site_count == 25);
  REQUIRE(s->sites.size() == tms::kMaxSites);
  CHECK(s->sites.front().line == 25);
  CHECK(s->sites.back().line == 16);
}

TEST_CASE("torch_memory_snapshot: JSON that is no snapshot", "[torch_memory_snapshot]") {
  CHECK_FALSE(tms::summarize("{\"segments\": 3}"));
  CHECK_FALSE(tms::summarize("{\"level\": \"info\", \"msg\": \"total_size 3\"}"));
  CHECK_FALSE(tms::summarize("{\"segments\": [{\"total_size\": 1"));  // cut
  // Sizes past int64 (a corrupt file) are not wrapped negative.
  const auto s = tms::summarize("[{\"total_size\": 18446744073709551615, \"allocated_size\": -5, \"blocks\": []}]");
  REQUIRE(s);
  CHECK(s->reserved >= 0);

  // Look-alikes stay what they are: a JSON-lines log that names a size, a docker inspect.
  CHECK(sniff_format("{\"level\":\"info\",\"msg\":\"checkpoint\",\"total_size\":1234}\n"
                     "{\"level\":\"info\",\"msg\":\"saved\",\"allocated_size\":1}\n") == "app_log");
  CHECK(sniff_format("[\n {\"Id\": \"3f2a\", \"State\": {\"OOMKilled\": true}}\n]\n") == "docker_inspect");
  CHECK(sniff_format(snapshot(kGiB, 0, block(kGiB, "inactive", ""))) == "torch_memory_snapshot");
}

TEST_CASE("torch_memory_snapshot: a snapshot cut short is skipped with a note, nothing read", "[torch_memory_snapshot]") {
  culprit::test::RecordingSink sink;
  culprit::core::Diagnostics diags;
  culprit::ingest::ParseContext ctx;
  ctx.sink = &sink;
  ctx.diagnostics = &diags;
  ctx.format = "torch_memory_snapshot";
  const std::string whole = snapshot(kGiB, kGiB, block(kGiB, "active_allocated", kUserFrame));
  culprit::ingest::parse_segment(whole.substr(0, whole.size() / 2), ctx);
  CHECK(sink.events.empty());
  // A value that parses but is no snapshot is noted.
  culprit::ingest::parse_segment("{\"segments\": {\"total_size\": 1}}\n", ctx);
  CHECK(sink.events.empty());
  CHECK(diags.size() == 1);
}
