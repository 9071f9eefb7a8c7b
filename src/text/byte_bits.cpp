// Whole-block byte passes (see byte_bits.hpp): a portable form on byte_vectors.hpp, and an AVX2
// form compiled for that target function by function (no file-wide flag, so nothing inline
// from a header is compiled for AVX2 and then picked by the linker for every caller).
#include "byte_bits.hpp"

#include <algorithm>

#include "byte_vectors.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define CULPRIT_BYTE_BITS_AVX2 1
#include <immintrin.h>
#endif

namespace culprit::text::detail {

namespace {

/// A byte any_control looks for: a C0 control other than the line terminators and tab, or DEL.
bool is_sought_control(unsigned char c) { return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c == 0x7f; }

namespace portable {

void equal_bits(const char* p, std::size_t words, unsigned char c, std::uint64_t* out) {
  for (std::size_t k = 0; k < words; ++k) out[k] = bits64(p + 64 * k, c);
}

void fixed_bits(const char* p, std::size_t words, const FixedByte* fixed, std::uint64_t* out) {
  for (std::size_t k = 0; k < words; ++k, p += 64)
    out[k] = bits64(p + fixed[0].offset, fixed[0].byte) & bits64(p + fixed[1].offset, fixed[1].byte) &
             bits64(p + fixed[2].offset, fixed[2].byte);
}

/// count_equal's count; `kWithout`: npos where p[0, n) holds `absent` (count_equal_without).
template <bool kWithout>
std::size_t count_lanes(const char* p, std::size_t n, unsigned char c, unsigned char absent) {
  std::size_t i = 0, total = 0;
  const Bytes16 wanted = splat16(c), unwanted = splat16(absent);
  while (n - i >= 16) {
    // Per lane, the bytes seen: at most 255 vectors before the lanes are summed.
    Bytes16 lanes{}, seen{};
    const std::size_t stop = i + std::min<std::size_t>((n - i) / 16, 255) * 16;
    for (; i < stop; i += 16) {
      const Bytes16 v = load16(p + i);
      lanes -= reinterpret_cast<Bytes16>(v == wanted);  // 0xFF is -1
      if constexpr (kWithout) seen |= reinterpret_cast<Bytes16>(v == unwanted);
    }
    if (kWithout && bits16(seen != splat16(0)) != 0) return static_cast<std::size_t>(-1);
    total += sum16(lanes);
  }
  for (; i < n; ++i) {
    if (kWithout && static_cast<unsigned char>(p[i]) == absent) return static_cast<std::size_t>(-1);
    total += static_cast<unsigned char>(p[i]) == c;
  }
  return total;
}

std::size_t count_equal(const char* p, std::size_t n, unsigned char c) { return count_lanes<false>(p, n, c, 0); }
std::size_t count_equal_without(const char* p, std::size_t n, unsigned char c, unsigned char absent) {
  return count_lanes<true>(p, n, c, absent);
}

/// 0xFF in each lane of `v` that any_control looks for, else 0. A C0 control is a byte whose
/// top three bits are clear (SSE2 has no unsigned byte compare).
Mask16 control_lanes(Bytes16 v) {
  const Mask16 c0 = (v & splat16(0xe0)) == splat16(0);
  return (c0 & ~((v == splat16('\t')) | (v == splat16('\n')) | (v == splat16('\r')))) | (v == splat16(0x7f));
}

bool any_control(const char* p, std::size_t words) {
  for (std::size_t at = 0; at < 64 * words; at += 64)
    if (bits16(control_lanes(load16(p + at)) | control_lanes(load16(p + at + 16)) | control_lanes(load16(p + at + 32)) |
               control_lanes(load16(p + at + 48))) != 0)
      return true;
  return false;
}

/// bytes_present's bits; `kCensus`: census's two more in the same pass.
template <bool kCensus>
std::uint32_t present_lanes(const char* p, std::size_t n, std::string_view bytes) {
  const std::uint32_t all = ((std::uint32_t{1} << bytes.size()) - 1) | (kCensus ? kNonAsciiBit | kControlBit : 0);
  std::uint32_t found = 0;
  std::size_t i = 0;
  // A block of 4 KiB at a time, each byte's lanes ORed, then told apart once.
  while (n - i >= 16 && found != all) {
    const std::size_t stop = i + std::min<std::size_t>((n - i) / 16, 256) * 16;
    Bytes16 seen[8] = {};
    Bytes16 high{}, control{};
    for (; i < stop; i += 16) {
      const Bytes16 v = load16(p + i);
      for (std::size_t k = 0; k < bytes.size(); ++k)
        seen[k] |= reinterpret_cast<Bytes16>(v == splat16(static_cast<unsigned char>(bytes[k])));
      if constexpr (kCensus) {
        high |= v;
        control |= reinterpret_cast<Bytes16>(control_lanes(v));
      }
    }
    for (std::size_t k = 0; k < bytes.size(); ++k)
      if (bits16(seen[k] != splat16(0)) != 0) found |= std::uint32_t{1} << k;
    if (kCensus && bits16((high & splat16(0x80)) != splat16(0)) != 0) found |= kNonAsciiBit;
    if (kCensus && bits16(control != splat16(0)) != 0) found |= kControlBit;
  }
  for (; i < n && found != all; ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    for (std::size_t k = 0; k < bytes.size(); ++k)
      if (p[i] == bytes[k]) found |= std::uint32_t{1} << k;
    if (kCensus && c >= 0x80) found |= kNonAsciiBit;
    if (kCensus && is_sought_control(c)) found |= kControlBit;
  }
  return found;
}

std::uint32_t bytes_present(const char* p, std::size_t n, std::string_view bytes) {
  return present_lanes<false>(p, n, bytes);
}
std::uint32_t census(const char* p, std::size_t n, std::string_view bytes) { return present_lanes<true>(p, n, bytes); }

}  // namespace portable

#ifdef CULPRIT_BYTE_BITS_AVX2
namespace avx2 {

[[gnu::target("avx2")]] inline __m256i load32(const char* p) {
  return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
}

/// 0xFF in each lane of `v` that any_control looks for, else 0.
[[gnu::target("avx2")]] inline __m256i control_lanes(__m256i v) {
  const __m256i c0 = _mm256_cmpeq_epi8(_mm256_min_epu8(v, _mm256_set1_epi8(0x1f)), v);  // v <= 0x1f
  const __m256i ends = _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\t')),
                                       _mm256_or_si256(_mm256_cmpeq_epi8(v, _mm256_set1_epi8('\n')),
                                                       _mm256_cmpeq_epi8(v, _mm256_set1_epi8('\r'))));
  return _mm256_or_si256(_mm256_andnot_si256(ends, c0), _mm256_cmpeq_epi8(v, _mm256_set1_epi8(0x7f)));
}

[[gnu::target("avx2")]] void equal_bits(const char* p, std::size_t words, unsigned char c, std::uint64_t* out) {
  const __m256i wanted = _mm256_set1_epi8(static_cast<char>(c));
  for (std::size_t k = 0; k < words; ++k, p += 64) {
    const auto low = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(load32(p), wanted)));
    const auto high = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(load32(p + 32), wanted)));
    out[k] = std::uint64_t{low} | std::uint64_t{high} << 32;
  }
}

