// The cross-host timeline chart: one lane per host, each placed event a dot at its UTC time
// (colour by severity), the root failure a diamond with a line through every lane, echoes
// triangles. Hovering shows the event (SVG <title>, no script). Unplaced events are counted
// below the chart: their place in time is unknown, so drawing them would mislead.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "culprit/core/time.hpp"
#include "report/chart_geometry.hpp"
#include "report/charts.hpp"
#include "report/html.hpp"
#include "culprit/core/utf8.hpp"
#include "report/wording.hpp"

namespace culprit::report::charts {
namespace {

/// The lanes' frame (width and right margin: chart_geometry.hpp): the host labels at their left,
/// the root failure's label above, the time axis and its label below.
constexpr double kLanesLeft = 170, kLanesTop = 34, kLane = 34, kLanesBottom = 44;
constexpr std::size_t kMaxLanes = 24;

/// A tick step (seconds) giving about `target` ticks over `span`.
double nice_step(double span, int target) {
  static constexpr double kSteps[] = {0.1,  0.2,  0.5,  1,     2,     5,     10,    15,     30,     60,
                                      120,  300,  600,  900,   1800,  3600,  7200,  10800,  21600,  43200,
                                      86400, 172800, 604800};
  for (double s : kSteps)
    if (span / s <= target) return s;
  return std::ceil(span / target / 86400) * 86400;
}

std::string severity_class(const std::string& severity) {
  if (severity == "critical" || severity == "error") return "ev sev-error";
  if (severity == "warning") return "ev sev-warning";
  return "ev sev-info";
}

std::string tip_of(const diagnose::TimelineEvent& e) {
  std::string tip = event_time_text(e) + "  " + (e.host.empty() ? std::string("(no host)") : e.host) + "  " +
                    e.kind;
  if (const std::string p = event_process_text(e); !p.empty()) tip += "  " + p;
  if (e.mark != "other") tip += "  [" + e.mark + "]";
  tip += "\n" + event_location(e) + "\n" + core::utf8::cut(e.summary, 300);
  return tip;
}

}  // namespace

std::string clock_label(double ts) {
  const std::string iso = core::format_iso(ts);  // 2026-04-09T00:47:13.412Z
  return iso.size() >= 19 ? iso.substr(11, 8) : iso;
}

std::string timeline(const diagnose::Verdict& v) {
  const auto& events = v.data.timeline;
  if (events.empty()) return {};
  // Lanes: the root's host first, then the others as the hosts table orders them.
  std::vector<std::string> lanes;
  auto add_lane = [&](const std::string& h) {
    if (std::find(lanes.begin(), lanes.end(), h) == lanes.end()) lanes.push_back(h);
  };
  for (const auto& e : events)
    if (e.mark == "root" && e.ts) add_lane(e.host);
  for (const auto& h : v.data.hosts)
    for (const auto& e : events)
      if (e.ts && e.host == h.host) {
        add_lane(h.host);
        break;
      }
  for (const auto& e : events)
    if (e.ts) add_lane(e.host);
  std::size_t unplaced = 0;
  double t0 = INFINITY, t1 = -INFINITY;
  for (const auto& e : events) {
    if (!e.ts || !std::isfinite(*e.ts)) {
      ++unplaced;
      continue;
    }
    t0 = std::min(t0, *e.ts);
    t1 = std::max(t1, *e.ts);
  }
  std::string out = "<figure class=\"chart\">\n";
  if (lanes.empty()) {
    out += fmt::format("<p class=\"note\">None of the {} events could be placed in time (no host's clock was "
                       "aligned), so there is no time axis; the report below lists them in order.</p>\n",
                       events.size());
    return out + "</figure>\n";
  }
  std::size_t hidden_lanes = 0;
  if (lanes.size() > kMaxLanes) {
    hidden_lanes = lanes.size() - kMaxLanes;
    lanes.resize(kMaxLanes);
  }
  if (t1 - t0 < 1) t0 -= 30, t1 += 30;
  const double pad = (t1 - t0) * 0.03;
  t0 -= pad;
  t1 += pad;
  const double plot_w = kWidth - kLanesLeft - kRight;
  const double height = kLanesTop + kLane * static_cast<double>(lanes.size()) + kLanesBottom;
  auto x_of = [&](double ts) { return kLanesLeft + (ts - t0) / (t1 - t0) * plot_w; };
  std::map<std::string, std::size_t> lane_of;
  for (std::size_t i = 0; i < lanes.size(); ++i) lane_of[lanes[i]] = i;
  auto y_of = [&](std::size_t lane) { return kLanesTop + kLane * (static_cast<double>(lane) + 0.5); };

  html::Svg svg(kWidth, height, "Timeline of events across hosts");
  // Lanes and their labels.
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    svg.rect(kLanesLeft, kLanesTop + kLane * static_cast<double>(i), plot_w, kLane, i % 2 ? "lane odd" : "lane");
    svg.text(kLanesLeft - 10, y_of(i) + 4, core::utf8::cut(lanes[i].empty() ? "(no host)" : lanes[i], 22), "lane-label", "end");
  }
  // Time axis.
  const double step = nice_step(t1 - t0, 7);
  const double axis_y = kLanesTop + kLane * static_cast<double>(lanes.size());
  svg.line(kLanesLeft, axis_y, kLanesLeft + plot_w, axis_y, "axis");
  int ticks = 0;
  for (double t = std::ceil(t0 / step) * step; t <= t1 && ticks < 40; t += step, ++ticks) {
    const double x = x_of(t);
    svg.line(x, kLanesTop, x, axis_y + 4, "grid");
    std::string label = clock_label(t);
    if (step >= 60 && label.size() > 5) label.resize(5);
    if (step >= 86400) label = core::format_iso(t).substr(5, 5);
    svg.text(x, axis_y + 18, label, "tick", "middle");
  }
  const std::string day0 = core::format_iso(t0 + pad).substr(0, 10);
  const std::string day1 = core::format_iso(t1 - pad).substr(0, 10);
  svg.text(kLanesLeft + plot_w, axis_y + 36, day0 == day1 ? "UTC, " + day0 : "UTC, " + day0 + " to " + day1, "axis-label",
           "end");

