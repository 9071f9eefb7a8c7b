// libFuzzer target: the whole ingest of one input (normalisation of encodings, NULs, invalid
// UTF-8 and long lines; the line limit; segmentation; every parser), with small limits so
// that each path is reached by small inputs, and an event budget.
#include <cstdint>
#include <string_view>

#include "culprit/ingest/pipeline.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  culprit::fuzz::CheckingSink sink;
  culprit::core::Diagnostics diagnostics;
  culprit::ingest::EventBudget budget;
  budget.max = 64;
  culprit::ingest::IngestOptions options;
  options.max_line_bytes = 256;
  options.max_lines = 64;
  options.budget = &budget;
  culprit::ingest::IngestInput input{"fuzz.log", "", "fuzz", text, 1};
  culprit::ingest::ingest(input, culprit::fuzz::builtin_rules().signals, sink, diagnostics, options);
  CULPRIT_FUZZ_CHECK(budget.used <= budget.max);
  for (const auto& d : diagnostics) CULPRIT_FUZZ_CHECK(!d.code.empty());
  return 0;
}
