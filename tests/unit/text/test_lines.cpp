// Line splitting and cleaning: CRLF files, tqdm's lone CR, real and pasted ANSI colour codes.
#include <catch2/catch.hpp>

#include <algorithm>
#include <random>
#include <string>

#include "culprit/text/lines.hpp"
#include "text/byte_vectors.hpp"

namespace lines_tests {

using namespace culprit::text;
using SV = std::vector<std::string_view>;

namespace {

/// The lines of a text with no \r, read byte by byte: split_lines' reference.
SV split_at_newlines(const std::string& text) {
  SV lines;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') {
      lines.emplace_back(text.data() + start, i - start);
      start = i + 1;
    }
  if (start < text.size()) lines.emplace_back(text.data() + start, text.size() - start);
  return lines;
}

}  // namespace

TEST_CASE("split_lines handles LF, CRLF and a lone CR", "[text]") {
  CHECK(split_lines("a\nb\n") == SV{"a", "b"});
  CHECK(split_lines("a\r\nb\r\n") == SV{"a", "b"});
  CHECK(split_lines("a\r\nb") == SV{"a", "b"});
  // tqdm redraws with a lone CR: each redraw is its own line.
  CHECK(split_lines("  0%|   | 0/10\r 50%|## | 5/10\r100%|###| 10/10\nKilled\n") ==
        SV{"  0%|   | 0/10", " 50%|## | 5/10", "100%|###| 10/10", "Killed"});
  CHECK(split_lines("x\r\r\ny") == SV{"x", "", "y"});
}

TEST_CASE("split_lines keeps empty lines and drops nothing at the edges", "[text]") {
  CHECK(split_lines("").empty());
  CHECK(split_lines("\n") == SV{""});
  CHECK(split_lines("a\n\nb") == SV{"a", "", "b"});
  CHECK(split_lines("no newline") == SV{"no newline"});
  CHECK(split_lines("\r") == SV{""});
}

TEST_CASE("strip_ansi removes real CSI sequences", "[text]") {
  // vLLM's worker prefix as written to files by older versions.
  CHECK(strip_ansi("\x1b[1;36m(VllmWorkerProcess pid=3242)\x1b[0;0m INFO 01-30 11:53:52 worker.py:1] x") ==
        "(VllmWorkerProcess pid=3242) INFO 01-30 11:53:52 worker.py:1] x");
  CHECK(strip_ansi("\x1b[36m(RayWorkerWrapper pid=123)\x1b[0m hello") ==
        "(RayWorkerWrapper pid=123) hello");
  CHECK(strip_ansi("\x1b[2K\x1b[1Gdone") == "done");
  CHECK(strip_ansi("\x1b]8;;http://x\x07link\x1b]8;;\x07") == "link");
}

TEST_CASE("strip_ansi removes the pasted caret form", "[text]") {
  CHECK(strip_ansi("^[[0;36m(EngineCore_DP0 pid=245)^[[0;0m ERROR 08-19 04:02:11 [core.py:1346] EngineCore failed to start.") ==
        "(EngineCore_DP0 pid=245) ERROR 08-19 04:02:11 [core.py:1346] EngineCore failed to start.");
  CHECK(strip_ansi("^[[32mINFO^[[0m ok") == "INFO ok");
  // Not a colour code: kept.
  CHECK(strip_ansi("x ^[[ y") == "x ^[[ y");
  CHECK(strip_ansi("a^[[") == "a^[[");
}

TEST_CASE("strip_ansi removes control bytes but keeps tabs and UTF-8", "[text]") {
  CHECK(strip_ansi("a\tb\x01" "c\x7f\rd") == "a\tbcd");
  CHECK(strip_ansi("caf\xc3\xa9 \xff") == "caf\xc3\xa9 \xff");
  CHECK(strip_ansi("cut off \x1b[1;3") == "cut off 1;3");
  CHECK(strip_ansi("\x1b") == "");
}

