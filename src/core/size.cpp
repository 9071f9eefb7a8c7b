// Size parsing for every unit spelling the inputs use. Binary multiples throughout: nvidia-smi's
// MiB, PyTorch's GiB, free -h's Gi and the kernel's kB are all powers of 1024.
#include "culprit/core/size.hpp"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cmath>

namespace culprit::core {
namespace {

std::optional<std::int64_t> unit_multiplier(std::string_view unit) {
  std::string u;
  for (char c : unit) u += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (u.empty()) return std::nullopt;
  if (u == "b" || u == "bytes" || u == "byte") return 1;
  if (u == "k" || u == "kb" || u == "kib" || u == "ki") return 1024LL;
  if (u == "m" || u == "mb" || u == "mib" || u == "mi") return 1024LL * 1024;
  if (u == "g" || u == "gb" || u == "gib" || u == "gi") return 1024LL * 1024 * 1024;
  if (u == "t" || u == "tb" || u == "tib" || u == "ti") return 1024LL * 1024 * 1024 * 1024;
  if (u == "p" || u == "pb" || u == "pib" || u == "pi") return 1024LL * 1024 * 1024 * 1024 * 1024;
  return std::nullopt;
}

}  // namespace

std::optional<std::int64_t> parse_size(std::string_view text, std::int64_t default_unit) {
  size_t i = 0;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  std::string digits;
  for (; i < text.size(); ++i) {
    char c = text[i];
    if (std::isdigit(static_cast<unsigned char>(c)) || c == '.') digits += c;
    else if (c == ',' && !digits.empty()) continue;  // thousands separators: 114,432
    else break;
  }
  if (digits.empty()) return std::nullopt;
  double value = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc()) return std::nullopt;
  while (i < text.size() && std::isspace(static_cast<unsigned char>(text[i]))) ++i;
  size_t j = i;
  while (j < text.size() && std::isalpha(static_cast<unsigned char>(text[j]))) ++j;
  std::string_view unit = text.substr(i, j - i);
  std::int64_t mult = default_unit;
  if (!unit.empty()) {
    auto m = unit_multiplier(unit);
    if (!m) return std::nullopt;
    mult = *m;
  }
  double bytes = value * static_cast<double>(mult);
  if (!std::isfinite(bytes) || bytes > 9.2e18) return std::nullopt;
  return static_cast<std::int64_t>(std::llround(bytes));
}

std::optional<std::int64_t> scale_bytes(std::int64_t count, std::int64_t unit) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(count, unit, &out)) return std::nullopt;
  return out;
}

std::string format_size(std::int64_t bytes) {
  const double b = static_cast<double>(bytes);
  const double ab = std::fabs(b);
  if (ab < 1024) return fmt::format("{} bytes", bytes);
  if (ab < 1024.0 * 1024) return fmt::format("{:.2f} KiB", b / 1024);
  if (ab < 1024.0 * 1024 * 1024) return fmt::format("{:.2f} MiB", b / (1024.0 * 1024));
  return fmt::format("{:.2f} GiB", b / (1024.0 * 1024 * 1024));
}

}  // namespace culprit::core
