// libFuzzer target: every parser (each row of the format table, and an unknown id, which falls
// back to the app-log parser) on the same bytes, with the built-in signals, into a sink that
// checks line numbers and OOM report links. The segment starts at line 7, as a paste segment would.
#include <algorithm>
#include <cstdint>
#include <string_view>
#include <vector>

#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "fuzz_support.hpp"
#include "ingest/format_table.hpp"

namespace {

/// Every format id parse_segment() dispatches on, and one it does not know.
std::vector<std::string_view> format_ids() {
  std::vector<std::string_view> ids;
  for (const auto& f : culprit::ingest::format_table()) ids.push_back(f.id);
  ids.push_back("no_such_format");
  return ids;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto lines = static_cast<std::int64_t>(culprit::text::split_lines(text).size());
  constexpr std::int64_t kFirst = 7;
  static const auto ids = format_ids();
  for (const auto format : ids) {
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
