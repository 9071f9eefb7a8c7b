// Text normalisation before sniffing (src/ingest/normalize.hpp): the fast path copies nothing;
// UTF-16 is decoded; NULs go, invalid UTF-8 becomes U+FFFD, overlong lines are cut at a
// character boundary; line numbers and line ends never change; binary is recognised.
#include <catch2/catch.hpp>

#include <string>

#include "ingest/normalize.hpp"

using culprit::ingest::detail::normalize_text;
using culprit::ingest::detail::NormalizeReport;

namespace {

std::string utf16le(std::string_view ascii, bool bom) {
  std::string out = bom ? std::string("\xff\xfe", 2) : std::string();
  for (char c : ascii) {
    out += c;
    out += '\0';
  }
  return out;
}

}  // namespace

TEST_CASE("ordinary text is returned as is, without a copy", "[normalize]") {
  const std::string text = "[    1.000000] Linux version 6.8.0\r\nline two\rline three: caf\xc3\xa9 \xe2\x9c\x93\n";
  std::string storage;
  NormalizeReport r;
  const auto out = normalize_text(text, 1 << 20, storage, r);
  CHECK(out.data() == text.data());
  CHECK(out.size() == text.size());
  CHECK(storage.empty());
  CHECK_FALSE(r.binary);
  CHECK(r.nul_bytes == 0);
  CHECK(r.invalid_utf8_lines == 0);
  CHECK(r.cut_lines == 0);
}

TEST_CASE("UTF-16 with a byte-order mark, or by its NULs, is decoded to UTF-8", "[normalize]") {
  std::string storage;
  NormalizeReport r;
  SECTION("little endian with BOM, a surrogate pair and CRLF") {
    std::string in = utf16le("ok ", true);
    in += std::string("\x3d\xd8\x00\xde", 4);  // U+1F600
    in += utf16le("\r\nnext\n", false);
    CHECK(normalize_text(in, 0, storage, r) == "ok \xf0\x9f\x98\x80\r\nnext\n");
    CHECK(r.encoding == "UTF-16LE");
    CHECK(r.encoding_from_bom);
  }
  SECTION("big endian with BOM") {
    std::string in("\xfe\xff\x00h\x00i\x00\n", 8);
    CHECK(normalize_text(in, 0, storage, r) == "hi\n");
    CHECK(r.encoding == "UTF-16BE");
  }
  SECTION("little endian without BOM, guessed") {
    CHECK(normalize_text(utf16le("Mem: 128 64 32\nSwap: 0 0 0\n", false), 0, storage, r) ==
          "Mem: 128 64 32\nSwap: 0 0 0\n");
    CHECK(r.encoding == "UTF-16LE");
    CHECK_FALSE(r.encoding_from_bom);
  }
  SECTION("a lone surrogate and an odd last byte become U+FFFD") {
    std::string in("\xff\xfe\x00\xd8" "a\x00" "b", 7);
    CHECK(normalize_text(in, 0, storage, r) == "\xef\xbf\xbd" "a" "\xef\xbf\xbd");
  }
}

// Issue 36 (redteam finding 28): FF FE 00 00 is UTF-32LE's byte-order mark, not UTF-16LE's
// followed by a NUL; decoded as UTF-32, with no NUL note.
TEST_CASE("UTF-32 with a byte-order mark is decoded and named UTF-32", "[normalize]") {
  auto utf32 = [](std::string_view ascii, bool little) {
    std::string out = little ? std::string("\xff\xfe\0\0", 4) : std::string("\0\0\xfe\xff", 4);
    for (char c : ascii) out += little ? std::string{c, '\0', '\0', '\0'} : std::string{'\0', '\0', '\0', c};
    return out;
  };
  const std::string text = "torch.OutOfMemoryError: CUDA out of memory.\nline two\n";
  for (const bool little : {true, false}) {
    const std::string in = utf32(text, little);
    std::string storage;
    NormalizeReport r;
    const std::string_view out = normalize_text(in, 0, storage, r);
    CHECK(r.encoding == (little ? "UTF-32LE" : "UTF-32BE"));
    CHECK(r.encoding_from_bom);
    CHECK(r.nul_bytes == 0);
    CHECK(out == text);
  }
  std::string storage;
  NormalizeReport r;
  const std::string emoji = std::string("\xff\xfe\0\0", 4) + std::string("\x00\xF6\x01\x00", 4);
  CHECK(normalize_text(emoji, 0, storage, r) == "\xf0\x9f\x98\x80");
}

TEST_CASE("NUL bytes are removed without moving lines", "[normalize]") {
  const std::string in = std::string("line 1\nline 2 ") + std::string(4096, '\0') + "tail\nline 3\n";
  std::string storage;
  NormalizeReport r;
  CHECK(normalize_text(in, 0, storage, r) == "line 1\nline 2 tail\nline 3\n");
  CHECK(r.nul_bytes == 4096);
  CHECK(r.first_nul_line == 2);
  CHECK_FALSE(r.binary);
}

