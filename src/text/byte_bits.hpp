// Whole-block byte passes, 64 bytes to a word: which bytes equal a given one (or three at three
// offsets: a pattern's fixed bytes), how many do (unless another byte is there), whether a
// control byte is among them, and which of a few bytes a text holds. The text module's block
// passes (split_lines, count_newlines, count_line_ends, for_each_pattern, block_has_ansi, the
// RareBytes census) are built on these, so that their loops stay portable while the bytes are
// compared as wide as the CPU allows: with AVX2 where the CPU has it (x86-64; chosen once, at
// the first call), else sixteen bytes at a time (byte_vectors.hpp, SSE2 or NEON). AVX2 measured ~3× the SSE2 form's speed here on a 4 MiB piece (65 against
// 21 GB/s); the passes were 12 % of a batch scan's cycles. Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

namespace culprit::text::detail {

/// The word count a block pass hands each call: 4 KiB of text, 512 bytes of bits, so the bits
/// are read back from the first-level cache.
inline constexpr std::size_t kBitWords = 64;

/// out[k]: one bit per byte of p[64k, 64k + 64) equal to `c`, byte 0 the lowest; k < words.
void equal_bits(const char* p, std::size_t words, unsigned char c, std::uint64_t* out);

/// A byte a pattern fixes: `byte`, `offset` bytes after where the pattern starts.
struct FixedByte {
  std::size_t offset = 0;
  unsigned char byte = 0;
};
/// out[k]: one bit per start s in [64k, 64k + 64), the lowest first, where p[s + f.offset] ==
/// f.byte for each f of `fixed` (a pattern's first, middle and last fixed byte; one of them twice
/// where it fixes fewer); k < words. One pass for the three: each 64 bytes are read once.
/// Reads p up to 64 * words plus the largest offset.
void fixed_bits(const char* p, std::size_t words, const FixedByte* fixed, std::uint64_t* out);

/// How many bytes of p[0, n) equal `c`.
std::size_t count_equal(const char* p, std::size_t n, unsigned char c);
/// The same, in the same pass, where p[0, n) holds no byte `absent`; else npos (a count of
/// newlines that holds only where no \r ends a line too).
std::size_t count_equal_without(const char* p, std::size_t n, unsigned char c, unsigned char absent);

/// Whether p[0, 64 * words) holds a control byte that is no line's terminator or tab: a C0
/// byte other than \t \n \r, or DEL (strip_ansi's is_control, less the terminators).
bool any_control(const char* p, std::size_t words);

/// Bit k set where p[0, n) holds bytes[k] (k < 8; `bytes` of at most 8): one pass for several
/// bytes, each of which a whole-text memchr would otherwise look for on its own.
std::uint32_t bytes_present(const char* p, std::size_t n, std::string_view bytes);

/// census's bits past the asked bytes' (bits 0-7): a byte >= 0x80 (the text is not all ASCII),
/// and a control byte as any_control tells one.
inline constexpr std::uint32_t kNonAsciiBit = std::uint32_t{1} << 8;
inline constexpr std::uint32_t kControlBit = std::uint32_t{1} << 9;
/// The most bytes census asks: its AVX2 form keeps the last two of bytes_present's eight nibble-
/// table bits for the control bytes.
inline constexpr std::size_t kCensusBytes = 6;
/// bytes_present's bits and, in the same pass, kNonAsciiBit and kControlBit: what the checks of a
/// whole text need to know of it (text::RareBytes), each byte read once. `bytes`: at most
/// kCensusBytes.
std::uint32_t census(const char* p, std::size_t n, std::string_view bytes);

/// One implementation of the passes above.
struct ByteBitsEngine {
  std::string_view name;  ///< "avx2" or "portable"
  void (*equal_bits)(const char* p, std::size_t words, unsigned char c, std::uint64_t* out);
  void (*fixed_bits)(const char* p, std::size_t words, const FixedByte* fixed, std::uint64_t* out);
  std::size_t (*count_equal)(const char* p, std::size_t n, unsigned char c);
  std::size_t (*count_equal_without)(const char* p, std::size_t n, unsigned char c, unsigned char absent);
  bool (*any_control)(const char* p, std::size_t words);
  std::uint32_t (*bytes_present)(const char* p, std::size_t n, std::string_view bytes);
  std::uint32_t (*census)(const char* p, std::size_t n, std::string_view bytes);
};
/// The implementation in use: AVX2 where the build targets x86-64 and the CPU has it.
const ByteBitsEngine& byte_bits_engine();
/// Every implementation this build can run on this CPU, the portable one first: the test holds
/// each to a byte reading, whichever is in use.
std::vector<const ByteBitsEngine*> byte_bits_engines();

}  // namespace culprit::text::detail
