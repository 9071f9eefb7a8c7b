// One split per input: the pipeline hands each parser its segment's lines from the sniffer's
// split of the whole text (Segment::line_count), and the repair hands the sniffer its own split
// where it changed nothing. Both must be exactly what text::split_lines gives for the same text,
// on every fixture and on the line-ending shapes that make a segment end at an empty line.
#include <catch2/catch.hpp>

#include <filesystem>
#include <string>
#include <vector>

#include "culprit/ingest/parser.hpp"
#include "culprit/ingest/sniff.hpp"
#include "culprit/text/lines.hpp"
#include "fixture_files.hpp"

namespace {

using culprit::ingest::segment_text;
using culprit::text::split_lines;

/// Every segment's range of `split_lines(text)` is split_lines of the segment's own text, and a
/// ParseContext handed that range gives it back for that text only.
void check_segments(const std::string& text) {
  const auto lines = split_lines(text);
  const auto segments = segment_text(text, lines);
  const auto again = segment_text(text);  // the one-argument form splits for itself
  REQUIRE(segments.size() == again.size());
  for (std::size_t k = 0; k < segments.size(); ++k) {
    const auto& seg = segments[k];
    INFO("segment " << k << " (" << seg.format << ") from line " << seg.first_line);
    CHECK(seg.text == again[k].text);
    CHECK(seg.line_count == again[k].line_count);
    const auto own = split_lines(seg.text);
    REQUIRE(static_cast<std::size_t>(seg.first_line - 1) + seg.line_count <= lines.size());
    const std::vector<std::string_view> given(lines.begin() + (seg.first_line - 1),
                                              lines.begin() + (seg.first_line - 1) + static_cast<std::ptrdiff_t>(seg.line_count));
    CHECK(given == own);
    culprit::ingest::ParseContext ctx;
    ctx.lines = std::span<const std::string_view>(lines).subspan(static_cast<std::size_t>(seg.first_line - 1), seg.line_count);
    ctx.lines_text = seg.text;
    std::vector<std::string_view> storage;
    const auto mine = ctx.lines_of(seg.text, storage);
    CHECK(std::vector<std::string_view>(mine.begin(), mine.end()) == own);
    CHECK(storage.empty());  // given, not split again
    if (!seg.text.empty()) {
      const std::string_view part = seg.text.substr(0, seg.text.size() - 1);  // another text: split
      const auto theirs = ctx.lines_of(part, storage);
      CHECK(std::vector<std::string_view>(theirs.begin(), theirs.end()) == split_lines(part));
    }
  }
}

}  // namespace

TEST_CASE("a segment's lines from the whole split are split_lines of its text, on every fixture", "[sniff][fixtures]") {
  std::size_t files = 0;
  for (const std::filesystem::path& path : culprit::test::text_fixtures()) {
    INFO(path.string());
    check_segments(culprit::test::read_fixture(path));
    ++files;
  }
  CHECK(files > 50);
}

TEST_CASE("segments that end at empty lines, CRs and prompts keep their lines", "[sniff]") {
  // Blank lines between runs, \r\n and lone \r endings, a text without a last newline, two
  // prompts with the same command (their outputs merge across the second prompt), a kernel run
  // between app lines, a trailing run of blank lines.
  const std::string kernel = "[  101.000001] Out of memory: Killed process 4242 (python3) total-vm:1kB\n";
  check_segments("app line one\n\n" + kernel + "\napp line two\r\n\r\nlast");
  check_segments("user@h:~$ cat a\nfirst output\n\nuser@h:~$ cat a\nsecond output\n\n\n");
  check_segments("progress 10%\rprogress 20%\r\n" + kernel + "\r\n\r\n");
  check_segments("\n\n\n" + kernel + kernel + "\n");
  check_segments("only\r");
}
