// input::detail::LineCutter: what it keeps of a text read in windows of any size must
// normalise (ingest/normalize.cpp) to exactly the text and notes the whole text gives, with
// the first cut line's full length from the cutter. Window edges are put on the hard places:
// inside a cut line, between \r and \n, inside a UTF-8 character, inside a NUL run.
#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "culprit/input/reader.hpp"

#include "ingest/normalize.hpp"
#include "input/line_cut.hpp"

using culprit::ingest::detail::normalize_text;
using culprit::ingest::detail::NormalizeReport;
using culprit::input::detail::LineCutter;

namespace {

constexpr std::size_t kLimit = 1000;

struct Cut {
  std::string text;
  LineCutter cutter{kLimit};
};

/// `in` through a cutter in windows of `window` bytes (0: one window).
Cut cut_in_windows(const std::string& in, std::size_t window) {
  Cut c;
  if (window == 0) window = in.size() + 1;
  for (std::size_t at = 0; at < in.size(); at += window) c.cutter.append(c.text, std::string_view(in).substr(at, window));
  return c;
}

/// normalize_text of the whole text and of what the cutter kept agree in text and notes.
void require_same_normalisation(const std::string& in, std::size_t window) {
  INFO("window " << window);
  std::string whole_storage, cut_storage;
  NormalizeReport whole, cut;
  const std::string expected(normalize_text(in, kLimit, whole_storage, whole));
  Cut c = cut_in_windows(in, window);
  CHECK(c.cutter.read_bytes() == static_cast<std::int64_t>(in.size()));
  const std::string got(normalize_text(c.text, kLimit, cut_storage, cut));
  if (c.cutter.first_cut_line() != 0 && cut.first_cut_line == c.cutter.first_cut_line())
    cut.first_cut_bytes = c.cutter.first_cut_bytes();
  REQUIRE(got == expected);
  CHECK(cut.cut_lines == whole.cut_lines);
  CHECK(cut.first_cut_line == whole.first_cut_line);
  CHECK(cut.first_cut_bytes == whole.first_cut_bytes);
  CHECK(cut.nul_bytes == whole.nul_bytes);
  CHECK(cut.first_nul_line == whole.first_nul_line);
  CHECK(cut.invalid_utf8_lines == whole.invalid_utf8_lines);
  CHECK(cut.first_invalid_line == whole.first_invalid_line);
  CHECK(cut.binary == whole.binary);
}

void require_same_in_all_windows(const std::string& in) {
  for (const std::size_t w : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{7},
                              std::size_t{1000}, std::size_t{1001}, std::size_t{4096}, std::size_t{65536}})
    require_same_normalisation(in, w);
}

/// Ordinary lines past the probe region, so the cutter is on when the long line comes.
std::string preamble() {
  std::string s;
  while (s.size() < LineCutter::kProbeBytes + 10) s += "[  12.345678] an ordinary kernel line of some length\n";
  return s;
}

}  // namespace

TEST_CASE("a long line split across windows is cut to what normalisation keeps, with its full length") {
  const std::string in = preamble() + std::string(300000, 'a') + "\nnext line\n" + std::string(5000, 'b') + "\n";
  require_same_in_all_windows(in);
  Cut c = cut_in_windows(in, 4096);
  CHECK(c.text.size() < in.size() - 290000);  // the tail of the long line was never kept
  CHECK(c.cutter.first_cut_bytes() == 300000);
}

TEST_CASE("a CRLF whose CR ends one window and LF starts the next ends the cut line once") {
  std::string in = preamble() + std::string(200000, 'c') + "\r\nafter\r\n" + std::string(3000, 'd') + "\rlone cr\n";
  require_same_in_all_windows(in);
  // Exactly at the edge: a window ends on the \r of the cut line.
  const std::size_t cr = in.find('\r');
  for (const std::size_t w : {cr, cr + 1}) require_same_normalisation(in, w);
}

TEST_CASE("a multi-byte UTF-8 character at the cut or at a window edge is kept whole or not at all") {
  std::string line;
  while (line.size() < 5000) line += "\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80x";  // é € 😀 x
  for (std::size_t shift = 0; shift < 4; ++shift) {
    const std::string in = preamble() + std::string(shift, 'z') + line + "\n" + line + "\xFF\xC3\n";
    require_same_in_all_windows(in);
  }
}

