// Memory pictures: per GPU, one stacked bar per snapshot (processes coloured by role: job,
// foreign, role unknown; then memory no process accounts for, then free), plus an "at the
// failure" bar from the ledger with the failed request drawn beside the free memory; and per
// kernel OOM report, the task table's largest processes by rss with the victim and hog marked.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <functional>
#include <cmath>
#include <map>
#include <set>

#include "report/chart_geometry.hpp"
#include "report/charts.hpp"
#include "report/html.hpp"
#include "culprit/core/utf8.hpp"
#include "report/wording.hpp"

namespace culprit::report::charts {
namespace {

/// The plot's height (the frame around it: chart_geometry.hpp).
constexpr double kPlot = 260;
constexpr double kPanel = 230;
constexpr double kMinSegment = 3;  // pixels: a process holding memory is never invisible
constexpr double kLedger = 400;    // the "at the failure" bar and its labels
constexpr double kCalloutGap = 14;
constexpr double kSegmentLabelHeight = 10;  // a segment label's 11 px text above its baseline
constexpr std::size_t kMaxCallouts = 9;
constexpr int kCalloutColumns = 36;  // the request panel at the right of the failure's chart
constexpr std::size_t kMaxGpus = 16;
/// A GPU is idle in every snapshot when none lists a process holding memory and at most this
/// share of it is in use (a driver's and a persistence daemon's few hundred MiB).
constexpr double kIdleShare = 0.02;

struct Segment {
  std::string cls;    // CSS classes: `seg job s0`, `seg rest`, `seg free`, …
  std::string label;  // short text drawn inside when there is room
  std::string tip;
  std::int64_t bytes = 0;
  bool dark_text = false;
  std::string role;   // job | foreign | role unknown, for a process's segment
};

struct Bar {
  std::string label;
  std::vector<Segment> segments;
  std::optional<std::int64_t> total;
  std::optional<std::int64_t> requested;
  std::optional<std::int64_t> free;  // the failure bar: free memory per the ledger
  std::optional<double> ts;
  std::int64_t request_base = 0;  // where the request starts: the top of the used memory
  bool failure = false;
};

int role_rank(std::string_view role) { return role == "job" ? 0 : role == "foreign" ? 1 : 2; }

std::string role_class(std::string_view role) {
  if (role == "job" || role == "foreign") return std::string(role);
  return "unknown";
}

/// Consistent shades: the same process keeps its colour in every bar of a chart.
class Shades {
 public:
  /// A holder without a pid (page cache, slab) is told apart by its name.
  std::string cls(std::string_view role, std::int64_t pid, const std::string& name) {
    const std::string r = role_class(role);
    auto [it, added] = index_.try_emplace({r, pid, pid > 0 ? std::string() : name}, next_[r]);
    if (added) next_[r] = (next_[r] + 1) % 3;
    return fmt::format("seg {} s{}", r, it->second);
  }

 private:
  std::map<std::tuple<std::string, std::int64_t, std::string>, int> index_;
  std::map<std::string, int> next_;
};

/// A legend entry per process (largest reading), plus the kinds of memory that appear.
struct Legend {
  struct Proc {
    std::string role, term, name, cls;  // term: the ledger's word for it where the ledger has it
    std::int64_t pid = 0, bytes = 0;
  };
  // By role and pid; holders without a pid (page cache, "19 other processes") by their name too.
  std::map<std::tuple<std::string, std::int64_t, std::string>, Proc> procs;
  std::set<std::string> kinds;  // rest, free, unreported, request, shortfall

  /// `term` is the ledger's word for a holder of the failure's bar; a snapshot's process passes
  /// none and is named by its role unless the ledger names it.
  void add(const std::string& role, std::int64_t pid, const std::string& name, const std::string& cls,
           std::int64_t bytes, const std::string& term = {}) {
    auto& p = procs[{role_class(role), pid, pid > 0 ? std::string() : name}];
    p.role = role_class(role);
    if (!term.empty()) p.term = term;
    if (p.term.empty()) p.term = role_text(p.role);
    p.pid = pid;
    if (p.name.empty()) p.name = name;
    p.cls = cls;
    p.bytes = std::max(p.bytes, bytes);
  }

