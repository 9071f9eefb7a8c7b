// libFuzzer target: every parser (each format id parse_segment() knows, and an unknown one)
// on the same bytes, with the built-in signals, into a sink that checks line numbers and OOM
// report links. The segment starts at line 7, as a paste segment would.
#include <algorithm>
#include <cstdint>
#include <string_view>

#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto lines = static_cast<std::int64_t>(culprit::text::split_lines(text).size());
  constexpr std::int64_t kFirst = 7;
  for (const auto format : culprit::fuzz::kFormats) {
    culprit::fuzz::CheckingSink sink;
    sink.expect_lines(kFirst, kFirst + std::max<std::int64_t>(lines, 1) - 1);
    culprit::core::Diagnostics diagnostics;
    culprit::ingest::ParseContext ctx;
    ctx.sink = &sink;
    ctx.signals = &culprit::fuzz::builtin_rules().signals;
    ctx.diagnostics = &diagnostics;
    ctx.source_id = 1;
    ctx.source_name = "fuzz.log";
    ctx.host = "fuzz-host";
    ctx.format = std::string(format);
    ctx.first_line = kFirst;
    ctx.year_hint = 2026;
    culprit::ingest::parse_segment(text, ctx);
  }
  return 0;
}
