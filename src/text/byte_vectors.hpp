// Sixteen bytes at a time, portably: GCC / Clang vector extensions, which the compiler lowers to
// SSE2 on x86-64 and NEON on arm64 (the baseline of Debian's builds, so no CPU check). For the
// text module's whole-block passes, where a byte loop the compiler does not vectorise costs
// several instructions per byte, and for a line check elsewhere in src/ that reads a line's head
// as bit words where a byte walk costs several instructions per byte (kernel_stamp.cpp's boot
// stamp). Not installed.
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

/// One bit per lane of `m`, lane 0 the lowest, portably: each half's lanes gathered by one
/// multiplication (lane k's bit lands on bit 56 + k).
inline unsigned gathered_bits16(Mask16 m) {
  std::uint64_t half[2];
  const Bytes16 low_bits = reinterpret_cast<Bytes16>(m) & splat16(1);
  std::memcpy(half, &low_bits, sizeof half);
  constexpr std::uint64_t kGather = 0x0102040810204080ULL;
  return static_cast<unsigned>((half[0] * kGather) >> 56) | static_cast<unsigned>((half[1] * kGather) >> 56) << 8;
}

/// The same bits: SSE2's pmovmskb on x86-64, gathered_bits16 elsewhere.
inline unsigned bits16(Mask16 m) {
#if defined(__SSE2__)
  return static_cast<unsigned>(__builtin_ia32_pmovmskb128(reinterpret_cast<char __attribute__((vector_size(16)))>(m)));
#else
  return gathered_bits16(m);
#endif
}

/// One bit per byte of p[0, 64) equal to `c`, byte 0 the lowest.
inline std::uint64_t bits64(const char* p, unsigned char c) {
  const Bytes16 v = splat16(c);
  return std::uint64_t{bits16(load16(p) == v)} | std::uint64_t{bits16(load16(p + 16) == v)} << 16 |
         std::uint64_t{bits16(load16(p + 32) == v)} << 32 | std::uint64_t{bits16(load16(p + 48) == v)} << 48;
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