  std::string html_text() const {
    std::vector<const Proc*> list;
    for (const auto& [k, p] : procs) list.push_back(&p);
    std::sort(list.begin(), list.end(), [](const Proc* a, const Proc* b) {
      if (role_rank(a->role) != role_rank(b->role)) return role_rank(a->role) < role_rank(b->role);
      return a->bytes > b->bytes;
    });
    std::string out = "<ul class=\"legend\">";
    for (const auto* p : list) {
      std::string who = p->pid > 0 ? fmt::format("pid {} {}", p->pid, p->name) : p->name;
      out += "<li><span class=\"swatch " + p->cls + "\"></span>" + html::escape_line(p->term) + ": " +
             html::escape_line(who) + " &middot; up to " + html::escape_line(size_text(p->bytes)) + "</li>";
    }
    static const std::pair<const char*, const char*> kKinds[] = {
        {"rest", "held but not by any listed process (unexplained)"},
        {"unreported", "not reported by nvidia-smi (unified memory)"},
        {"free", "free"},
        {"request", "the failed request, drawn from the top of the used memory"},
        {"shortfall", "what the request lacked (shortfall)"},
    };
    for (const auto& [k, text] : kKinds)
      if (kinds.count(k)) out += fmt::format("<li><span class=\"swatch seg {}\"></span>{}</li>", k, text);
    return out + "</ul>\n";
  }
};

/// The longest word a ledger label starts with (`host processes: pid 12 …`).
constexpr std::size_t kTermMax = 16;

/// The ledger's word for a holder, the start of its label (`unattributed: pid 3094 Xorg` ->
/// `unattributed`, `kernel: page cache` -> `kernel`): the chart names a holder as the ledger's
/// table and sum do; a label without one gives the role's words.
std::string ledger_term(const std::string& label, std::string_view role) {
  if (auto c = label.find(": "); c != std::string::npos && c > 0 && c < kTermMax) return label.substr(0, c);
  return role_text(role);
}

/// The process name in a ledger label (`foreign: pid 48211 VLLM::EngineCore` -> the name),
/// else the label without its `term: ` prefix.
std::string holder_name(const std::string& label) {
  if (auto p = label.find("pid "); p != std::string::npos) {
    std::size_t i = p + 4;
    while (i < label.size() && label[i] >= '0' && label[i] <= '9') ++i;
    if (i < label.size() && label[i] == ' ' && i + 1 < label.size()) {
      std::string name = label.substr(i + 1);
      if (name.size() > 2 && name.front() == '(' && name.back() == ')') name = name.substr(1, name.size() - 2);
      return name;
    }
  }
  if (auto c = label.find(": "); c != std::string::npos && c < kTermMax) return label.substr(c + 2);
  return label;
}

/// A snapshot made from the figures the failure's own error message quoted: its parser makes it
/// at the error's own source and line, and the "at the failure" bar shows the same instant from
/// the ledger, so drawing both would repeat it. That line only: an nvidia-smi table printed a
/// few lines after the failure is a snapshot of its own (issue 37, finding 14: the failed GPU's
/// reading a minute later, a foreign process still on it, was dropped as "quoted").
bool quoted_by_failure(const diagnose::Verdict& v, const diagnose::GpuSample& sample) {
  std::string source;
  std::int64_t line = 0;
  for (const auto& e : v.data.timeline)
    if (e.mark == "root") source = e.source, line = e.line;
  // (Not any evidence line: the root's evidence cites the very table that must be drawn.)
  if (source.empty() && v.root && !v.root->evidence.empty())
    source = v.root->evidence.front().source, line = v.root->evidence.front().line;
  return !source.empty() && sample.source == source && sample.line == line;
}

bool gpu_domain(const diagnose::Budget& b) { return b.domain == "gpu" || b.domain == "unified"; }

bool budget_matches(const diagnose::Budget& b, const diagnose::GpuSeries& s, std::size_t gpus_on_host) {
  // A host or cgroup ledger is not drawn over a GPU's snapshots.
  if (!gpu_domain(b) || b.host != s.host) return false;
  if (b.gpu) return *b.gpu == s.gpu;
  return gpus_on_host == 1;
}

Bar sample_bar(const diagnose::GpuSeries& series, const diagnose::GpuSample& sample, Shades& shades, Legend& legend) {
  Bar bar;
  bar.label = sample.ts ? clock_label(*sample.ts) : fmt::format("line {}", sample.line);
  bar.ts = sample.ts;
  std::optional<std::int64_t> capacity = sample.total;
  if (!capacity && series.unified) capacity = series.pool_total;
  bar.total = capacity;
  std::vector<const diagnose::GpuProcessMemory*> procs;
  for (const auto& p : sample.processes)
    if (p.bytes && *p.bytes > 0) procs.push_back(&p);
  std::stable_sort(procs.begin(), procs.end(), [](const auto* a, const auto* b) {
    if (role_rank(a->role) != role_rank(b->role)) return role_rank(a->role) < role_rank(b->role);
    return *a->bytes > *b->bytes;
  });
  const std::string when = sample.ts ? iso_time(sample.ts) : fmt::format("{}:{}", sample.source, sample.line);
  std::int64_t sum = 0;
  for (const auto* p : procs) {
    Segment s;
    s.cls = shades.cls(p->role, p->pid, p->name);
    s.bytes = *p->bytes;
    s.label = p->name;
    s.tip = fmt::format("{}: pid {} {} ({}) holds {}", when, p->pid, p->name, role_text(p->role), size_text(*p->bytes));
    legend.add(p->role, p->pid, p->name, s.cls, *p->bytes);
    sum += *p->bytes;
    bar.segments.push_back(std::move(s));
  }
  if (sample.used) {
    if (*sample.used > sum) {
      const std::int64_t rest = *sample.used - sum;
      bar.segments.push_back({"seg rest", "unexplained",
                              fmt::format("{}: {} used but not by a listed process", when, size_text(rest)), rest, true, ""});
      legend.kinds.insert("rest");
    }
    if (capacity && *capacity > std::max(*sample.used, sum)) {
      const std::int64_t free = *capacity - std::max(*sample.used, sum);
      bar.segments.push_back({"seg free", "free", fmt::format("{}: {} free", when, size_text(free)), free, true, ""});
      legend.kinds.insert("free");
    }
  } else if (capacity && *capacity > sum) {
    const std::int64_t unknown = *capacity - sum;
    bar.segments.push_back({"seg unreported", "not reported",
                            fmt::format("{}: {} of the {} pool not reported by the GPU (unified memory)", when,
                                        size_text(unknown), size_text(*capacity)),
                            unknown, true, ""});
    legend.kinds.insert("unreported");
  }
  return bar;
}

Bar failure_bar(const diagnose::Verdict& v, const diagnose::Budget& b, Shades& shades, Legend& legend) {
  Bar bar;
  bar.failure = true;
  bar.ts = v.root ? v.root->ts : std::nullopt;
  bar.label = bar.ts ? "failure " + clock_label(*bar.ts) : std::string("at the failure");
  bar.total = b.total;
  const auto rows = ledger_rows(b);
  std::int64_t used = 0;
  std::optional<std::int64_t> free;
  for (int pass = 0; pass < 3; ++pass) {
    for (const auto& r : rows) {
      if (!r.share || !r.bytes || *r.bytes <= 0) continue;
      const bool is_free = r.role == "free", is_rest = r.role == "rest";
      const int want = is_free ? 2 : is_rest ? 1 : 0;
      if (want != pass) continue;
      Segment s;
      s.bytes = *r.bytes;
      if (is_free) {
        s.cls = "seg free";
        s.label = "free";
        s.dark_text = true;
        free = *r.bytes;
        legend.kinds.insert("free");
      } else if (is_rest) {
        s.cls = "seg rest";
        s.label = "unexplained";
        s.dark_text = true;
        legend.kinds.insert("rest");
      } else {
        const std::string name = holder_name(r.label);
        s.cls = shades.cls(r.role, r.pid.value_or(0), name);
        s.role = ledger_term(r.label, r.role);
        s.label = name;
        legend.add(r.role, r.pid.value_or(0), name, s.cls, *r.bytes, s.role);
      }
      s.tip = fmt::format("at the failure: {} — {}", r.label, size_text(*r.bytes));
      if (!is_free) used += *r.bytes;
      bar.segments.push_back(std::move(s));
    }
  }
  bar.requested = b.requested;
  bar.free = free ? free : b.free;
  bar.request_base = b.total && free ? *b.total - *free : used;
  if (b.requested) legend.kinds.insert("request");
  if (b.requested && b.total && bar.request_base + *b.requested > *b.total) legend.kinds.insert("shortfall");
  return bar;
}

std::string series_caption(const diagnose::GpuSeries* s, const diagnose::Budget* b) {
  // Host and GPU come from the series, else from the budget; a caption needs one of them.
  std::string host;
  std::optional<int> gpu;
  if (s) {
    host = s->host;
    gpu = s->gpu;
  } else if (b) {
    host = b->host;
    gpu = b->gpu;
  } else {
    return {};
  }
  std::vector<std::string> parts;
  parts.push_back(host.empty() ? "(no host)" : host);
  if (gpu) parts.push_back(fmt::format("GPU {}", *gpu));
  if (s && !s->model.empty()) parts.push_back(s->model);
  const bool unified = (s && s->unified) || (b && b->unified);
  if (unified) {
    // The ledger's total where there is one: the text report's number (a `free -h` snapshot
    // rounds the pool to 119Gi where CUDA said 119.70 GiB).
    std::optional<std::int64_t> pool = b ? b->total : std::nullopt;
    if (!pool && s) pool = s->pool_total;
    parts.push_back(pool ? "unified memory: the GPU uses the host's " + size_text(*pool)
                         : std::string("unified memory: the GPU uses host memory"));
  }
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : " · ") + p;
  return out;
}

std::string failure_sentence(const diagnose::Budget& b) {
  if (!b.requested) return {};
  std::string out = "At the failure the job asked for " + size_text(*b.requested);
  if (b.free) out += " with " + size_text(*b.free) + " free";
  if (b.shortfall && *b.shortfall > 0) out += ": short by " + size_text(*b.shortfall);
  out += ".";
  if (b.foreign && *b.foreign > 0) out += " Foreign processes held " + size_text(*b.foreign) + ".";
  if (b.job && *b.job > 0) out += " The job held " + size_text(*b.job) + ".";
  return out;
}

/// The failed request against the free memory, at a scale where both are visible (a request
/// of 2 GiB on a 120 GiB GPU is a sliver in the main chart).
void draw_request_panel(html::Svg& svg, const Bar& b) {
  const double x0 = kWidth - kRight - kPanel + 30, base = kTop + kPlot;
  const std::int64_t req = *b.requested;
  const std::int64_t free = b.free.value_or(0);
  const double scale_max = static_cast<double>(std::max(req, free)) * 1.08;
  auto h_of = [&](std::int64_t bytes) { return static_cast<double>(bytes) / scale_max * (kPlot - 40); };
  svg.text(x0 - 20, kTop + 4, "the failed request", "panel-title");
  svg.line(x0 - 20, base, kWidth - kRight, base, "axis");
  constexpr double kBar = 54;
  const double fx = x0, rx = x0 + kBar + 44;
  if (b.free) {
    svg.rect(fx, base - h_of(free), kBar, h_of(free), "seg free", "free at the failure: " + size_text(free));
    svg.text(fx + kBar / 2, base - h_of(free) - 6, size_text(free), "value", "middle");
  } else {
    svg.text(fx + kBar / 2, base - 6, "unknown", "value", "middle");
  }
  svg.text(fx + kBar / 2, base + 16, "free", "tick", "middle");
  const std::int64_t fits = b.free ? std::min(req, free) : req;
  svg.rect(rx, base - h_of(fits), kBar, h_of(fits), "seg request", "requested: " + size_text(req));
  if (b.free && req > free) {
    svg.rect(rx, base - h_of(req), kBar, h_of(req) - h_of(free), "seg shortfall",
             "shortfall: " + size_text(req - free));
    svg.line(fx, base - h_of(free), rx + kBar, base - h_of(free), "free-level");
    svg.text(rx + kBar / 2, base - h_of(req) - 20, "short by", "shortfall-label", "middle");
    svg.text(rx + kBar / 2, base - h_of(req) - 6, size_text(req - free), "shortfall-label", "middle");
  } else {
    svg.text(rx + kBar / 2, base - h_of(req) - 6, size_text(req), "value", "middle");
  }
  svg.text(rx + kBar / 2, base + 16, "requested", "tick failure", "middle");
}

/// Draws one bar's segments (bottom up); returns the (y_bottom, y_top) pixel span of each. A
/// segment's label is drawn inside it when it fits, and never above `ceiling` (the total line,
/// whose label stands just above it: a small segment's lift pushes the top ones past it).
std::vector<std::pair<double, double>> draw_segments(html::Svg& svg, const Bar& b, double x, double bar_w,
                                                     const std::function<double(double)>& y_of,
                                                     std::optional<double> ceiling = std::nullopt) {
  std::vector<std::pair<double, double>> spans;
  double base = 0;
  double lift = 0;  // pixels added so that small holders stay visible
  for (const auto& s : b.segments) {
    const double y1 = y_of(base) - lift;
    double y2 = y_of(base + static_cast<double>(s.bytes)) - lift;
    if (s.bytes > 0 && !s.dark_text && y1 - y2 < kMinSegment) {
      lift += kMinSegment - (y1 - y2);
      y2 = y1 - kMinSegment;
    }
    svg.rect(x, y2, bar_w, y1 - y2, s.cls, s.tip);
    const double baseline = (y1 + y2) / 2 + 4;
    if (y1 - y2 >= 15 && bar_w >= 46 && (!ceiling || baseline - kSegmentLabelHeight >= *ceiling)) {
      const int cols = static_cast<int>(bar_w / 6.6);
      svg.text(x + bar_w / 2, baseline, core::utf8::cut(s.label, cols),
               s.dark_text ? "seg-label dark" : "seg-label", "middle");
    }
    spans.emplace_back(y1, y2);
    base += static_cast<double>(s.bytes);
  }
  return spans;
}

/// Snapshots in time order with the ledger at the failure (a label per holder) standing where
/// the failure falls among them — chronological left to right — then the request panel.
std::string draw_chart(const std::vector<Bar>& samples, const Bar* failure, std::optional<double> failure_ts,
                       std::string_view label) {
  const bool request = failure && failure->requested && *failure->requested > 0;
  const double right = kWidth - kRight - (request ? kPanel : 0);
  const double ledger_w = failure ? kLedger : 0;
  const double plot_w = right - kLeft - ledger_w;  // the snapshots' area
  std::int64_t ymax = 1;
  std::optional<std::int64_t> common_total;
  bool totals_agree = true;
  auto scan = [&](const Bar& b) {
    std::int64_t top = 0;
    for (const auto& s : b.segments) top += s.bytes;
    ymax = std::max(ymax, top);
    if (b.total) {
      ymax = std::max(ymax, *b.total);
      if (common_total && *common_total != *b.total) totals_agree = false;
      common_total = b.total;
    }
    if (b.requested && *b.requested > 0) ymax = std::max(ymax, b.request_base + *b.requested);
  };
  for (const auto& b : samples) scan(b);
  if (failure) scan(*failure);
  // Power-of-two steps from 1 MiB, at most 6 ticks.
  std::int64_t step = kMiB;
  while (ymax / step > 6 && step < (std::int64_t{1} << 60)) step *= 2;
  const double top_value = static_cast<double>(ymax) * 1.06;
  const double height = kTop + kPlot + kBottom;
  const std::function<double(double)> y_of = [&](double bytes) { return kTop + kPlot - bytes / top_value * kPlot; };

  html::Svg svg(kWidth, height, label);
  for (std::int64_t v = 0; static_cast<double>(v) <= top_value; v += step) {
    const double y = y_of(static_cast<double>(v));
    svg.line(kLeft, y, right, y, v == 0 ? "axis" : "grid");
    svg.text(kLeft - 8, y + 4, axis_size(v), "tick", "end");
  }
  const bool one_total = common_total && totals_agree;
  if (one_total) {
    const double y = y_of(static_cast<double>(*common_total));
    svg.line(kLeft, y, right, y, "total-line");
    svg.text(kLeft + 4, y - 5, "total " + size_text(*common_total), "total-label");
  }
  auto bar_total = [&](const Bar& b, double x, double w, bool label_it) {
    if (!b.total || one_total) return;
    const double y = y_of(static_cast<double>(*b.total));
    svg.line(x - 4, y, x + w + 4, y, "total-line");
    if (label_it) svg.text(x - 4, y - 5, "total " + size_text(*b.total), "total-label");
  };

  // Snapshots in time order, the ledger block standing where the failure falls among them: the
  // snapshots taken up to the failure left of it, the later ones right of it.
  std::size_t before = samples.size();
  if (failure && failure_ts) {
    before = 0;
    while (before < samples.size() && samples[before].ts && *samples[before].ts <= *failure_ts) ++before;
  }
  const double ledger_x = kLeft + plot_w * (samples.empty() ? 1.0 : static_cast<double>(before) /
                                                                        static_cast<double>(samples.size()));
  if (!samples.empty()) {
    const double slot = plot_w / static_cast<double>(samples.size());
    const double bar_w = std::clamp(slot * 0.62, 2.0, 84.0);
    const std::size_t label_every = static_cast<std::size_t>(std::max(1.0, std::ceil(70.0 / slot)));
    for (std::size_t i = 0; i < samples.size(); ++i) {
      const Bar& b = samples[i];
      const double cx = kLeft + slot * (static_cast<double>(i) + 0.5) + (i >= before ? ledger_w : 0);
      bar_total(b, cx - bar_w / 2, bar_w, i == 0 || i == before || samples[i - 1].total != b.total);
      draw_segments(svg, b, cx - bar_w / 2, bar_w, y_of,
                    b.total ? std::optional<double>(y_of(static_cast<double>(*b.total))) : std::nullopt);
      if (i % label_every == 0) svg.text(cx, kTop + kPlot + 18, b.label, "tick", "middle");
    }
    const std::string axis = samples.size() > 1 ? "snapshots in time order (UTC)" : "snapshot";
    if (before > 0 && before < samples.size())  // one caption under each side of the ledger
      for (const auto& [from, to] : {std::pair{kLeft, ledger_x}, std::pair{ledger_x + ledger_w, right}})
        svg.text((from + to) / 2, kTop + kPlot + 38, axis, "axis-label", "middle");
    else
      svg.text(before == 0 && failure ? (ledger_x + ledger_w + right) / 2 : (kLeft + ledger_x) / 2,
               kTop + kPlot + 38, axis, "axis-label", "middle");
  }

  // The ledger at the failure: the bar, the request beside it, a label per holder, between
  // dividers where snapshots stand beside it.
  if (failure) {
    const Bar& b = *failure;
    constexpr double kBarW = 64;
    const double x = ledger_x + 40;
    if (before > 0) svg.line(ledger_x, kTop, ledger_x, kTop + kPlot, "divider");
    if (before < samples.size()) svg.line(ledger_x + ledger_w, kTop, ledger_x + ledger_w, kTop + kPlot, "divider");
    // The total's label stands in the column of labels, above the free memory's (issue 37,
    // finding 27: drawn over the bar, it crossed the top labels).
    bar_total(b, x, kBarW, false);
    const std::optional<double> total_y =
        b.total ? std::optional<double>(y_of(static_cast<double>(*b.total))) : std::nullopt;
    const auto spans = draw_segments(svg, b, x, kBarW, y_of, total_y);
    if (request) {
      // The request standing on the used memory, left of the bar: what sticks out above the
      // total is the shortfall.
      const double rx = x - 18, rw = 12;
      const double from = static_cast<double>(b.request_base);
      const double to = from + static_cast<double>(*b.requested);
      const double cap = b.total ? static_cast<double>(*b.total) : to;
      const double fit = std::min(to, std::max(from, cap));
      svg.rect(rx, y_of(fit), rw, y_of(from) - y_of(fit), "seg request", "the failed request: " + size_text(*b.requested));
      if (to > fit)
        svg.rect(rx, y_of(to), rw, y_of(fit) - y_of(to), "seg shortfall",
                 "shortfall: " + size_text(static_cast<std::int64_t>(to - fit)));
    }
    // Labels: the largest holders (at most kMaxCallouts), spread so they never overlap.
    std::vector<std::size_t> shown;
    for (std::size_t i = 0; i < b.segments.size(); ++i)
      if (b.segments[i].bytes > 0) shown.push_back(i);
    if (shown.size() > kMaxCallouts) {
      std::stable_sort(shown.begin(), shown.end(),
                       [&](std::size_t a, std::size_t c) { return b.segments[a].bytes > b.segments[c].bytes; });
      shown.resize(kMaxCallouts);
      std::sort(shown.begin(), shown.end());
    }
    const bool total_callout = total_y && !one_total;
    std::vector<double> ys;
    for (std::size_t k = 0; k < shown.size() + (total_callout ? 1 : 0); ++k) {
      double y = k < shown.size() ? (spans[shown[k]].first + spans[shown[k]].second) / 2 : *total_y;
      if (k > 0) y = std::min(y, ys.back() - kCalloutGap);
      ys.push_back(y);
    }
    for (std::size_t k = ys.size(); k-- > 0;) {  // keep the top label inside the chart
      const double floor_y = k + 1 < ys.size() ? ys[k + 1] + kCalloutGap : kTop + 4;
      ys[k] = std::max(ys[k], floor_y);
    }
    const double lx = x + kBarW + 26;
    for (std::size_t k = 0; k < shown.size(); ++k) {
      const Segment& s = b.segments[shown[k]];
      const auto [y1, y2] = spans[shown[k]];
      svg.line(x + kBarW + 2, (y1 + y2) / 2, lx - 4, ys[k], "leader");
      // The size always shows; a long name gives way.
      const std::string prefix = s.role.empty() ? std::string() : s.role + ": ";
      const std::string size = " " + size_text(s.bytes);
      const int room = kCalloutColumns - core::utf8::columns(prefix) - core::utf8::columns(size);
      const std::string text = prefix + core::utf8::cut(s.label, std::max(room, 6)) + size;
      svg.text(lx, ys[k] + 4, text, "callout " + s.cls.substr(4), "start");
    }
    if (total_callout) {
      svg.line(x + kBarW + 2, *total_y, lx - 4, ys.back(), "leader");
      svg.text(lx, ys.back() + 4, "total " + size_text(*b.total), "callout total-label", "start");
    }
    svg.text(x + kBarW / 2, kTop + kPlot + 18, b.label, "tick failure", "middle");
    svg.text(x + kBarW / 2, kTop + kPlot + 38, "ledger at the failure", "axis-label", "middle");
  }
  if (request) draw_request_panel(svg, *failure);
  return svg.finish();
}

/// No process holds memory on the GPU in any snapshot and (almost) nothing is in use.
bool idle(const diagnose::GpuSeries& s) {
  if (s.samples.empty()) return false;
  for (const auto& sample : s.samples) {
    for (const auto& p : sample.processes)
      if (p.bytes && *p.bytes > 0) return false;
    if (!sample.used || !sample.total || *sample.total <= 0) return false;
    if (static_cast<double>(*sample.used) > kIdleShare * static_cast<double>(*sample.total)) return false;
  }
  return true;
}

/// Issue 37, finding 27: idle GPUs (an 8-GPU node's 7 untouched ones) get a row each in one
/// compact table — host, GPU, model, the most in use against the total, the snapshots' times —
/// instead of a full chart of empty bars each.
std::string idle_rows(const std::vector<const diagnose::GpuSeries*>& idle_gpus) {
  if (idle_gpus.empty()) return {};
  std::string out =
      "<figure class=\"chart idle\">\n<figcaption class=\"title\">Idle GPUs: no process held memory in any "
      "snapshot</figcaption>\n<table class=\"idle\"><tr><th>Host</th><th>GPU</th><th>Model</th><th>In use (most)</th>"
      "<th>Snapshots</th></tr>\n";
  for (const auto* s : idle_gpus) {
    std::int64_t used = 0, total = 0;
    for (const auto& sample : s->samples) {
      used = std::max(used, sample.used.value_or(0));
      total = std::max(total, sample.total.value_or(0));
    }
    const auto& first = s->samples.front();
    const auto& last = s->samples.back();
    auto label = [](const diagnose::GpuSample& x) {
      return x.ts ? clock_label(*x.ts) : fmt::format("line {}", x.line);
    };
    const std::string when = s->samples.size() == 1 ? label(first)
                                                    : fmt::format("{} ({} to {})", s->samples.size(), label(first), label(last));
    const double share = total > 0 ? static_cast<double>(used) / static_cast<double>(total) : 0;
    out += "<tr><td>" + html::escape_line(s->host.empty() ? std::string("(no host)") : s->host) + "</td><td>" +
           std::to_string(s->gpu) + "</td><td>" + html::escape_line(s->model) + "</td><td>" +
           fmt::format("<span class=\"meter\" title=\"{:.1f}%\"><span class=\"seg rest\" style=\"width:{:.1f}%\">"
                       "</span></span> ",
                       share * 100, std::max(share * 100, 0.5)) +
           html::escape_line(size_text(used) + " of " + size_text(total)) + "</td><td>" + html::escape_line(when) +
           "</td></tr>\n";
  }
  return out + "</table>\n</figure>\n";
}

}  // namespace

