// Sixteen bytes at a time, portably: GCC / Clang vector extensions, which the compiler lowers to
// SSE2 on x86-64 and NEON on arm64 (the baseline of Debian's builds, so no CPU check). For the
// text module's whole-block passes, where a byte loop the compiler does not vectorise costs
// several instructions per byte. Private to the text module.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

namespace culprit::text::detail {

using Bytes16 = unsigned char __attribute__((vector_size(16)));
/// What comparing two Bytes16 gives: 0xFF in each lane where it holds, else 0.
using Mask16 = decltype(std::declval<Bytes16>() == std::declval<Bytes16>());

inline Bytes16 load16(const char* p) {
  Bytes16 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

/// Every lane `c`.
inline Bytes16 splat16(unsigned char c) { return Bytes16{} + c; }

/// Whether any lane of `m` is set.
inline bool any16(Mask16 m) {
  std::uint64_t half[2];
  std::memcpy(half, &m, sizeof half);
  return (half[0] | half[1]) != 0;
}

/// Calls f(lane) for each set lane of `m`, lowest first; stops where f returns true, and says
/// whether one did.
template <class F>
[[gnu::always_inline]] inline bool any_lane(Mask16 m, F f) {
  std::uint64_t half[2];
  const Bytes16 low_bits = reinterpret_cast<Bytes16>(m) & splat16(1);  // one bit per set lane
  std::memcpy(half, &low_bits, sizeof half);
  for (unsigned h = 0; h < 2; ++h)
    for (std::uint64_t word = half[h]; word != 0; word &= word - 1)
      if (f(8 * h + static_cast<unsigned>(__builtin_ctzll(word)) / 8)) return true;
  return false;
}

/// The sum of the lanes of `v` (each 0-255).
inline unsigned sum16(Bytes16 v) {
  std::uint64_t half[2];
  std::memcpy(half, &v, sizeof half);
  constexpr std::uint64_t kPairs = 0x00ff00ff00ff00ffULL;
  std::uint64_t sum = (half[0] & kPairs) + ((half[0] >> 8) & kPairs) + (half[1] & kPairs) + ((half[1] >> 8) & kPairs);
  return static_cast<unsigned>((sum * 0x0001000100010001ULL) >> 48);  // four 16-bit lanes, each <= 1020
}

}  // namespace culprit::text::detail