TEST_CASE("NULs and invalid bytes before the cut count as today: those after it are not read") {
  std::string line;
  for (int i = 0; i < 3000; ++i) line += i % 7 == 0 ? std::string("\0\0\0", 3) : i % 11 == 0 ? "\xFF" : "ab";
  require_same_in_all_windows(preamble() + line + "\nend\n");
}

TEST_CASE("a line of the first 64 KiB is never cut by the cutter: the probes see the bytes as read") {
  const std::string in = std::string(200000, 'q') + "\n";  // cut only from kProbeBytes on
  require_same_in_all_windows(in);
  Cut c = cut_in_windows(in, 4096);
  CHECK(c.text == std::string(LineCutter::kProbeBytes, 'q') + "\n");  // the terminator stays
  CHECK(c.cutter.first_cut_line() == 1);
  CHECK(c.cutter.first_cut_bytes() == 200000);
  // With a UTF-8 byte-order mark the length is counted without it, as normalisation does.
  require_same_in_all_windows("\xEF\xBB\xBF" + in);
}

TEST_CASE("lines under the limit and blocks that span windows pass through unchanged") {
  std::string in = preamble();
  for (int i = 0; i < 2000; ++i) in += "Out of memory: Killed process 4242 (python3) total-vm:1234kB, line\r\n";
  Cut c = cut_in_windows(in, 777);
  CHECK(c.text == in);
  CHECK(c.cutter.first_cut_line() == 0);
}

TEST_CASE("UTF-16 text and archives are kept whole: their bytes are no UTF-8 lines") {
  std::string utf16 = "\xFF\xFE";
  for (int i = 0; i < 200000; ++i) utf16 += std::string("a\0", 2);
  CHECK(cut_in_windows(utf16, 4096).text == utf16);
  std::string no_bom;
  for (int i = 0; i < 200000; ++i) no_bom += std::string("a\0", 2);
  CHECK(cut_in_windows(no_bom, 4096).text == no_bom);
  std::string gzip = "\x1F\x8B\x08";
  gzip += std::string(300000, 'z');
  CHECK(cut_in_windows(gzip, 4096).text == gzip);
  // The look-alike: text with the same long line is cut.
  CHECK(cut_in_windows(std::string(300000, 'z'), 4096).text.size() < 300000);
}

TEST_CASE("a limit of 0 keeps everything") {
  const std::string in = std::string(300000, 'a') + "\n";
  LineCutter off(0);
  std::string out;
  off.append(out, in);
  CHECK(out == in);
  CHECK(off.first_cut_line() == 0);
}

TEST_CASE("read_inputs hands on the bytes read and the first cut line with a file's kept text") {
  std::string tmpl = (std::filesystem::temp_directory_path() / "culprit-line-cut-XXXXXX").string();
  const std::filesystem::path dir = ::mkdtemp(tmpl.data());
  const std::string body = preamble() + std::string(300000, 'a') + "\nlast\n";
  std::ofstream(dir / "big.log", std::ios::binary) << body;
  culprit::input::ReadOptions options;
  options.max_line_bytes = kLimit;
  culprit::core::Diagnostics problems;
  const auto sources = culprit::input::read_inputs({(dir / "big.log").string()}, options, problems);
  std::filesystem::remove_all(dir);
  REQUIRE(sources.size() == 1);
  CHECK(sources[0].read_bytes == static_cast<std::int64_t>(body.size()));
  CHECK(sources[0].size() == static_cast<std::int64_t>(body.size()));
  CHECK(sources[0].text.size() < body.size() - 290000);
  CHECK(sources[0].cut_line > 1000);
  CHECK(sources[0].cut_line_bytes == 300000);
  // Without a limit the file is read whole and nothing is said.
  options.max_line_bytes = 0;
  std::ofstream(dir.string() + ".log", std::ios::binary) << body;
  const auto whole = culprit::input::read_inputs({dir.string() + ".log"}, options, problems);
  std::filesystem::remove(dir.string() + ".log");
  REQUIRE(whole.size() == 1);
  CHECK(whole[0].text == body);
  CHECK(whole[0].read_bytes == -1);
  CHECK(whole[0].cut_line == 0);
}