std::string memory_label(const diagnose::Budget* b) {
  if (!b || gpu_domain(*b)) return "GPU memory";
  return b->domain == "cgroup" ? "Memory cgroup" : "Host memory";
}

std::string gpu_memory(const diagnose::Verdict& v) {
  const auto& series = v.data.gpus;
  const diagnose::Budget* budget = v.budget ? &*v.budget : nullptr;
  std::map<std::string, std::size_t> gpus_on_host;
  for (const auto& s : series) ++gpus_on_host[s.host];
  // The budget's GPU first.
  std::vector<const diagnose::GpuSeries*> order;
  const diagnose::GpuSeries* budget_series = nullptr;
  for (const auto& s : series)
    if (budget && !budget_series && budget_matches(*budget, s, gpus_on_host[s.host])) budget_series = &s;
  if (budget_series) order.push_back(budget_series);
  for (const auto& s : series)
    if (&s != budget_series) order.push_back(&s);
  const bool budget_alone = budget && !budget_series && (budget->total || budget->requested);

  std::string out;
  std::size_t drawn = 0;
  auto figure = [&](const diagnose::GpuSeries* s, const diagnose::Budget* b) {
    Shades shades;
    Legend legend;
    std::vector<Bar> bars;
    if (s)
      for (const auto& sample : s->samples)
        if (!(b && quoted_by_failure(v, sample))) bars.push_back(sample_bar(*s, sample, shades, legend));
    std::optional<Bar> fail;
    if (b) fail = failure_bar(v, *b, shades, legend);
    bool any = fail && (!fail->segments.empty() || fail->requested);
    for (const auto& bar : bars) any |= !bar.segments.empty();
    if (!any) return;
    const std::string caption = series_caption(s, b);
    out += "<figure class=\"chart\">\n<figcaption class=\"title\">" + html::escape_line(caption) + "</figcaption>\n";
    out += draw_chart(bars, fail ? &*fail : nullptr, fail ? fail->ts : std::nullopt, memory_label(b) + ": " + caption);
    out += "\n" + legend.html_text();
    if (b)
      if (const std::string sentence = failure_sentence(*b); !sentence.empty())
        out += "<p class=\"note\">" + html::escape_line(sentence) + "</p>\n";
    out += "</figure>\n";
    ++drawn;
  };
  if (budget_alone) figure(nullptr, budget);
  std::vector<const diagnose::GpuSeries*> idle_gpus;
  std::size_t charted = 0;  // series that want a chart
  for (const auto* s : order) {
    if (s != budget_series && idle(*s)) {
      idle_gpus.push_back(s);
      continue;
    }
    ++charted;
    if (drawn >= kMaxGpus) continue;
    figure(s, s == budget_series ? budget : nullptr);
  }
  if (charted + (budget_alone ? 1 : 0) > drawn && drawn >= kMaxGpus)
    out += fmt::format("<p class=\"note\">{} more GPUs are not drawn.</p>\n", charted + (budget_alone ? 1 : 0) - drawn);
  out += idle_rows(idle_gpus);
  return out;
}