TEST_CASE("strip_ansi finds each code and control byte at every offset of a long line", "[text]") {
  // Its plain runs are read eight bytes a step: each special byte is put at every offset of a
  // 40-byte line (across the words' edges), with UTF-8 and DEL around it.
  const std::string plain = "INFO 04-09 00:47:22 caf\xc3\xa9 [engine.py:291] ok";
  for (std::size_t at = 0; at <= plain.size(); ++at) {
    const std::string head = plain.substr(0, at), tail = plain.substr(at);
    CHECK(strip_ansi(head + "\x1b[0;36m" + tail) == plain);
    CHECK(strip_ansi(head + "^[[1m" + tail) == plain);
    CHECK(strip_ansi(head + "\x01\x7f" + tail) == plain);
    CHECK(strip_ansi(head + "\t" + tail) == head + "\t" + tail);
    CHECK(strip_ansi(head + "^" + tail) == head + "^" + tail);  // a caret that starts no code
  }
  CHECK(strip_ansi(plain) == plain);
}

TEST_CASE("has_ansi says whether strip_ansi would change the line", "[text]") {
  CHECK(has_ansi("\x1b[0m"));
  CHECK(has_ansi("^[[0;36mx"));
  CHECK(has_ansi("bell\x07"));
  CHECK_FALSE(has_ansi("plain\ttext ^[[ not a code"));
  CHECK_FALSE(has_ansi(""));
}

TEST_CASE("trim and friends", "[text]") {
  CHECK(trim("  \t x y \r\n") == "x y");
  CHECK(trim("") == "");
  CHECK(trim(" \t ") == "");
  CHECK(trim_left("  a ") == "a ");
  CHECK(starts_with("[rank0]: x", "[rank0]:"));
  CHECK_FALSE(starts_with("ab", "abc"));
  CHECK(contains("NCCL WARN Cuda failure 'out of memory'", "out of memory"));
  CHECK_FALSE(contains("abc", "abd"));
}

TEST_CASE("strip_ansi removes APC strings such as Buildkite's per-line stamp", "[text]") {
  // Buildkite's raw job log: `ESC _bk;t=<epoch ms> BEL` before each line's text.
  CHECK(culprit::text::strip_ansi("\x1b_bk;t=1714557600123\x07step 1 done") == "step 1 done");
  CHECK(culprit::text::strip_ansi("\x1bPq#0;2;0;0;0\x1b\\after") == "after");  // a DCS (sixel) string
  // Unterminated: the text after it is kept.
  CHECK(culprit::text::strip_ansi("\x1b_bk;t=1 no end") == "bk;t=1 no end");
}

TEST_CASE("count_line_ends counts the lines that end as split_lines ends them", "[text]") {
  // \n, \r\n once, a lone \r; a last line without a terminator ends nowhere.
  for (const std::string_view text :
       {"", "a", "a\n", "a\nb", "a\r\nb\r\n", "a\rb\rc", "\r\n\r\n\n", "x\r", "\r", "a\n\rb", "a\r\r\n"}) {
    const auto lines = split_lines(text);
    const bool last_open = !text.empty() && text.back() != '\n' && text.back() != '\r';
    INFO(std::string(text));
    CHECK(count_line_ends(text) == lines.size() - (last_open ? 1 : 0));
  }
  // A long text: the one-pass count without a \r, the walk with one.
  std::string big;
  for (int i = 0; i < 5000; ++i) big += "line " + std::to_string(i) + "\n";
  CHECK(count_line_ends(big) == 5000);
  big[big.find("line 2500") + 4] = '\r';  // a lone \r inside a line ends one more
  CHECK(count_line_ends(big) == 5001);
  big.insert(big.find("line 4000") - 1, 1, '\r');  // a \r\n ends one line, as a \n does
  CHECK(count_line_ends(big) == 5001);
}

TEST_CASE("split_lines with a CR agrees with a byte walk on random terminators at every offset", "[text]") {
  // The reference: \n ends a line, \r\n ends one, a lone \r ends one; a last line without a
  // terminator is a line. Words of 64 bytes are where the vector walk could go wrong: a \r\n
  // across two words, runs of terminators, a \r at the text's end.
  const auto reference = [](std::string_view t) {
    std::vector<std::string_view> out;
    std::size_t start = 0;
    for (std::size_t i = 0; i < t.size(); ++i) {
      if (t[i] != '\n' && t[i] != '\r') continue;
      out.push_back(t.substr(start, i - start));
      if (t[i] == '\r' && i + 1 < t.size() && t[i + 1] == '\n') ++i;
      start = i + 1;
    }
    if (start < t.size()) out.push_back(t.substr(start));
    return out;
  };
  std::mt19937 rng(37);
  for (const std::size_t size : {1u, 2u, 63u, 64u, 65u, 127u, 128u, 129u, 300u, 5000u}) {
    for (const unsigned percent : {3u, 30u, 90u}) {
      std::string text(size, 'x');
      for (char& c : text) {
        const unsigned r = rng() % 100;
        c = r < percent / 2 ? '\r' : r < percent ? '\n' : 'a';
      }
      text[rng() % size] = '\r';  // the vector walk only runs where there is one
      INFO("size " << size << ", " << percent << "% terminators");
      CHECK(split_lines(text) == reference(text));
    }
  }
}

