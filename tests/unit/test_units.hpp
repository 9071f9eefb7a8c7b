// Byte units the unit tests write sizes in: KiB, MiB, GiB, and a size given in MiB or GiB.
#pragma once

#include <cstdint>

namespace culprit::test {

inline constexpr std::int64_t kKiB = 1024;
inline constexpr std::int64_t kMiB = 1024 * kKiB;
inline constexpr std::int64_t kGiB = 1024 * kMiB;

/// `v` GiB in bytes, the fraction of a byte cut off.
inline std::int64_t gib(double v) { return static_cast<std::int64_t>(v * static_cast<double>(kGiB)); }

/// `v` MiB in bytes, the fraction of a byte cut off.
inline std::int64_t mib(double v) { return static_cast<std::int64_t>(v * static_cast<double>(kMiB)); }

}  // namespace culprit::test