TEST_CASE("invalid UTF-8 becomes U+FFFD: valid sequences stay", "[normalize]") {
  const std::string in = "ok \xc3\xa9\nLatin-1 caf\xe9\nlone \x80 and cut \xe2\x82\nsurrogate \xed\xa0\x80\n";
  std::string storage;
  NormalizeReport r;
  const auto out = normalize_text(in, 0, storage, r);
  CHECK(out == "ok \xc3\xa9\nLatin-1 caf\xef\xbf\xbd\nlone \xef\xbf\xbd and cut \xef\xbf\xbd\xef\xbf\xbd\n"
               "surrogate \xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\n");
  CHECK(r.invalid_utf8_lines == 3);
  CHECK(r.first_invalid_line == 2);
}

TEST_CASE("lines over the limit are cut at a character boundary: line ends stay", "[normalize]") {
  std::string storage;
  NormalizeReport r;
  SECTION("ASCII, CRLF") {
    const std::string in = std::string(10, 'x') + "\r\nshort\r\n" + std::string(12, 'y') + "\r\n";
    CHECK(normalize_text(in, 8, storage, r) == "xxxxxxxx\r\nshort\r\nyyyyyyyy\r\n");
    CHECK(r.cut_lines == 2);
    CHECK(r.first_cut_line == 1);
    CHECK(r.first_cut_bytes == 10);
  }
  SECTION("a multi-byte character across the limit is dropped whole") {
    const std::string in = "abcdef\xe2\x9c\x93tail\n";  // the check mark spans bytes 7-9
    CHECK(normalize_text(in, 7, storage, r) == "abcdef\n");
    CHECK(r.cut_lines == 1);
  }
  SECTION("a lone CR ends a line too") {
    const std::string in = "12345\r1234567890\r";
    CHECK(normalize_text(in, 6, storage, r) == "12345\r123456\r");
    CHECK(r.first_cut_line == 2);
  }
  SECTION("no limit") {
    const std::string in = std::string(100, 'z');
    CHECK(normalize_text(in, 0, storage, r).size() == 100);
    CHECK(r.cut_lines == 0);
  }
}

TEST_CASE("binary data is recognised by its control bytes, text in any encoding is not", "[normalize]") {
  std::string storage;
  NormalizeReport r;
  std::string random;
  std::uint32_t x = 12345;
  for (int i = 0; i < 65536; ++i) {
    x = x * 1103515245u + 12345u;
    random += static_cast<char>(x >> 24);
  }
  normalize_text(random, 0, storage, r);
  CHECK(r.binary);
  CHECK(r.binary_percent >= 5);

  std::string gbk;
  for (int i = 0; i < 2000; ++i) gbk += "\xc4\xe3\xba\xc3 ERROR \xb3\xf6\xb4\xed\n";  // GBK text
  normalize_text(gbk, 0, storage, r);
  CHECK_FALSE(r.binary);

  const std::string ansi = "\x1b[31mERROR\x1b[0m progress 10%\r progress 20%\r\b\b\f\n";
  normalize_text(ansi, 0, storage, r);
  CHECK_FALSE(r.binary);
}

TEST_CASE("binary_percent counts, in the first 64 KiB, the control bytes text lacks among the non-NUL bytes",
          "[normalize]") {
  // The definition, a byte at a time: C0 controls other than \b \t \n \v \f \r and ESC, of the
  // bytes that are not NUL. The counting runs in 255-byte chunks: lengths around their edges,
  // densities from none to all, and a text longer than the 64 KiB probe.
  auto expected = [](std::string_view s) {
    s = s.substr(0, std::min<std::size_t>(s.size(), 65536));
    std::size_t bad = 0, counted = 0;
    for (const char ch : s) {
      const auto c = static_cast<unsigned char>(ch);
      if (c == 0) continue;
      ++counted;
      if (c < 0x20 && c != '\b' && c != '\t' && c != '\n' && c != '\v' && c != '\f' && c != '\r' && c != 0x1b) ++bad;
    }
    return counted == 0 ? 0 : static_cast<int>(bad * 100 / counted);
  };
  std::string storage;
  NormalizeReport r;
  std::uint32_t x = 7;
  for (const std::size_t length : {1u, 254u, 255u, 256u, 510u, 511u, 4096u, 65535u, 65536u, 70000u}) {
    for (const unsigned every : {1u, 3u, 17u, 1000u}) {
      std::string text;
      for (std::size_t i = 0; i < length; ++i) {
        x = x * 1103515245u + 12345u;
        // Mostly letters; every `every`-th byte any value, all 256 in turn.
        text += i % every == 0 ? static_cast<char>(x >> 24) : static_cast<char>('a' + (x >> 27));
      }
      normalize_text(text, 0, storage, r);
      INFO("length " << length << ", every " << every);
      CHECK(r.binary_percent == expected(text));
    }
  }
  // Runs of one byte fill a chunk's counters to the top: a control text lacks, one it has, NUL.
  for (const char fill : {'\x01', '\x1b', '\0'}) {
    const std::string text = std::string(70000, fill) + "tail\n";
    normalize_text(text, 0, storage, r);
    INFO("fill " << static_cast<int>(fill));
    CHECK(r.binary_percent == expected(text));
  }
}
