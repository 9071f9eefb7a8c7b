// kernel::is_task_row is the byte check that replaced the sniffer's regex for an OOM report's
// task-table row, `^\[\s*\d+\]\s+\d+\s+\d+\s+\d+`: it must say what the regex says, on every
// message of the kernel fixtures (formats.md Part 1, real dmesg / journal text) and on the shapes
// around the edges. looks_like_task_row finds the row behind a stamp or syslog prefix.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>

#include "culprit/text/lines.hpp"
#include "culprit/text/pattern.hpp"
#include "ingest/formats/kernel_oom_report.hpp"
#include "ingest/formats/kernel_stamp.hpp"
#include "unit/ingest/fixture_files.hpp"

namespace fs = std::filesystem;
using culprit::ingest::kernel::is_task_row;
using culprit::ingest::kernel::looks_like_task_row;

namespace {

const culprit::text::Pattern& regex() {
  static const culprit::text::Pattern p(R"(^\[\s*\d+\]\s+\d+\s+\d+\s+\d+)");
  return p;
}

}  // namespace

TEST_CASE("is_task_row says what the task-row regex says", "[kernel]") {
  for (const std::string_view message :
       {"[  1893]   999  1893 12345678  2097152 16875520        0             0 redis-server",
        "[1893] 0 1893 1", "[  1893]\t0\t1893\t1", "[ 1893]  0  1893", "[  1893]     0  1893 abc",
        "[ pid ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name", "[]  0 1 2",
        "[  12]x 0 1 2", " [  12] 0 1 2", "[12] 0 1 2 ", "[12]0 1 2", ""}) {
    INFO(message);
    CHECK(is_task_row(message) == regex().matches(message));
  }
  int rows = 0;
  for (const fs::path& path : culprit::test::format_fixtures("kernel")) {
    const std::string all = culprit::test::read_fixture(path);
    for (const std::string_view line : culprit::text::split_lines(all)) {
      const auto kl = culprit::ingest::kernel::parse_kernel_line(line, 0);
      INFO(path.filename().string() << ": " << line);
      CHECK(is_task_row(kl.message) == regex().matches(kl.message));
      if (is_task_row(kl.message)) {
        ++rows;
        CHECK(looks_like_task_row(line));
      }
    }
  }
  CHECK(rows > 10);
}