TEST_CASE("count_line_ends agrees with split_lines on random CR and LF at every offset", "[text]") {
  // The count with a \r takes pairs sixteen starts a step, summed every 255 steps: a \r\n across
  // a step's edge, past a sum, at the text's ends and in runs of terminators are the cases a
  // vector count gets wrong.
  std::mt19937 rng(29);
  for (const std::size_t size : {1u, 2u, 15u, 16u, 17u, 18u, 31u, 32u, 33u, 200u, 4097u, 70000u}) {
    for (const unsigned percent : {5u, 30u, 90u}) {
      std::string text(size, 'x');
      for (char& c : text) {
        const unsigned r = rng() % 100;
        c = r < percent / 2 ? '\r' : r < percent ? '\n' : 'a';
      }
      const auto lines = split_lines(text);
      const bool last_open = text.back() != '\n' && text.back() != '\r';
      INFO("size " << size << ", " << percent << "% terminators");
      CHECK(count_line_ends(text) == lines.size() - (last_open ? 1 : 0));
    }
  }
}

TEST_CASE("find and find_folded agree with std::string_view::find for every needle, start and offset", "[text]") {
  // Needles of the lengths the line checks ask (1-9 bytes) over texts of a small alphabet, so
  // that first and last bytes match often where the whole does not, at sizes around the step.
  std::mt19937 rng(31);
  const std::string_view alphabet = "ab ,";
  for (int round = 0; round < 400; ++round) {
    std::string text(rng() % 70, 'x');
    for (char& c : text) c = alphabet[rng() % alphabet.size()];
    std::string needle(1 + rng() % 9, 'x');
    for (char& c : needle) c = alphabet[rng() % alphabet.size()];
    const std::string_view sv = text;
    for (std::size_t from = 0; from <= text.size() + 1; ++from) {
      INFO("text '" << text << "', needle '" << needle << "', from " << from);
      REQUIRE(find(sv, needle, from) == sv.find(needle, from));
    }
    CHECK(contains(sv, needle) == (sv.find(needle) != std::string_view::npos));
  }
  // find_folded: the same, with either case of a letter (and nothing else) matching.
  const std::string_view folded_alphabet = "pPiIdD=@`[{";
  for (int round = 0; round < 400; ++round) {
    std::string text(rng() % 70, 'x');
    for (char& c : text) c = folded_alphabet[rng() % folded_alphabet.size()];
    std::string needle(1 + rng() % 4, 'x');
    for (char& c : needle) c = folded_alphabet[rng() % folded_alphabet.size()];
    const auto lower = [](std::string t) {
      for (char& c : t) c = (c >= 'A' && c <= 'Z') ? static_cast<char>(c | 0x20) : c;
      return t;
    };
    const std::string folded_text = lower(text), folded_needle = lower(needle);
    for (std::size_t from = 0; from <= text.size() + 1; ++from) {
      INFO("text '" << text << "', needle '" << needle << "', from " << from);
      REQUIRE(find_folded(text, needle, from) == std::string_view(folded_text).find(folded_needle, from));
    }
  }
  CHECK(find_folded("a Pid here", "pid") == 2);
  CHECK(find_folded("a `@[{ here", "@") == 3);
  CHECK(find_folded("nothing", "@") == std::string_view::npos);
  CHECK(find("abc", "") == 0);
  CHECK(find("abc", "", 3) == 3);
  CHECK(find("abc", "", 4) == std::string_view::npos);
  CHECK(find("", "a") == std::string_view::npos);
  const std::string line = std::string(100, ' ') + "Apr  9 00:47:22 node-00 kernel: [1.2] x";
  CHECK(find(line, " kernel: ") == line.find(" kernel: "));
}