/// fixed_bits' bits for the 32 starts at p[0, 32).
[[gnu::target("avx2")]] inline std::uint32_t fixed_bits32(const char* p, const FixedByte* fixed, __m256i b0, __m256i b1,
                                                          __m256i b2) {
  const __m256i all = _mm256_and_si256(_mm256_cmpeq_epi8(load32(p + fixed[0].offset), b0),
                                       _mm256_and_si256(_mm256_cmpeq_epi8(load32(p + fixed[1].offset), b1),
                                                        _mm256_cmpeq_epi8(load32(p + fixed[2].offset), b2)));
  return static_cast<std::uint32_t>(_mm256_movemask_epi8(all));
}

[[gnu::target("avx2")]] void fixed_bits(const char* p, std::size_t words, const FixedByte* fixed, std::uint64_t* out) {
  const __m256i b0 = _mm256_set1_epi8(static_cast<char>(fixed[0].byte));
  const __m256i b1 = _mm256_set1_epi8(static_cast<char>(fixed[1].byte));
  const __m256i b2 = _mm256_set1_epi8(static_cast<char>(fixed[2].byte));
  for (std::size_t k = 0; k < words; ++k, p += 64)
    out[k] = std::uint64_t{fixed_bits32(p, fixed, b0, b1, b2)} |
             std::uint64_t{fixed_bits32(p + 32, fixed, b0, b1, b2)} << 32;
}

