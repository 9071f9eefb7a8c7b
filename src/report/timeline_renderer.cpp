// The terminal timeline: fixed columns sized to the data (capped), so a screen of events reads
// as a table; the message takes the rest of the width and is cut, never wrapped. Log text is
// cleaned of terminal escapes before it is printed.
#include "culprit/report/timeline.hpp"

#include <fmt/color.h>
#include <fmt/format.h>

#include <algorithm>
#include <set>

#include "culprit/core/time.hpp"
#include "culprit/core/utf8.hpp"
#include "report/wording.hpp"

namespace culprit::report {
namespace {

constexpr int kMinTableWidth = 60;
constexpr int kMaxHost = 14, kMaxKind = 18, kMaxProc = 12, kMaxSource = 30, kMinMessage = 30;

std::string pad(const std::string& s, int cols) {
  return s + std::string(static_cast<std::size_t>(std::max(0, cols - core::utf8::columns(s))), ' ');
}


std::string proc_text(const diagnose::TimelineEvent& e) {
  std::string out = e.pid ? std::to_string(*e.pid) : std::string();
  if (e.rank) out += (out.empty() ? "r" : "/r") + std::to_string(*e.rank);
  return out.empty() ? "-" : out;
}

}  // namespace

std::string render_timeline(const std::vector<diagnose::TimelineEvent>& events,
                            const std::vector<diagnose::HostClock>& hosts, std::int64_t total,
                            const TimelineOptions& options) {
  const int width = options.width <= 0 ? 0 : std::max(kMinTableWidth, options.width);
  auto paint = [&](const std::string& text, fmt::text_style style) {
    return options.color && !text.empty() ? fmt::format(style, "{}", text) : text;
  };
  auto fit = [&](const std::string& s, int cols) { return width == 0 ? s : core::utf8::cut(s, cols); };

  // Time column: one day -> `00:47:13.412` (the date goes in the header), else the full stamp.
  std::set<std::string> days;
  double first = 0, last = 0;
  bool any_ts = false;
  for (const auto& e : events) {
    if (!e.ts) continue;
    const std::string iso = core::format_iso(*e.ts);
    days.insert(iso.substr(0, 10));
    if (!any_ts || *e.ts < first) first = *e.ts;
    if (!any_ts || *e.ts > last) last = *e.ts;
    any_ts = true;
  }
  const bool one_day = days.size() <= 1;
  auto time_of = [&](const diagnose::TimelineEvent& e) -> std::string {
    if (!e.ts) return event_time_text(e);
    std::string iso = core::format_iso(*e.ts);  // 2026-04-09T00:47:13.412Z
    if (iso.size() < 23) return iso;
    return one_day ? iso.substr(11, 12) : iso.substr(0, 10) + " " + iso.substr(11, 12);
  };

  std::set<std::string> shown_hosts;
  for (const auto& e : events) shown_hosts.insert(e.host);
  std::string out;
  auto line = [&](const std::string& s) { out += s + "\n"; };

  // Header.
  std::string head = fmt::format("Timeline: {} event{}", events.size(), events.size() == 1 ? "" : "s");
  if (total > static_cast<std::int64_t>(events.size())) head += fmt::format(" of {}", total);
  head += fmt::format(" on {} host{}", shown_hosts.size(), shown_hosts.size() == 1 ? "" : "s");
  if (any_ts) {
    const std::string a = core::format_iso(first), b = core::format_iso(last);
    head += one_day ? fmt::format(", {} {} to {} UTC", a.substr(0, 10), a.substr(11, 8), b.substr(11, 8))
                    : fmt::format(", {} {} to {} {} UTC", a.substr(0, 10), a.substr(11, 8), b.substr(0, 10),
                                  b.substr(11, 8));
  }
  line(paint(fit(head, width), fmt::emphasis::bold));
  int host_cols = 4;
  for (const auto& h : hosts) host_cols = std::max(host_cols, core::utf8::columns(core::utf8::one_line(h.host)));
  host_cols = std::min(host_cols, kMaxHost + 6);
  for (const auto& h : hosts) {
    if (!shown_hosts.count(h.host) && !shown_hosts.empty()) continue;
    std::string clock = "clock: " + clock_text(h);
    if (h.offset && *h.offset != 0) clock += fmt::format(", offset {:+.1f}s", *h.offset);
    if (h.unified_memory) clock += ", unified memory";
    const std::string name = h.host.empty() ? std::string("(no host)") : core::utf8::one_line(h.host);
    line("  " + paint(pad(core::utf8::cut(name, host_cols), host_cols), fmt::fg(fmt::terminal_color::cyan)) + "  " +
         fit(clock, width - host_cols - 4));
  }
  bool marks = false;
  for (const auto& e : events) marks |= e.mark != "other";
  if (marks) line(fit("  > root failure   ~ echo (a consequence of the root)", width));
  if (events.empty()) {
    line("  (no events match)");
    return out;
  }
  line("");

  // Column widths from the data, capped.
  int c_time = 0, c_host = 0, c_kind = 0, c_proc = 0, c_src = 0;
  int c_file = 0;  // the widest `file:line` without its folders: what a cut location keeps first
  for (const auto& e : events) {
    const std::string where = core::utf8::one_line(event_location(e));
    const std::size_t slash = where.rfind('/');
    c_file = std::max(c_file, core::utf8::columns(slash == std::string::npos ? where : where.substr(slash + 1)) + 1);
    c_time = std::max(c_time, core::utf8::columns(time_of(e)));
    c_host = std::max(c_host, core::utf8::columns(core::utf8::one_line(e.host)));
    c_kind = std::max(c_kind, core::utf8::columns(core::utf8::one_line(e.kind)));
    c_proc = std::max(c_proc, core::utf8::columns(proc_text(e)));
    c_src = std::max(c_src, core::utf8::columns(core::utf8::one_line(event_location(e))));
  }
  c_time = std::min(c_time, 24);
  c_host = std::min(std::max(c_host, 1), kMaxHost);
  c_kind = std::min(c_kind, kMaxKind);
  c_proc = std::min(c_proc, kMaxProc);
  c_src = std::min(c_src, kMaxSource);
  int c_msg = 0;
  if (width > 0) {
    // mark(2) + 5 separators of two spaces.
    c_msg = width - (2 + c_time + c_host + c_kind + c_proc + c_src + 10);
    // Too narrow: the location gives way first (its folders, keeping `file:line`), then host,
    // process and kind down to what most values need; then all of them down to a few columns.
    // The time never does.
    auto shrink = [&](int& col, int floor) {
      while (c_msg < kMinMessage && col > floor) --col, ++c_msg;
    };
    shrink(c_src, std::max(12, std::min(c_file, 24)));
    shrink(c_host, 8);
    shrink(c_proc, 8);
    shrink(c_kind, 14);
    shrink(c_src, 6);
    shrink(c_host, 6);
    shrink(c_proc, 5);
    shrink(c_kind, 8);
    c_msg = std::max(c_msg, 1);
  }
  for (const auto& e : events) {
    const char* mark = e.mark == "root" ? "> " : e.mark == "echo" ? "~ " : "  ";
    const std::string host = e.host.empty() ? std::string("-") : core::utf8::one_line(e.host);
    std::string msg = core::utf8::one_line(e.summary);
    if (c_msg > 0) msg = core::utf8::cut(msg, c_msg);
    auto kind_style = e.severity == "error" || e.severity == "critical" ? fmt::fg(fmt::terminal_color::red)
                      : e.severity == "warning"                          ? fmt::fg(fmt::terminal_color::yellow)
                                                                         : fmt::text_style();
    std::string row = mark;
    row += paint(pad(core::utf8::cut(time_of(e), c_time), c_time), fmt::emphasis::faint) + "  ";
    row += paint(pad(core::utf8::cut(host, c_host), c_host), fmt::fg(fmt::terminal_color::cyan)) + "  ";
    row += paint(pad(core::utf8::cut(core::utf8::one_line(e.kind), c_kind), c_kind), kind_style) + "  ";
    row += pad(core::utf8::cut(proc_text(e), c_proc), c_proc) + "  ";
    row += pad(core::utf8::cut_left(core::utf8::one_line(event_location(e)), c_src), c_src) + "  ";
    row += msg;
    while (!row.empty() && row.back() == ' ') row.pop_back();
    if (e.mark == "root") row = paint(row.substr(0, 2), fmt::fg(fmt::terminal_color::red) | fmt::emphasis::bold) + row.substr(2);
    else if (e.mark == "echo") row = paint(row.substr(0, 2), fmt::fg(fmt::terminal_color::yellow)) + row.substr(2);
    line(row);
  }
  if (total > static_cast<std::int64_t>(events.size()))
    line(fit(fmt::format("… {} more events not shown (use --around, --host, --kind or --limit 0)",
                         total - static_cast<std::int64_t>(events.size())),
             width));
  return out;
}

}  // namespace culprit::report
