// The shipped rules: they load without a single problem, the embedded copies are the files byte
// for byte, every sample gives the same matches with the prefilter on and off, and look-alikes
// never raise a memory-kind signal.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "culprit/rules/loader.hpp"
#include "unit/text/match_ids.hpp"

namespace builtin_tests {

using namespace culprit;

namespace {

using culprit::test::ids;

const rules::LoadResult& builtin() {
  static const rules::LoadResult result = rules::load_rules(rules::builtin_rules());
  return result;
}

}  // namespace

TEST_CASE("builtin rules load with no problem at all", "[rules]") {
  const auto& result = builtin();
  std::string all;
  for (const auto& p : result.problems) all += p.to_string() + "\n";
  INFO(all);
  CHECK(result.problems.empty());
  CHECK(result.ok());
  CHECK(result.rules.signal_rules.size() >= 60);
  CHECK(result.rules.signals.signals().size() == result.rules.signal_rules.size());
}

TEST_CASE("check_rules on the builtin rules has no lint either", "[rules]") {
  const auto problems = rules::check_rules(rules::builtin_rules());
  std::string all;
  for (const auto& p : problems) all += p.to_string() + "\n";
  INFO(all);
  CHECK(problems.empty());
}

TEST_CASE("every builtin signal has prefilter literals", "[rules]") {
  const auto& set = builtin().rules.signals;
  for (const auto& s : set.signals()) {
    INFO(s.id);
    CHECK_FALSE(s.literals.empty());
  }
  CHECK(set.always_tried().empty());
  CHECK_FALSE(set.candidate("INFO 07-11 06:18:32 [kv_cache_utils.py:646] GPU KV cache size: 114,432 tokens"));
}

TEST_CASE("embedded rule files equal the files on disk", "[rules]") {
  const auto& texts = rules::builtin_rules();
  REQUIRE(texts.size() >= 10);
  for (const auto& t : texts) {
    INFO(t.path);
    CHECK(t.path.rfind("rules/", 0) == 0);
    std::ifstream in(std::string(CULPRIT_SOURCE_DIR) + "/" + t.path, std::ios::binary);
    REQUIRE(in);
    std::ostringstream disk;
    disk << in.rdbuf();
    CHECK(disk.str() == t.text);
  }
}

TEST_CASE("read_rule_dir reads the same files as the builtin set", "[rules]") {
  core::Diagnostics problems;
  const auto texts = rules::read_rule_dir(std::string(CULPRIT_SOURCE_DIR) + "/rules", problems);
  CHECK(problems.empty());
  CHECK(texts.size() == rules::builtin_rules().size());
  for (std::size_t i = 1; i < texts.size(); ++i) CHECK(texts[i - 1].path < texts[i].path);
}

TEST_CASE("prefilter equivalence on every sample line of every builtin signal", "[rules]") {
  text::SignalSet on = builtin().rules.signals;
  text::SignalSet off = builtin().rules.signals;
  off.set_prefilter(false);
  std::set<std::string> formats{""};
  for (const auto& s : on.signals())
    for (const auto& f : s.formats) formats.insert(f);
  std::size_t lines = 0;
  for (const auto& rule : builtin().rules.signal_rules) {
    for (const auto& sample : rule.samples) {
      for (const auto& format : formats) {
        INFO(rule.id << ": " << sample.line << " [" << format << "]");
        const auto a = on.match(sample.line, format);
        const auto b = off.match(sample.line, format);
        REQUIRE(ids(a) == ids(b));
        for (std::size_t i = 0; i < a.size(); ++i) {
          REQUIRE(a[i].captures.size() == b[i].captures.size());
          for (std::size_t j = 0; j < a[i].captures.size(); ++j) {
            CHECK(a[i].captures[j].name == b[i].captures[j].name);
            CHECK(a[i].captures[j].value == b[i].captures[j].value);
          }
        }
        // A sample matches in the formats its signal applies to: all but a traceback's body
        // unless the signal names formats (text::SignalSet::applies).
        const bool applies = rule.formats.empty()
                                 ? format != text::kTracebackFrameScope
                                 : std::find(rule.formats.begin(), rule.formats.end(), format) != rule.formats.end();
        if (sample.should_match && applies)
          CHECK(std::find(ids(a).begin(), ids(a).end(), rule.id) != ids(a).end());
        if (!applies) CHECK(std::find(ids(a).begin(), ids(a).end(), rule.id) == ids(a).end());
        ++lines;
      }
    }
  }
  CHECK(lines > 150);
}

TEST_CASE("prefilter equivalence on look-alikes of every sample line: the clauses never drop a match", "[rules]") {
  // Each sample as another writer might print it: its case changed, its spaces doubled or
  // dropped after a word (`second` for `second `, the gap a declared literal's trimmed space
  // leaves), cut short; and lines that hold a signal's literal without its regex's match.
  text::SignalSet on = builtin().rules.signals;
  text::SignalSet off = builtin().rules.signals;
  off.set_prefilter(false);
  std::vector<std::string> lines = {
      "INFO 04-09 00:47:22 [scheduler.py:84] Memory profiling takes 0.37 seconds; the current vLLM instance can use "
      "total_gpu_memory (79.19GiB) x gpu_memory_utilization (0.90) = 71.27GiB; model weights take 17.31GiB",
      "INFO 04-09 00:47:31 [scheduler.py:84] GPU KV cache usage: 7.4%, CPU KV cache usage: 0.0%, "
      "gpu_memory_utilization=0.90, free memory 2.43 GiB",
      "[2026-04-09 00:47:22 TP3] KV Cache is allocated. #tokens: 827456, K size: 28.25 GB, V size: 22.75 GB, "
      "mem_fraction_static=0.88, gpu_memory_utilization high",
      "took 2 seconds, another 3 seconds; multiple-choice; the gpu is fine; errno 120; Killed by nobody",
  };
  const auto ascii = [](std::string s, bool upper) {
    for (char& c : s)
      if (upper ? (c >= 'a' && c <= 'z') : (c >= 'A' && c <= 'Z')) c = static_cast<char>(c ^ 0x20);
    return s;
  };
  const auto replace_all = [](std::string s, std::string_view from, std::string_view to) {
    for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
      s.replace(at, from.size(), to);
    return s;
  };
  for (const auto& rule : builtin().rules.signal_rules)
    for (const auto& sample : rule.samples) {
      const std::string& l = sample.line;
      for (const std::string& v : {ascii(l, true), ascii(l, false), replace_all(l, " ", "  "),
                                   replace_all(l, " ", "\t"), replace_all(l, " ", ""), l.substr(0, l.size() / 2),
                                   l.substr(l.size() / 2)})
        lines.push_back(v);
    }
  std::size_t matched = 0;
  for (const auto& line : lines) {
    INFO(line);
    const auto a = on.match(line, "");
    const auto b = off.match(line, "");
    REQUIRE(ids(a) == ids(b));
    for (std::size_t i = 0; i < a.size(); ++i) {
      REQUIRE(a[i].captures.size() == b[i].captures.size());
      for (std::size_t j = 0; j < a[i].captures.size(); ++j) CHECK(a[i].captures[j].value == b[i].captures[j].value);
    }
    matched += a.size();
  }
  CHECK(matched > 100);  // the variants still match often: the check weighs matches, not only misses
}

TEST_CASE("look-alikes raise no memory-kind signal", "[rules]") {
  const std::set<std::string> memory_kinds{"cuda_oom", "startup_mem_check", "host_alloc_fail",
                                           "oom_kill", "userspace_oom_kill", "container_oom"};
  const std::vector<std::string> lookalikes = {
      "RuntimeError: CUDA error: an illegal memory access was encountered",
      "[rank0]:[E1218 20:27:21.426415540 ProcessGroupNCCL.cpp:629] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600085 milliseconds before timing out.",
      "NVRM: Xid (PCI:0000:03:00): 31, pid=12083, name=python3, Ch 00000010, intr 10000000. MMU Fault: ENGINE CE0 HUBCLIENT_CE0 faulted @ 0x0_04a00000. Fault is of type FAULT_INFO_TYPE_UNSUPPORTED_KIND ACCESS_TYPE_WRITE",
      "NVRM: Xid (PCI:0000:01:00): 79, GPU has fallen off the bus.",
      "RuntimeError: NVML_SUCCESS == r INTERNAL ASSERT FAILED at \"../torch/csrc/cuda/Module.cpp\":512, please report a bug to PyTorch.",
      "triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: 131072, Hardware limit: 101376. Reducing block sizes or `num_stages` may help.",
      "python: page allocation failure: order:4, mode:0x40cc0(GFP_KERNEL|__GFP_COMP), nodemask=(null),cpuset=/,mems_allowed=0",
      "W tensorflow/core/common_runtime/bfc_allocator.cc:275] Allocator (GPU_0_bfc) ran out of memory trying to allocate 2.20GiB with freed_by_count=0. The caller indicates that this is not a failure, but may mean that there could be performance gains if more memory were available.",
      "Search for `cudaErrorMemoryAllocation' in https://docs.nvidia.com/cuda/cuda-runtime-api/group__CUDART__TYPES.html for more information.",
      "sending SIGTERM when mem avail <= 10.00% and swap free <= 10.00%,",
      "mem avail: 12345 of 64000 MiB (19.29%), swap free: 2000 of 2047 MiB (97.70%)",
      "INFO 07-11 06:18:32 [gpu_worker.py:227] Available KV cache memory: 31.59 GiB",
      "[2026-04-09 00:47:22 TP0] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem=63.80 GB, mem usage=14.99 GB.",
      "oom_reaper: reaped process 49358 (grep), now anon-rss:0kB, file-rss:0kB, shmem-rss:0kB",
      "            \"OOMKilled\": false,",
      "| N/A   34C    P0    61W / 400W |  79530MiB / 81920MiB |    100%      Default |",
      "OOM killer enabled.",
  };
  const auto& set = builtin().rules.signals;
  for (const auto& line : lookalikes) {
    for (const auto& m : set.match(line, "")) {
      INFO(line << " -> " << m.signal->id);
      CHECK(memory_kinds.count(m.signal->kind) == 0);
    }
  }
}

}  // namespace builtin_tests
