// What the diagnosis concludes: findings (one per fired rule row), the incident verdict,
// the culprit, the memory ledger and the evidence. Renderers read these; they never run SQL.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace culprit::diagnose {

/// Verdict ids of the JSON contract.
namespace verdict {
inline constexpr const char* kCudaOom = "cuda_oom";
inline constexpr const char* kKernelOom = "kernel_oom";
inline constexpr const char* kCgroupOom = "cgroup_oom";
inline constexpr const char* kUserspaceOomKill = "userspace_oom_kill";
inline constexpr const char* kNotOom = "not_oom";
inline constexpr const char* kUnknown = "unknown";
}  // namespace verdict

enum class Confidence { low, medium, high };
const char* to_string(Confidence c);
Confidence parse_confidence(const std::string& text);  ///< unknown text -> low

/// One line of evidence: where it was read and what it said.
struct Evidence {
  std::string source;   ///< source name, e.g. `spark-b/sglang-worker.log`
  std::int64_t line = 0;
  std::string text;
  std::string host;
  std::optional<double> ts;
  std::int64_t event_id = 0;
};

struct ProcessRef {
  std::string host;
  std::optional<std::int64_t> pid;
  std::string name;
  std::string role;      ///< job | foreign | unknown (culprit only)
  std::string why;       ///< why this role (e.g. "vLLM server in container vllm-embeddings, up 2 days")
  std::string container;
};

/// One entry of the GPU memory ledger at the failure (bytes).
struct LedgerEntry {
  std::string label;     ///< `requested`, `free`, `job pid 1234 (python3)`, `foreign pid …`, `unexplained`
  std::string role;      ///< job | foreign | unknown | free | requested | total | rest
  std::optional<std::int64_t> pid;
  std::int64_t bytes = 0;
};

/// The memory budget at a CUDA OOM: total = free + job + foreign + unexplained; shortfall =
/// requested - free. `arithmetic` is the human text of the sum, checked to add up.
struct Budget {
  std::string host;
  std::optional<int> gpu;
  bool unified = false;
  std::optional<std::int64_t> total, free, requested, job, foreign, unexplained, shortfall;
  std::optional<std::int64_t> torch_allocated, torch_reserved;
  std::vector<LedgerEntry> entries;
  std::vector<std::string> arithmetic;  ///< lines of the worked sum
};

/// One conclusion of one diagnosis rule.
struct Finding {
  std::string rule;
  std::string verdict;
  std::string title;
  Confidence confidence = Confidence::low;
  std::string host;
  std::optional<double> ts;
  std::string summary;   ///< the rule's message rendered
  std::string advice;
  std::optional<ProcessRef> culprit;
  std::optional<ProcessRef> victim;
  std::vector<Evidence> evidence;
  std::int64_t event_id = 0;  ///< the failure event this finding is about
  int priority = 0;
  bool echo = false;          ///< a consequence of the root failure, not a cause
};

/// A source that was read, for the report's "sources" list.
struct SourceSummary {
  std::string name, host, format, clock;
  std::int64_t lines = 0;
  std::int64_t bytes = 0;
};

/// The incident's answer.
struct Verdict {
  std::string verdict = verdict::kUnknown;
  Confidence confidence = Confidence::low;
  std::string summary;
  std::optional<ProcessRef> culprit;
  std::optional<ProcessRef> victim;
  std::optional<Budget> budget;
  std::optional<Finding> root;          ///< the root failure
  std::vector<Finding> echoes;          ///< failures caused by the root (other ranks, hosts)
  std::vector<Finding> findings;        ///< every finding, best first
  std::vector<Evidence> evidence;       ///< the verdict's evidence lines
  std::vector<std::string> advice;
  std::vector<std::string> ruled_out;   ///< what was considered and rejected, with why
  std::vector<SourceSummary> sources;
  std::vector<std::string> skipped;     ///< inputs / lines skipped, with why
};

}  // namespace culprit::diagnose