std::string oom_tasks(const diagnose::Verdict& v) {
  std::string out;
  constexpr double kLabel = 330, kBarLeft = 340, kBarRight = 660, kRow = 26, kHead = 10;
  for (const auto& t : v.data.ooms) {
    if (t.tasks.empty()) continue;
    std::int64_t max_rss = 1;
    for (const auto& task : t.tasks) max_rss = std::max(max_rss, task.rss);
    const double height = kHead + kRow * static_cast<double>(t.tasks.size()) + 10;
    std::string caption = (t.host.empty() ? std::string("(no host)") : t.host) + " · " +
                          (t.memcg ? "cgroup OOM" : "kernel OOM");
    if (t.ts) caption += " at " + iso_time(t.ts);
    if (!t.constraint.empty()) caption += " · " + t.constraint;
    if (t.memcg && t.memcg_limit) caption += " · limit " + size_text(*t.memcg_limit);
    if (t.trigger_pid)
      caption += fmt::format(" · triggered by pid {}{}", *t.trigger_pid, t.trigger_comm.empty() ? "" : " " + t.trigger_comm);
    html::Svg svg(kWidth, height, "Kernel OOM task table by rss: " + caption);
    for (std::size_t i = 0; i < t.tasks.size(); ++i) {
      const auto& task = t.tasks[i];
      const double y = kHead + kRow * static_cast<double>(i);
      const double w = (kBarRight - kBarLeft) * static_cast<double>(task.rss) / static_cast<double>(max_rss);
      std::string cls = "seg " + role_class(task.role) + " s0";
      if (task.victim) cls += " victim";
      if (task.hog) cls += " hog";
      std::string who = fmt::format("pid {} {}", task.pid, task.name);
      if (task.role != "unknown") who += " (" + task.role + ")";
      svg.text(kLabel, y + 17, core::utf8::cut(who, 46), task.victim || task.hog ? "row-label strong" : "row-label", "end");
      std::string tip = who + ": rss " + size_text(task.rss);
      if (task.oom_score_adj) tip += fmt::format(", oom_score_adj {}", *task.oom_score_adj);
      svg.rect(kBarLeft, y + 4, std::max(1.0, w), kRow - 8, cls, tip);
      std::string value = size_text(task.rss);
      if (t.total_rss > 0)
        value += fmt::format(" ({:.0f}%)", 100.0 * static_cast<double>(task.rss) / static_cast<double>(t.total_rss));
      std::string mark;
      if (task.victim && task.hog) mark = "victim (killed) and hog (largest rss)";
      else if (task.victim) mark = "victim (killed)";
      else if (task.hog) mark = "hog (largest rss)";
      const double vx = kBarLeft + std::max(1.0, w) + 8;
      svg.text(vx, y + 17, value + (mark.empty() ? "" : "  ◀ " + mark), mark.empty() ? "value" : "value mark", "start");
    }
    out += "<figure class=\"chart\">\n<figcaption class=\"title\">" + html::escape_line(caption) + "</figcaption>\n";
    out += svg.finish();
    std::set<std::string> roles;
    for (const auto& task : t.tasks) roles.insert(role_class(task.role));
    out += "\n<ul class=\"legend\">";
    for (const char* r : {"job", "foreign", "unknown"})
      if (roles.count(r))
        out += fmt::format("<li><span class=\"swatch seg {} s0\"></span>{}</li>", r, role_text(r));
    out += "<li><span class=\"swatch outlined\"></span>thick outline: the victim</li></ul>";
    out += "\n<p class=\"note\">" +
           html::escape_line(fmt::format("The {} largest of the {} tasks in the kernel's table, by resident memory "
                                         "(rss{}). The victim is the task the kernel killed; the hog held the most.",
                                         t.tasks.size(), t.task_count,
                                         t.total_rss > 0 ? "; " + size_text(t.total_rss) + " in all" : "")) +
           "</p>\n</figure>\n";
  }
  return out;
}

}  // namespace culprit::report::charts