/// count_equal's count; `kWithout`: npos where p[0, n) holds `absent` (count_equal_without).
template <bool kWithout>
[[gnu::target("avx2")]] std::size_t count_lanes(const char* p, std::size_t n, unsigned char c, unsigned char absent) {
  const __m256i wanted = _mm256_set1_epi8(static_cast<char>(c));
  const __m256i unwanted = _mm256_set1_epi8(static_cast<char>(absent));
  std::size_t i = 0, total = 0;
  while (n - i >= 32) {
    // Per lane, the bytes seen: at most 255 vectors before the lanes are summed (by eights).
    __m256i lanes = _mm256_setzero_si256(), seen = _mm256_setzero_si256();
    const std::size_t stop = i + std::min<std::size_t>((n - i) / 32, 255) * 32;
    for (; i < stop; i += 32) {
      const __m256i v = load32(p + i);
      lanes = _mm256_sub_epi8(lanes, _mm256_cmpeq_epi8(v, wanted));
      if constexpr (kWithout) seen = _mm256_or_si256(seen, _mm256_cmpeq_epi8(v, unwanted));
    }
    if (kWithout && !_mm256_testz_si256(seen, seen)) return static_cast<std::size_t>(-1);
    const __m256i sums = _mm256_sad_epu8(lanes, _mm256_setzero_si256());
    alignas(32) std::uint64_t four[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(four), sums);
    total += four[0] + four[1] + four[2] + four[3];
  }
  for (; i < n; ++i) {
    if (kWithout && static_cast<unsigned char>(p[i]) == absent) return static_cast<std::size_t>(-1);
    total += static_cast<unsigned char>(p[i]) == c;
  }
  return total;
}

[[gnu::target("avx2")]] std::size_t count_equal(const char* p, std::size_t n, unsigned char c) {
  return count_lanes<false>(p, n, c, 0);
}
[[gnu::target("avx2")]] std::size_t count_equal_without(const char* p, std::size_t n, unsigned char c,
                                                          unsigned char absent) {
  return count_lanes<true>(p, n, c, absent);
}

[[gnu::target("avx2")]] bool any_control(const char* p, std::size_t words) {
  for (std::size_t k = 0; k < words; ++k, p += 64) {
    const __m256i either = _mm256_or_si256(control_lanes(load32(p)), control_lanes(load32(p + 32)));
    if (!_mm256_testz_si256(either, either)) return true;
  }
  return false;
}

/// bytes_present's bits; `kCensus`: census's two more in the same pass.
template <bool kCensus>
[[gnu::target("avx2")]] std::uint32_t present_lanes(const char* p, std::size_t n, std::string_view bytes) {
  // Each byte's bit k looked up by its two nibbles (bit k set in `low`'s entry for bytes[k]'s
  // low nibble and in `high`'s for its high one): a lane's AND is bytes[k]'s bit where the lane
  // is bytes[k], and nothing where it is no byte asked — one pass, two shuffles per 32 bytes.
  // Any set of bytes that is some high nibbles by some low ones is told so: the census asks
  // two more (bits 6 and 7, past its kCensusBytes), the C0 controls but \t \n \r, as 0x0 by
  // {0-8, b, c, e, f} and 0x1 by any; DEL and a byte past ASCII take one instruction each.
  constexpr std::uint8_t kLowControls = 1u << kCensusBytes, kHighControls = 1u << (kCensusBytes + 1);
  alignas(16) std::uint8_t low[16] = {}, high[16] = {};
  for (std::size_t k = 0; k < bytes.size(); ++k) {
    const auto b = static_cast<unsigned char>(bytes[k]);
    low[b & 0x0f] |= static_cast<std::uint8_t>(1u << k);
    high[b >> 4] |= static_cast<std::uint8_t>(1u << k);
  }
  if constexpr (kCensus) {
    for (unsigned nibble = 0; nibble < 16; ++nibble) {
      if (nibble != '\t' && nibble != '\n' && nibble != '\r') low[nibble] |= kLowControls;
      low[nibble] |= kHighControls;
    }
    high[0] |= kLowControls;
    high[1] |= kHighControls;
  }
  const __m256i low_table = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(low)));
  const __m256i high_table = _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(high)));
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  const __m256i del = _mm256_set1_epi8(0x7f);
  __m256i seen = _mm256_setzero_si256(), any = _mm256_setzero_si256(), dels = _mm256_setzero_si256();
  std::size_t i = 0;
  for (; n - i >= 32; i += 32) {
    const __m256i v = load32(p + i);
    const __m256i lo = _mm256_shuffle_epi8(low_table, _mm256_and_si256(v, nibble));
    const __m256i hi = _mm256_shuffle_epi8(high_table, _mm256_and_si256(_mm256_srli_epi16(v, 4), nibble));
    seen = _mm256_or_si256(seen, _mm256_and_si256(lo, hi));
    if constexpr (kCensus) {
      any = _mm256_or_si256(any, v);  // its lanes' top bits: a byte >= 0x80 (whose lookups are 0)
      dels = _mm256_or_si256(dels, _mm256_cmpeq_epi8(v, del));
    }
  }
  alignas(32) std::uint8_t lanes[32];
  _mm256_store_si256(reinterpret_cast<__m256i*>(lanes), seen);
  std::uint32_t found = 0;
  for (const std::uint8_t lane : lanes) found |= lane;
  if constexpr (kCensus) {
    if ((found & (kLowControls | kHighControls)) != 0 || !_mm256_testz_si256(dels, dels)) found |= kControlBit;
    found &= ~std::uint32_t{kLowControls | kHighControls};
    if (_mm256_movemask_epi8(any) != 0) found |= kNonAsciiBit;
  }
  for (; i < n; ++i) {
    const auto c = static_cast<unsigned char>(p[i]);
    for (std::size_t k = 0; k < bytes.size(); ++k)
      if (p[i] == bytes[k]) found |= std::uint32_t{1} << k;
    if (kCensus && c >= 0x80) found |= kNonAsciiBit;
    if (kCensus && is_sought_control(c)) found |= kControlBit;
  }
  return found;
}

