// The whole-block byte passes: the portable form and, where this CPU has AVX2, the AVX2 form,
// each held to a byte-by-byte reading (whichever the build picks, the other is tested too).
#include <catch2/catch.hpp>

#include <array>
#include <random>
#include <string>
#include <vector>

#include "text/byte_bits.hpp"

namespace byte_bits_tests {

using namespace culprit::text::detail;

namespace {

bool is_sought_control(unsigned char c) { return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f; }

/// Random bytes, each `c` with the given chance in 100, else any byte.
std::string random_text(std::mt19937& rng, std::size_t size, unsigned char c, unsigned percent) {
  std::string text(size, '\0');
  for (char& b : text) b = static_cast<char>(rng() % 100 < percent ? c : rng() % 256);
  return text;
}

/// `size` bytes drawn from `alphabet`.
std::string text_of(std::mt19937& rng, std::size_t size, std::string_view alphabet) {
  std::string text(size, '\0');
  for (char& c : text) c = alphabet[rng() % alphabet.size()];
  return text;
}

/// `text` with `byte` planted at its first, middle and last offset, each handed to
/// `check(planted, at)`; nothing for an empty text.
template <class Check>
void for_each_planting(const std::string& text, char byte, Check check) {
  if (text.empty()) return;
  for (const std::size_t at : {std::size_t{0}, text.size() / 2, text.size() - 1}) {
    std::string planted = text;
    planted[at] = byte;
    check(planted, at);
  }
}

}  // namespace

TEST_CASE("the engine in use is the last this CPU can run: AVX2 where it has it", "[text]") {
  const auto all = byte_bits_engines();
  REQUIRE(!all.empty());
  CHECK(all.front()->name == "portable");
  CHECK(&byte_bits_engine() == all.back());
#if defined(__x86_64__)
  CHECK((all.size() == 2) == (__builtin_cpu_supports("avx2") != 0));
#endif
}

TEST_CASE("equal_bits sets the bit of every byte equal to the one asked, and of no other", "[text]") {
  std::mt19937 rng(41);
  for (const ByteBitsEngine* engine : byte_bits_engines()) {
    for (const std::size_t words : {0u, 1u, 2u, 3u, 64u, 65u}) {
      for (const unsigned char c : {'\n', ':', '\0', '\xff', '\x80'}) {
        const std::string text = random_text(rng, 64 * words, c, 20);
        std::vector<std::uint64_t> out(words + 1, 0x5a5a5a5a5a5a5a5aULL);
        engine->equal_bits(text.data(), words, c, out.data());
        INFO(engine->name << ": " << words << " words, byte " << int(c));
        for (std::size_t k = 0; k < words; ++k) {
          std::uint64_t expected = 0;
          for (unsigned j = 0; j < 64; ++j)
            expected |= static_cast<std::uint64_t>(static_cast<unsigned char>(text[64 * k + j]) == c) << j;
          REQUIRE(out[k] == expected);
        }
        REQUIRE(out[words] == 0x5a5a5a5a5a5a5a5aULL);  // nothing written past the words asked
      }
    }
  }
}

TEST_CASE("fixed_bits sets the bit of every start where all three bytes sit at their offsets", "[text]") {
  std::mt19937 rng(47);
  // A text of two bytes mostly (':' and '.'), so that every mix of the three matching turns up;
  // offsets up to past a 32-byte half and a 64-byte word; the same byte fixed twice.
  const std::vector<std::array<FixedByte, 3>> patterns = {
      {{{0, ':'}, {3, ':'}, {6, '.'}}},     // `:??:??.` (a PCI bus id)
      {{{0, ':'}, {6, '.'}, {6, '.'}}},     // two fixed bytes: the last stands in for the middle
      {{{2, '.'}, {33, ':'}, {70, '.'}}},  // across a half and a word
      {{{0, ':'}, {0, ':'}, {0, ':'}}}};
  for (const ByteBitsEngine* engine : byte_bits_engines()) {
    for (const std::size_t words : {0u, 1u, 2u, 65u}) {
      for (const auto& fixed : patterns) {
        std::string text(64 * words + 80, '\0');
        for (char& b : text) b = "::.x"[rng() % 4];
        std::vector<std::uint64_t> out(words + 1, 0x5a5a5a5a5a5a5a5aULL);
        engine->fixed_bits(text.data(), words, fixed.data(), out.data());
        INFO(engine->name << ": " << words << " words, offsets " << fixed[0].offset << " " << fixed[1].offset << " "
                          << fixed[2].offset);
        for (std::size_t k = 0; k < words; ++k) {
          std::uint64_t expected = 0;
          for (unsigned j = 0; j < 64; ++j) {
            bool all = true;
            for (const FixedByte& f : fixed)
              all = all && static_cast<unsigned char>(text[64 * k + j + f.offset]) == f.byte;
            expected |= static_cast<std::uint64_t>(all) << j;
          }
          REQUIRE(out[k] == expected);
        }
        REQUIRE(out[words] == 0x5a5a5a5a5a5a5a5aULL);  // nothing written past the words asked
      }
    }
  }
}

TEST_CASE("count_equal agrees with a byte count at every length, density and lane-sum period", "[text]") {
  std::mt19937 rng(43);
  // Around both vector widths (16, 32) and both lane-sum periods (255 vectors of each width).
  for (const ByteBitsEngine* engine : byte_bits_engines()) {
    for (const std::size_t size : {0u, 1u, 15u, 16u, 31u, 32u, 33u, 4079u, 4080u, 4081u, 8159u, 8160u, 8161u, 70001u}) {
      for (const unsigned percent : {0u, 1u, 50u, 100u}) {
        const std::string text = random_text(rng, size, '\n', percent);
        INFO(engine->name << ": size " << size << ", " << percent << "% newlines");
        REQUIRE(engine->count_equal(text.data(), text.size(), '\n') ==
                static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')));
      }
    }
  }
}

TEST_CASE("count_equal_without counts as count_equal, or says the absent byte is there wherever it is", "[text]") {
  std::mt19937 rng(53);
  for (const ByteBitsEngine* engine : byte_bits_engines()) {
    for (const std::size_t size : {0u, 1u, 31u, 32u, 33u, 8160u, 8161u, 70001u}) {
      std::string text = random_text(rng, size, '\n', 30);
      for (char& b : text)
        if (b == '\r') b = 'r';
      INFO(engine->name << ": size " << size);
      REQUIRE(engine->count_equal_without(text.data(), text.size(), '\n', '\r') ==
              static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n')));
      // One \r anywhere (each vector's lanes, the tail) turns the count away.
      for (std::size_t at = 0; at < size; at += (at < 70 || size - at < 70) ? 1 : 997) {
        const char kept = text[at];
        text[at] = '\r';
        INFO("a \\r at " << at);
        REQUIRE(engine->count_equal_without(text.data(), text.size(), '\n', '\r') == static_cast<std::size_t>(-1));
        text[at] = kept;
      }
    }
  }
}

TEST_CASE("any_control finds each control byte at every offset of its words, and nothing else", "[text]") {
  for (const ByteBitsEngine* engine : byte_bits_engines()) {
    for (const std::size_t words : {1u, 2u}) {
      for (std::size_t at = 0; at < 64 * words; ++at) {
        for (unsigned b = 0; b < 256; ++b) {
          std::string text(64 * words + 1, 'a');
          text[at] = static_cast<char>(b);
          text.back() = '\x1b';  // past the words: never read
          INFO(engine->name << ": byte " << b << " at " << at << " of " << words << " words");
          REQUIRE(engine->any_control(text.data(), words) == is_sought_control(static_cast<unsigned char>(b)));
        }
      }
    }
  }
}

TEST_CASE("bytes_present tells each asked byte at every offset, and no look-alike", "[text]") {
  // The census's bytes (\r NUL # \ @ ^), one planted at a time across the vector widths and the
  // tail, among bytes that share a nibble with one of them (0x8D, 0xC0, 0x2D, 0xDE ...), which
  // the AVX2 form's nibble tables must not take for it.
  const std::string_view asked{"\r\0#\\@^", 6};
  const std::string filler = "\x8d\xc0\x2d\xde\x0e\x43\x5d\x60" "a \n";
  std::mt19937 rng(53);
  for (const ByteBitsEngine* engine : byte_bits_engines()) {
    for (const std::size_t size : {0u, 1u, 31u, 32u, 33u, 64u, 100u, 8191u, 8192u, 8193u, 20000u}) {
      const std::string text = text_of(rng, size, filler);
      INFO(engine->name << ": " << size << " bytes of look-alikes");
      REQUIRE(engine->bytes_present(text.data(), text.size(), asked) == 0);
      for (std::size_t k = 0; k < asked.size(); ++k)
        for_each_planting(text, asked[k], [&](const std::string& planted, std::size_t at) {
          INFO("byte " << int(static_cast<unsigned char>(asked[k])) << " at " << at);
          REQUIRE(engine->bytes_present(planted.data(), planted.size(), asked) == std::uint32_t{1} << k);
        });
    }
    // All of them, and a list of other bytes.
    const std::string every("x\r\0y#\\@^z", 9);
    CHECK(engine->bytes_present(every.data(), every.size(), asked) == 0x3fu);
    CHECK(engine->bytes_present(every.data(), every.size(), "zq") == 0x1u);
  }
}

TEST_CASE("census tells bytes_present's bytes, a byte past ASCII and a control byte, each at every offset",
          "[text]") {
  // text::RareBytes' one pass: the asked bytes as bytes_present tells them, kNonAsciiBit for a
  // byte >= 0x80 and kControlBit for a byte any_control looks for, planted one at a time across
  // the vector widths and the tail among printable ASCII and the terminators.
  using culprit::text::detail::kControlBit;
  using culprit::text::detail::kNonAsciiBit;
  const std::string_view asked{"\r\0#\\@^", 6};
  const std::string filler = "abc XYZ 09:.[]\t\n";
  std::mt19937 rng(61);
  for (const ByteBitsEngine* engine : byte_bits_engines()) {
    for (const std::size_t size : {0u, 1u, 31u, 32u, 33u, 64u, 100u, 4095u, 4096u, 4097u, 20000u}) {
      const std::string text = text_of(rng, size, filler);
      INFO(engine->name << ": " << size << " bytes");
      REQUIRE(engine->census(text.data(), text.size(), asked) == 0);
      for (unsigned b = 0; b < 256; ++b)
        for_each_planting(text, static_cast<char>(b), [&](const std::string& planted, std::size_t at) {
          std::uint32_t want = engine->bytes_present(planted.data(), planted.size(), asked);
          if (b >= 0x80) want |= kNonAsciiBit;
          if (is_sought_control(static_cast<unsigned char>(b))) want |= kControlBit;
          INFO("byte " << b << " at " << at);
          REQUIRE(engine->census(planted.data(), planted.size(), asked) == want);
        });
    }
  }
}

}  // namespace byte_bits_tests
