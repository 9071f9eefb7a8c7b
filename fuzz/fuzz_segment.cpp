// libFuzzer target: the format sniffer and the paste segmenter on arbitrary bytes. Checks that
// segments are in order, inside the text, with line numbers inside the text's lines.
#include <algorithm>
#include <cstdint>
#include <string_view>

#include "culprit/ingest/sniff.hpp"
#include "culprit/text/lines.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)culprit::ingest::sniff_format(text);
  (void)culprit::ingest::host_from_command_line(text.substr(0, std::min<std::size_t>(size, 4096)));
  const auto lines = static_cast<std::int64_t>(culprit::text::split_lines(text).size());
  const char* prev_end = text.data();
  for (const auto& seg : culprit::ingest::segment_text(text)) {
    CULPRIT_FUZZ_CHECK(seg.text.data() >= prev_end);
    CULPRIT_FUZZ_CHECK(seg.text.data() + seg.text.size() <= text.data() + text.size());
    CULPRIT_FUZZ_CHECK(seg.first_line >= 1 && seg.first_line <= std::max<std::int64_t>(lines, 1));
    CULPRIT_FUZZ_CHECK(!seg.format.empty());
    prev_end = seg.text.data() + seg.text.size();
  }
  return 0;
}
