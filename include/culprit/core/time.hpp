// Civil time <-> UTC seconds, without the C library's time zone state (thread-safe, testable).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace culprit::core {

/// Seconds since the epoch for a UTC civil time (proleptic Gregorian).
double civil_to_epoch(int year, int month, int day, int hour, int minute, double second);

/// `Jan`..`Dec` (case-insensitive, English) to 1..12.
std::optional<int> parse_month(std::string_view name);

/// ISO 8601 UTC with milliseconds: `2026-04-09T00:47:13.000Z`.
std::string format_iso(double epoch_seconds);

}  // namespace culprit::core
