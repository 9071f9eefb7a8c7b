// libFuzzer target: the archive reader (libarchive from memory: tar, zip, gzip, zstd, xz,
// bzip2, lz4, nested archives) with small limits, so the bomb, size and nesting guards are
// reached by small inputs. Checks that no source exceeds the limits.
#include <cstdint>
#include <string_view>

#include "culprit/input/reader.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  culprit::input::ReadOptions options;
  options.max_file_bytes = 1 << 20;
  options.max_total_bytes = 4 << 20;
  options.archive_ratio_floor = 256 << 10;
  options.max_archive_ratio = 50;
  culprit::core::Diagnostics problems;
  std::int64_t total = 0;
  culprit::input::read_archive_memory(
      std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.tar.gz", options, problems,
      [&](culprit::input::Source& s) {
        CULPRIT_FUZZ_CHECK(static_cast<std::int64_t>(s.text.size()) <= options.max_file_bytes);
        total += static_cast<std::int64_t>(s.text.size());
      });
  CULPRIT_FUZZ_CHECK(total <= options.max_total_bytes);
  for (const auto& p : problems) CULPRIT_FUZZ_CHECK(p.code.rfind("input-", 0) == 0);
  return 0;
}