TEST_CASE("count_newlines agrees with a byte count at every length and density", "[text]") {
  std::mt19937 rng(17);
  // Sizes around the vector width (16) and the lane-sum period (255 vectors: 4080 bytes).
  for (const std::size_t size : {0u, 1u, 7u, 8u, 9u, 15u, 16u, 17u, 63u, 2040u, 4079u, 4080u, 4081u, 4096u, 70000u}) {
    for (const unsigned percent : {0u, 1u, 50u, 100u}) {
      std::string text(size, 'x');
      for (char& c : text) c = rng() % 100 < percent ? '\n' : static_cast<char>(rng() % 256);
      INFO("size " << size << ", " << percent << "% newlines");
      CHECK(count_newlines(text) == static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')));
    }
  }
}

TEST_CASE("count_controls and count_byte agree with a byte count at every length and density", "[text]") {
  std::mt19937 rng(23);
  // The binary probes' two sets: tab, the terminators and ESC; and those with NUL, \b, \v, \f.
  const auto terminators = [](std::uint8_t c) {
    return static_cast<std::uint8_t>((c == '\n') + (c == '\r') + (c == '\t') + (c == 0x1b));
  };
  const auto wide = [](std::uint8_t c) {
    return static_cast<std::uint8_t>((c == 0) + (static_cast<std::uint8_t>(c - 0x08) < 6) + (c == 0x1b));
  };
  // Sizes around the lane-sum period (255 bytes), and a run of 255 control bytes in one lane.
  for (const std::size_t size : {0u, 1u, 31u, 254u, 255u, 256u, 509u, 510u, 511u, 8192u, 70000u}) {
    for (const unsigned percent : {0u, 5u, 50u, 100u}) {
      std::string text(size, 'x');
      for (char& c : text) c = static_cast<char>(rng() % 100 < percent ? rng() % 0x20 : rng() % 256);
      INFO("size " << size << ", " << percent << "% control bytes");
      std::size_t want_terminators = 0, want_wide = 0;
      for (const char c : text) {
        const auto b = static_cast<std::uint8_t>(c);
        want_terminators += b < 0x20 && terminators(b) == 0;
        want_wide += b < 0x20 && wide(b) == 0;
      }
      CHECK(count_controls(text, terminators) == want_terminators);
      CHECK(count_controls(text, wide) == want_wide);
      CHECK(count_byte(text, '\0') == static_cast<std::size_t>(std::count(text.begin(), text.end(), '\0')));
    }
  }
  CHECK(count_controls(std::string(255, '\x01'), terminators) == 255);
  CHECK(count_controls(std::string(600, '\x01'), terminators) == 600);  // no lane sums past 255
  CHECK(count_controls(std::string(600, '\x1b'), terminators) == 0);
}

TEST_CASE("block_has_ansi says yes wherever some line's has_ansi does", "[text]") {
  CHECK_FALSE(block_has_ansi("plain\r\nlines\twith tabs\n"));
  CHECK(block_has_ansi("ok\n\x1b[31mred\x1b[0m\n"));
  CHECK(block_has_ansi("pasted ^[[0;36mcolour\n"));
  CHECK(block_has_ansi(std::string("a NUL \0 byte\n", 13)));
  CHECK(block_has_ansi("a DEL \x7f byte"));
  // A pasted `^[[` is printable text: only block_has_ansi takes it for an escape.
  CHECK_FALSE(has_control_bytes("pasted ^[[0;36mcolour\n"));
  CHECK(has_control_bytes("ok\n\x1b[31mred\n"));
}

TEST_CASE("block_has_ansi and has_control_bytes find a control byte at every offset, and only those", "[text]") {
  // Offsets across a 64-byte block and the tail after it; the bytes the line splitter owns
  // (\n, \r), tab and non-ASCII are no escape.
  for (const std::size_t size : {1u, 15u, 16u, 17u, 63u, 64u, 65u, 130u}) {
    for (std::size_t at = 0; at < size; ++at) {
      for (const unsigned char c : {0x00, 0x01, 0x1b, 0x1f, 0x7f, 0x09, 0x0a, 0x0d, 0x20, 0x80, 0xff}) {
        std::string text(size, 'a');
        text[at] = static_cast<char>(c);
        const bool control = (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f;
        INFO("size " << size << ", byte " << int(c) << " at " << at);
        CHECK(block_has_ansi(text) == control);
        CHECK(has_control_bytes(text) == control);
      }
    }
  }
}

TEST_CASE("find_pattern and contains_pattern agree with a byte-by-byte search, wildcards and all", "[text]") {
  CHECK(contains_pattern("0, 00000000:3B:00.0, 1", ":??:??.", '?'));
  CHECK_FALSE(contains_pattern("prompt: '', params: x", ":??:??.", '?'));
  CHECK_FALSE(contains_pattern("00000000:3B:00.", ":??:??.?", '?'));  // one byte short
  CHECK(contains_pattern("ab", "??", '?'));
  CHECK_FALSE(contains_pattern("a", "??", '?'));
  CHECK(contains_pattern("", "", '?'));
  std::mt19937 rng(23);
  const std::string alphabet = ":.a, ";
  const auto reference = [](std::string_view s, std::string_view p) {
    for (std::size_t i = 0; i + p.size() <= s.size(); ++i) {
      bool all = true;
      for (std::size_t k = 0; k < p.size() && all; ++k) all = p[k] == '?' || s[i + k] == p[k];
      if (all) return i;
    }
    return std::string_view::npos;
  };
  for (int round = 0; round < 20000; ++round) {
    std::string s(rng() % 70, 'a'), p(1 + rng() % 9, '?');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    for (char& c : p) c = rng() % 3 == 0 ? '?' : alphabet[rng() % alphabet.size()];
    INFO("text '" << s << "', pattern '" << p << "'");
    REQUIRE(find_pattern(s, p, '?') == reference(s, p));  // the first place, not just any
    REQUIRE(contains_pattern(s, p, '?') == (reference(s, p) != std::string_view::npos));
  }
}

TEST_CASE("for_each_pattern hands on every match once, in order, and stops when told", "[text]") {
  // Texts from under sixteen starts to past a run of words, so that the word runs, the sixteen
  // at a time and the overlapping last sixteen each find matches; overlapping matches too.
  std::mt19937 rng(47);
  const std::string alphabet = ":.a";
  for (int round = 0; round < 3000; ++round) {
    std::string s(rng() % (round % 10 == 0 ? 9000 : 300), 'a');
    for (char& c : s) c = alphabet[rng() % alphabet.size()];
    const std::string p = round % 2 == 0 ? ":?:" : ":??:??.";
    std::vector<std::size_t> expected, got;
    for (std::size_t i = 0; i + p.size() <= s.size(); ++i) {
      bool all = true;
      for (std::size_t k = 0; k < p.size() && all; ++k) all = p[k] == '?' || s[i + k] == p[k];
      if (all) expected.push_back(i);
    }
    for_each_pattern(s, p, '?', [&got](std::size_t at) {
      got.push_back(at);
      return true;
    });
    INFO("text of " << s.size() << " bytes, pattern '" << p << "'");
    REQUIRE(got == expected);
    const std::size_t stop_after = expected.empty() ? 1 : 1 + rng() % expected.size();
    got.clear();
    for_each_pattern(s, p, '?', [&](std::size_t at) {
      got.push_back(at);
      return got.size() < stop_after;
    });
    REQUIRE(got == std::vector<std::size_t>(expected.begin(), expected.begin() + std::min(stop_after, expected.size())));
  }
}

TEST_CASE("split_lines cuts at every newline, whatever its offset in the text", "[text]") {
  // Newlines at every offset, runs of them, long stretches without, and a last line with or
  // without its terminator.
  std::mt19937 rng(29);
  for (int round = 0; round < 5000; ++round) {
    std::string text(rng() % 200, 'a');  // up to three 64-byte blocks and a tail
    const unsigned density = rng() % 4;
    for (char& c : text) c = rng() % 8 < density ? '\n' : 'a';
    INFO("text of " << text.size() << " bytes");
    REQUIRE(split_lines(text) == split_at_newlines(text));
  }
}

TEST_CASE("split_lines and find_pattern hold across the word runs of a long text", "[text]") {
  // Past the 4 KiB of bits a block pass computes at a time (kBitWords words), and past a
  // find_pattern run's doubling (2, 4, ... 64 words): sparse newlines and sparse matches at
  // random offsets, and a search started again after each match as Scan::pattern_lines_for does.
  std::mt19937 rng(37);
  const auto reference = [](std::string_view s, std::string_view p) {
    for (std::size_t i = 0; i + p.size() <= s.size(); ++i)
      if (s[i] == p[0] && s[i + 3] == p[3] && s[i + 6] == p[6]) return i;
    return std::string_view::npos;
  };
  for (int round = 0; round < 40; ++round) {
    std::string text(4000 + rng() % 14000, 'a');
    for (char& c : text) c = rng() % 300 == 0 ? '\n' : rng() % 40 == 0 ? ':' : 'a';
    for (int m = rng() % 6; m-- > 0;) text.replace(rng() % (text.size() - 7), 7, ":3B:00.");
    INFO("text of " << text.size() << " bytes");
    REQUIRE(split_lines(text) == split_at_newlines(text));
    for (std::size_t from = 0; from <= text.size();) {
      const std::string_view rest = std::string_view(text).substr(from);
      const std::size_t at = find_pattern(rest, ":??:??.", '?');
      REQUIRE(at == reference(rest, ":??:??."));
      if (at == std::string_view::npos) break;
      from += at + 1;
    }
  }
}

TEST_CASE("a text's census of rare bytes answers as a scan for each would", "[text]") {
  std::mt19937 rng(59);
  const std::string alphabet = std::string("ab \n:") + std::string(RareBytes::kBytes) + "\x1b";
  for (int round = 0; round < 2000; ++round) {
    std::string text(rng() % 300, 'a');
    for (char& c : text) c = rng() % 20 == 0 ? alphabet[rng() % alphabet.size()] : 'a';
    const RareBytes census = RareBytes::of(text);
    for (const char c : alphabet) {
      const bool there = text.find(c) != std::string::npos;
      INFO("byte " << int(static_cast<unsigned char>(c)) << " in a text of " << text.size());
      REQUIRE(census.holds(c, text) == there);  // ESC and the others: a scan
      REQUIRE(RareBytes::all().holds(c, text) == there);
      if (RareBytes::kBytes.find(c) != std::string_view::npos) REQUIRE(census.may_hold(c) == there);
      REQUIRE(RareBytes::all().may_hold(c));
    }
    REQUIRE(split_lines(text, census) == split_lines(text));
  }
}

TEST_CASE("a vector compare's lanes become bits alike on every build", "[text]") {
  // bits16 is pmovmskb on x86-64 and gathered_bits16 elsewhere: both hold to a lane-by-lane
  // reading, so the arm64 build's newline positions are the ones tested here.
  using namespace culprit::text::detail;
  std::mt19937 rng(31);
  for (int round = 0; round < 2000; ++round) {
    char bytes[64];
    for (char& b : bytes) b = rng() % 3 == 0 ? '\n' : 'x';
    const Mask16 m = load16(bytes) == splat16('\n');
    unsigned expected = 0;
    for (unsigned k = 0; k < 16; ++k) expected |= static_cast<unsigned>(bytes[k] == '\n') << k;
    REQUIRE(gathered_bits16(m) == expected);
    REQUIRE(bits16(m) == expected);
    std::uint64_t expected64 = 0;
    for (unsigned k = 0; k < 64; ++k) expected64 |= static_cast<std::uint64_t>(bytes[k] == '\n') << k;
    REQUIRE(bits64(bytes, '\n') == expected64);
  }
}

TEST_CASE("RareBytes: an ASCII text without control bytes says so: any other may hold them", "[text]") {
    const RareBytes plain = RareBytes::of("[ 12.5] usb 1-1: new device\r\n\tnext line\n");
  CHECK_FALSE(plain.may_hold_non_ascii());
  CHECK_FALSE(plain.may_hold_control());
  CHECK(plain.may_hold('\r'));
  CHECK(RareBytes::of("caf\xc3\xa9\n").may_hold_non_ascii());
  CHECK_FALSE(RareBytes::of("caf\xc3\xa9\n").may_hold_control());
  CHECK(RareBytes::of("\x1b[1;36m(VllmWorker pid=1)\x1b[0m x\n").may_hold_control());
  CHECK(RareBytes::all().may_hold_non_ascii());
  CHECK(RareBytes::all().may_hold_control());
  // block_has_ansi asks no pass where the census has no control byte, and still finds a `^[[`.
  CHECK_FALSE(block_has_ansi("plain\n", RareBytes::of("plain\n")));
  CHECK(block_has_ansi("a ^[[0;36m b\n", RareBytes::of("a ^[[0;36m b\n")));
  CHECK(block_has_ansi("a \x1b[0m b\n", RareBytes::of("a \x1b[0m b\n")));
}

}  // namespace lines_tests