[[gnu::target("avx2")]] std::uint32_t bytes_present(const char* p, std::size_t n, std::string_view bytes) {
  return present_lanes<false>(p, n, bytes);
}
[[gnu::target("avx2")]] std::uint32_t census(const char* p, std::size_t n, std::string_view bytes) {
  return present_lanes<true>(p, n, bytes);
}

}  // namespace avx2
#endif

bool have_avx2() {
#ifdef CULPRIT_BYTE_BITS_AVX2
  return __builtin_cpu_supports("avx2") != 0;
#else
  return false;
#endif
}

constexpr ByteBitsEngine kPortable{"portable",
                                   portable::equal_bits,
                                   portable::fixed_bits,
                                   portable::count_equal,
                                   portable::count_equal_without,
                                   portable::any_control,
                                   portable::bytes_present,
                                   portable::census};
#ifdef CULPRIT_BYTE_BITS_AVX2
constexpr ByteBitsEngine kAvx2{"avx2",
                               avx2::equal_bits,
                               avx2::fixed_bits,
                               avx2::count_equal,
                               avx2::count_equal_without,
                               avx2::any_control,
                               avx2::bytes_present,
                               avx2::census};
#endif

}  // namespace

std::vector<const ByteBitsEngine*> byte_bits_engines() {
  std::vector<const ByteBitsEngine*> all{&kPortable};
#ifdef CULPRIT_BYTE_BITS_AVX2
  if (have_avx2()) all.push_back(&kAvx2);
#endif
  return all;
}

const ByteBitsEngine& byte_bits_engine() {
  static const ByteBitsEngine* const chosen = byte_bits_engines().back();  // chosen at the first call
  return *chosen;
}

void equal_bits(const char* p, std::size_t words, unsigned char c, std::uint64_t* out) {
  byte_bits_engine().equal_bits(p, words, c, out);
}
void fixed_bits(const char* p, std::size_t words, const FixedByte* fixed, std::uint64_t* out) {
  byte_bits_engine().fixed_bits(p, words, fixed, out);
}
std::size_t count_equal(const char* p, std::size_t n, unsigned char c) {
  return byte_bits_engine().count_equal(p, n, c);
}
std::size_t count_equal_without(const char* p, std::size_t n, unsigned char c, unsigned char absent) {
  return byte_bits_engine().count_equal_without(p, n, c, absent);
}
bool any_control(const char* p, std::size_t words) { return byte_bits_engine().any_control(p, words); }
std::uint32_t bytes_present(const char* p, std::size_t n, std::string_view bytes) {
  return byte_bits_engine().bytes_present(p, n, bytes);
}
std::uint32_t census(const char* p, std::size_t n, std::string_view bytes) {
  return byte_bits_engine().census(p, n, bytes);
}

}  // namespace culprit::text::detail