  // Ordinary events first, then echoes, then the root on top.
  for (int pass = 0; pass < 3; ++pass) {
    for (const auto& e : events) {
      if (!e.ts || !std::isfinite(*e.ts)) continue;
      const auto it = lane_of.find(e.host);
      if (it == lane_of.end()) continue;
      const int want = e.mark == "root" ? 2 : e.mark == "echo" ? 1 : 0;
      if (want != pass) continue;
      const double x = x_of(*e.ts), y = y_of(it->second);
      if (pass == 0) {
        svg.circle(x, y, 4, severity_class(e.severity), tip_of(e));
      } else if (pass == 1) {
        svg.polygon({x, y - 8, x + 7, y + 6, x - 7, y + 6}, "ev echo", tip_of(e));
      } else {
        svg.line(x, kLanesTop - 6, x, axis_y, "rootline");
        svg.polygon({x, y - 11, x + 9, y, x, y + 11, x - 9, y}, "ev root", tip_of(e));
        const bool right_half = x > kLanesLeft + plot_w * 0.6;
        svg.text(right_half ? x - 6 : x + 6, kLanesTop - 10, "root failure: " + e.kind + " on " + e.host, "root-label",
                 right_half ? "end" : "start");
      }
    }
  }
  out += svg.finish();
  out += "\n<figcaption><span class=\"key root\">&#9670;</span> root failure "
         "<span class=\"key echo\">&#9650;</span> echo (a consequence) "
         "<span class=\"key sev-error\">&#9679;</span> error "
         "<span class=\"key sev-warning\">&#9679;</span> warning "
         "<span class=\"key sev-info\">&#9679;</span> other event. Hover a mark for its line.</figcaption>\n";
  std::vector<std::string> notes;
  if (unplaced > 0)
    notes.push_back(fmt::format("{} event{} could not be placed in time (the host's clock was not aligned) and "
                                "{} not drawn.",
                                unplaced, unplaced == 1 ? "" : "s", unplaced == 1 ? "is" : "are"));
  for (const auto& e : events)
    if (e.mark == "root" && !e.ts)
      notes.push_back("The root failure (" + e.kind + ", " + event_location(e) + ", " + event_time_text(e) +
                      ") is among them: its host's clock could not be placed on UTC.");
  if (hidden_lanes > 0) notes.push_back(fmt::format("{} more hosts are not drawn.", hidden_lanes));
  if (v.data.timeline_total > static_cast<std::int64_t>(events.size()))
    notes.push_back(fmt::format("Showing the {} events nearest the failure of {}.", events.size(),
                                v.data.timeline_total));
  for (const auto& n : notes) out += "<p class=\"note\">" + html::escape_line(n) + "</p>\n";
  // Clock alignment of the hosts drawn: how far their times can be compared.
  std::string clocks;
  for (const auto& h : v.data.hosts) {
    if (lane_of.find(h.host) == lane_of.end()) continue;
    clocks += "<li><strong>" + html::escape_line(h.host.empty() ? "(no host)" : h.host) + "</strong>: " +
              html::escape_line(clock_text(h)) + "</li>";
  }
  if (!clocks.empty()) out += "<ul class=\"clocks\">" + clocks + "</ul>\n";
  return out + "</figure>\n";
}

}  // namespace culprit::report::charts
