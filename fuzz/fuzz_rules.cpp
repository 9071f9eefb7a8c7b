// libFuzzer target: the rule loader (read TOML -> validate -> compile RE2 -> check samples) on
// one rule file's text. Every problem must come back as a diagnostic with a stable code.
#include <cstdint>
#include <string>
#include <vector>

#include "culprit/rules/loader.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 64 * 1024) return 0;  // rule files are small; RE2 compile time grows with size
  std::vector<culprit::rules::RuleText> texts{{"rules/signals/fuzz.toml", std::string(reinterpret_cast<const char*>(data), size)}};
  const auto result = culprit::rules::load_rules(texts);
  for (const auto& p : result.problems) CULPRIT_FUZZ_CHECK(!p.code.empty());
  texts[0].path = "rules/diagnoses/fuzz.toml";
  (void)culprit::rules::load_rules(texts);
  return 0;
}
