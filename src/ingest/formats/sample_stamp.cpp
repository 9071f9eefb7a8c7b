// See sample_stamp.hpp. Strict by design: the line must be the stamp and nothing else, so a log
// line that starts with a stamp never passes for one.
#include "ingest/formats/sample_stamp.hpp"

#include "culprit/core/time.hpp"
#include "culprit/text/lines.hpp"

namespace culprit::ingest::sample_stamp {
namespace {

std::optional<int> digits(std::string_view s, std::size_t at, std::size_t n) {
  if (at + n > s.size()) return std::nullopt;
  int v = 0;
  for (std::size_t k = at; k < at + n; ++k) {
    if (s[k] < '0' || s[k] > '9') return std::nullopt;
    v = v * 10 + (s[k] - '0');
  }
  return v;
}

}  // namespace

std::optional<double> parse(std::string_view line) {
  const std::string_view t = text::trim(line);
  // YYYY-MM-DDTHH:MM:SS
  if (t.size() < 20 || t[4] != '-' || t[7] != '-' || t[10] != 'T' || t[13] != ':' || t[16] != ':') return std::nullopt;
  const auto year = digits(t, 0, 4), month = digits(t, 5, 2), day = digits(t, 8, 2);
  const auto hour = digits(t, 11, 2), minute = digits(t, 14, 2), second = digits(t, 17, 2);
  if (!year || !month || !day || !hour || !minute || !second) return std::nullopt;
  if (*month < 1 || *month > 12 || *day < 1 || *day > 31 || *hour > 23 || *minute > 59 || *second > 60)
    return std::nullopt;
  std::size_t i = 19;
  double fraction = 0;
  if (i < t.size() && (t[i] == '.' || t[i] == ',')) {
    double scale = 0.1;
    std::size_t j = i + 1;
    for (; j < t.size() && t[j] >= '0' && t[j] <= '9'; ++j, scale /= 10) fraction += (t[j] - '0') * scale;
    if (j == i + 1) return std::nullopt;
    i = j;
  }
  double offset = 0;
  if (i + 1 == t.size() && t[i] == 'Z') {
    offset = 0;
  } else if (i + 6 == t.size() && (t[i] == '+' || t[i] == '-') && t[i + 3] == ':') {
    const auto oh = digits(t, i + 1, 2), om = digits(t, i + 4, 2);
    if (!oh || !om || *oh > 14 || *om > 59) return std::nullopt;
    offset = (t[i] == '+' ? 1 : -1) * (*oh * 3600.0 + *om * 60.0);
  } else {
    return std::nullopt;
  }
  return core::civil_to_epoch(*year, *month, *day, *hour, *minute, *second + fraction) - offset;
}

bool Last::take(std::string_view text_line, std::int64_t seg) {
  const auto t = parse(text_line);
  if (!t) return false;
  ts = t;
  text = std::string(text::trim(text_line));
  line = seg;
  return true;
}

}  // namespace culprit::ingest::sample_stamp
