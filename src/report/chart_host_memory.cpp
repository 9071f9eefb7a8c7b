// Host and cgroup memory over time (charts.hpp): per series a line of the memory in use at
// each timed reading — the host's MemTotal − MemAvailable, the cgroup's memory.current — under
// its total or limit, with the failure marked where it falls. The figure carries its readings
// as data (`data-readings`: [UTC seconds, used bytes, total bytes or null], oldest first), so
// tests and scripts read the chart without parsing the SVG.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "report/chart_geometry.hpp"
#include "report/charts.hpp"
#include "report/html.hpp"
#include "report/wording.hpp"

namespace culprit::report::charts {
namespace {

/// The plot's height (the frame around it: chart_geometry.hpp).
constexpr double kHostPlot = 200;
constexpr std::size_t kMaxFigures = 16;

std::string readings_data(const diagnose::MemorySeries& s) {
  std::string out = "[";
  for (const auto& r : s.readings) {
    if (out.size() > 1) out += ",";
    out += fmt::format("[{:.6f},{},{}]", r.ts, r.used ? std::to_string(*r.used) : "null",
                       r.total ? std::to_string(*r.total) : "null");
  }
  return out + "]";
}

std::string caption_of(const diagnose::MemorySeries& s) {
  const std::string host = s.host.empty() ? "(no host)" : s.host;
  if (s.kind == "host") return host + " · host memory (/proc/meminfo)";
  std::string out = host + " · cgroup " + s.cgroup;
  const auto& last = s.readings.back();
  if (last.total) out += " · limit " + size_text(*last.total);
  else if (s.unlimited) out += " · no limit (max)";
  return out;
}

std::string tip_of(const diagnose::MemorySeries& s, const diagnose::MemoryReading& r) {
  const bool host = s.kind == "host";
  std::string out = iso_time(r.ts) + ": " + (host ? "used " : "usage ") + size_text(r.used);
  if (r.total) out += (host ? " of " : " of the limit ") + size_text(*r.total);
  if (r.available) out += ", available " + size_text(*r.available);
  return out + " (" + r.source + ":" + std::to_string(r.line) + ")";
}

std::string draw(const diagnose::MemorySeries& s, std::optional<double> failure_ts) {
  const bool host = s.kind == "host";
  const std::string cls = host ? "host" : "cgroup";
  double t0 = s.readings.front().ts, t1 = s.readings.back().ts;
  const bool mark_failure = failure_ts && *failure_ts >= t0 - 60 && *failure_ts <= t1 + 60;
  if (mark_failure) t0 = std::min(t0, *failure_ts), t1 = std::max(t1, *failure_ts);
  if (t1 - t0 < 1) t0 -= 0.5, t1 += 0.5;
  std::int64_t ymax = 1;
  for (const auto& r : s.readings) ymax = std::max({ymax, r.used.value_or(0), r.total.value_or(0)});
  std::int64_t step = kMiB;
  while (ymax / step > 5 && step < (std::int64_t{1} << 60)) step *= 2;
  const double top = static_cast<double>(ymax) * 1.06;
  const double right = kWidth - kRight, plot_w = right - kLeft;
  auto x_of = [&](double ts) { return kLeft + (ts - t0) / (t1 - t0) * plot_w; };
  auto y_of = [&](std::int64_t b) { return kTop + kHostPlot - static_cast<double>(b) / top * kHostPlot; };

  html::Svg svg(kWidth, kTop + kHostPlot + kBottom, (host ? "Host memory over time: " : "Cgroup memory over time: ") + caption_of(s));
  for (std::int64_t v = 0; static_cast<double>(v) <= top; v += step) {
    svg.line(kLeft, y_of(v), right, y_of(v), v == 0 ? "axis" : "grid");
    svg.text(kLeft - 8, y_of(v) + 4, axis_size(v), "tick", "end");
  }
  constexpr int kTicks = 6;
  std::string last_label;
  for (int k = 0; k <= kTicks; ++k) {
    const double ts = t0 + (t1 - t0) * k / kTicks;
    std::string label = clock_label(ts);
    if (label == last_label) continue;  // a run of a few seconds: one label per second
    svg.text(x_of(ts), kTop + kHostPlot + 18, label, "tick", k == 0 ? "start" : k == kTicks ? "end" : "middle");
    last_label = std::move(label);
  }
  svg.text(kLeft + plot_w / 2, kTop + kHostPlot + 38, "time (UTC)", "axis-label", "middle");
  // The total (or limit) as it was at each reading, then the memory in use.
  const diagnose::MemoryReading* prev = nullptr;
  for (const auto& r : s.readings) {
    if (prev && prev->total && r.total)
      svg.line(x_of(prev->ts), y_of(*prev->total), x_of(r.ts), y_of(*r.total), "total-line");
    if (prev && prev->used && r.used) svg.line(x_of(prev->ts), y_of(*prev->used), x_of(r.ts), y_of(*r.used), "mem-line " + cls);
    prev = &r;
  }
  if (const auto& first = s.readings.front(); first.total)
    svg.text(kLeft + 4, y_of(*first.total) - 5, (host ? "total " : "limit ") + size_text(*first.total), "total-label");
  for (const auto& r : s.readings)
    if (r.used) svg.circle(x_of(r.ts), y_of(*r.used), s.readings.size() > 60 ? 2 : 3.5, "point " + cls, tip_of(s, r));
  if (mark_failure) {
    svg.line(x_of(*failure_ts), kTop - 4, x_of(*failure_ts), kTop + kHostPlot, "separator");
    svg.text(x_of(*failure_ts), kTop - 8, "failure", "tick failure", "middle");
  }
  return svg.finish();
}

}  // namespace

std::string host_memory(const diagnose::Verdict& v) {
  std::string out;
  std::size_t drawn = 0;
  const std::optional<double> failure_ts = v.root ? v.root->ts : std::nullopt;
  for (const auto& s : v.data.memory) {
    if (s.readings.empty()) continue;
    if (drawn == kMaxFigures) {
      out += "<p class=\"note\">More memory series are not drawn.</p>\n";
      break;
    }
    const bool host = s.kind == "host";
    const bool same_host = v.root && v.root->host == s.host;
    out += fmt::format("<figure class=\"chart memory-series\" data-kind=\"{}\" data-host=\"{}\" data-readings=\"{}\">\n",
                       host ? "host" : "cgroup", html::escape_line(s.host), html::escape_line(readings_data(s)));
    out += "<figcaption class=\"title\">" + html::escape_line(caption_of(s)) + "</figcaption>\n";
    out += draw(s, same_host ? failure_ts : std::nullopt);
    const bool any_total =
        std::any_of(s.readings.begin(), s.readings.end(), [](const diagnose::MemoryReading& r) { return r.total.has_value(); });
    out += fmt::format("\n<ul class=\"legend\"><li><span class=\"swatch mem-{}\"></span>{}</li>", host ? "host" : "cgroup",
                       host ? "in use: MemTotal − MemAvailable (kernels before 3.14: − MemFree − Buffers − Cached)" : "usage: memory.current (v1 memory.usage_in_bytes)");
    if (any_total)
      out += fmt::format("<li><span class=\"swatch total\"></span>{}</li>",
                         host ? "MemTotal" : "limit: memory.max (v1 memory.limit_in_bytes)");
    out += "</ul>\n";
    out += "<p class=\"note\">" +
           html::escape_line(fmt::format("{} reading{} from {} to {}.", s.readings.size(), s.readings.size() == 1 ? "" : "s",
                                         iso_time(s.readings.front().ts), iso_time(s.readings.back().ts))) +
           "</p>\n</figure>\n";
    ++drawn;
  }
  return out;
}

}  // namespace culprit::report::charts
