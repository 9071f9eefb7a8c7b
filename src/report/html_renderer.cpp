// The HTML incident report: one self-contained file (inline CSS, inline SVG drawn here, no
// script, no external resource, so it opens offline and can be attached to a ticket). The
// verdict first, then the pictures (timeline across hosts, GPU memory, OOM task table), then
// the Markdown report's text as HTML. Every piece of log text is escaped.
#include <fmt/format.h>

#include <string>

#include "report/charts.hpp"
#include "report/html.hpp"
#include "report/markdown_html.hpp"
#include "report/renderers.hpp"
#include "report/wording.hpp"

namespace culprit::report {
namespace {

constexpr const char* kStyle = R"css(
:root { color-scheme: light; --ink: #1a202c; --muted: #5a6473; --line: #d5dbe3; --bg: #ffffff; --panel: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--ink);
  font: 15px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", "DejaVu Sans", sans-serif; }
main { max-width: 1120px; margin: 0 auto; padding: 24px 20px 48px; }
header.verdict { border-left: 6px solid #718096; background: var(--panel); padding: 14px 20px; border-radius: 6px; }
header.verdict.oom { border-left-color: #c53030; }
header.verdict.not-oom { border-left-color: #d69e2e; }
.kicker { margin: 0; color: var(--muted); font-size: 13px; letter-spacing: .04em; text-transform: uppercase; }
h1 { font-size: 24px; line-height: 1.3; margin: 4px 0 8px; overflow-wrap: anywhere; }
h2 { font-size: 19px; margin: 30px 0 10px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
h3 { font-size: 16px; margin: 20px 0 8px; }
.badge { display: inline-block; padding: 1px 9px; border-radius: 10px; font-size: 13px; margin-right: 6px;
  background: #e2e8f0; }
.badge.conf-high { background: #c6f6d5; } .badge.conf-medium { background: #fefcbf; } .badge.conf-low { background: #e2e8f0; }
.summary { margin: 8px 0 0; }
figure.chart { margin: 12px 0 22px; }
figure.chart svg { display: block; max-width: 100%; height: auto; }
figcaption { color: var(--muted); font-size: 13px; margin: 4px 0; }
figcaption.title { color: var(--ink); font-weight: 600; font-size: 14px; }
.note { color: var(--muted); font-size: 13px; margin: 4px 0; }
ul.legend, ul.clocks { list-style: none; padding: 0; margin: 6px 0; font-size: 13px; display: flex; flex-wrap: wrap; gap: 4px 18px; }
.swatch { display: inline-block; width: 12px; height: 12px; margin-right: 6px; vertical-align: -1px; border-radius: 2px; }
svg text { font-family: inherit; font-size: 12px; fill: var(--ink); }
svg .tick { fill: var(--muted); font-size: 11px; }
svg .tick.failure { fill: #9b2c2c; font-weight: 600; }
svg .axis-label { fill: var(--muted); font-size: 11px; }
svg .axis { stroke: #8a94a3; stroke-width: 1; }
svg .grid { stroke: #e6eaf0; stroke-width: 1; }
svg .separator { stroke: #9b2c2c; stroke-width: 1; stroke-dasharray: 4 3; }
svg .lane { fill: #fbfcfd; } svg .lane.odd { fill: #f2f5f8; }
svg .lane-label { font-weight: 600; }
svg .rootline { stroke: #9b2c2c; stroke-width: 1.5; stroke-dasharray: 5 3; }
svg .root-label { fill: #9b2c2c; font-weight: 600; }
svg .ev { stroke: #ffffff; stroke-width: 1; }
.sev-error, svg .sev-error { fill: #e53e3e; color: #e53e3e; }
.sev-warning, svg .sev-warning { fill: #dd9b2b; color: #dd9b2b; }
.sev-info, svg .sev-info { fill: #8795a8; color: #8795a8; }
svg .ev.echo { fill: #dd6b20; stroke: #7b341e; }
svg .ev.root { fill: #c53030; stroke: #1a202c; stroke-width: 1.5; }
.key { font-size: 14px; } .key.root { color: #c53030; } .key.echo { color: #dd6b20; }
.seg { stroke: #ffffff; stroke-width: 1; }
.seg.job.s0 { fill: #2f6fd6; background: #2f6fd6; } .seg.job.s1 { fill: #5b93ea; background: #5b93ea; } .seg.job.s2 { fill: #1f4fa3; background: #1f4fa3; }
.seg.foreign.s0 { fill: #d33a3a; background: #d33a3a; } .seg.foreign.s1 { fill: #ec6f5f; background: #ec6f5f; } .seg.foreign.s2 { fill: #a82727; background: #a82727; }
.seg.unknown.s0 { fill: #d69e2e; background: #d69e2e; } .seg.unknown.s1 { fill: #ecc45b; background: #ecc45b; } .seg.unknown.s2 { fill: #a8741a; background: #a8741a; }
.seg.rest { fill: #a9b4c2; background: #a9b4c2; }
.seg.free { fill: #e8f5ec; background: #e8f5ec; stroke: #5f9d70; }
.seg.unreported { fill: #f7f8fa; background: #f7f8fa; stroke: #a9b4c2; stroke-dasharray: 3 3; }
.seg.request { fill: rgba(26, 32, 44, .10); background: rgba(26, 32, 44, .10); stroke: #1a202c; stroke-width: 1.5; stroke-dasharray: 4 2; }
.seg.shortfall { fill: #c53030; background: #c53030; stroke: #1a202c; stroke-width: 1.5; }
svg .seg.victim { stroke: #1a202c; stroke-width: 3; }
svg .seg.hog { stroke: #1a202c; stroke-width: 1.5; }
svg .seg-label { fill: #ffffff; font-size: 11px; } svg .seg-label.dark { fill: var(--ink); }
svg .total-line { stroke: #1a202c; stroke-width: 1; stroke-dasharray: 6 4; }
svg .total-label, svg .request-label { font-size: 11px; }
svg .panel-title { font-weight: 600; }
svg .divider { stroke: #c3cad4; stroke-width: 1; }
svg .leader { stroke: #8a94a3; stroke-width: 1; }
svg .callout { font-size: 12px; } svg .callout.job { fill: #1f4fa3; } svg .callout.foreign { fill: #a82727; font-weight: 600; }
svg .callout.unknown { fill: #8a5d12; } svg .callout.free { fill: #3d7a50; }
svg .mem-line { stroke-width: 2; fill: none; } svg .mem-line.host { stroke: #2f6fd6; } svg .mem-line.cgroup { stroke: #805ad5; }
svg .point.host { fill: #2f6fd6; } svg .point.cgroup { fill: #805ad5; }
.swatch.mem-host { background: #2f6fd6; } .swatch.mem-cgroup { background: #805ad5; }
.swatch.total { border-top: 2px dashed #1a202c; border-radius: 0; height: 0; }
svg .free-level { stroke: #5f9d70; stroke-width: 1; stroke-dasharray: 3 3; }
.swatch.outlined { border: 3px solid #1a202c; background: #ffffff; }
svg .shortfall-label { fill: #c53030; font-size: 11px; font-weight: 600; }
svg .row-label.strong, svg .value.mark { font-weight: 600; }
table.idle { border-collapse: collapse; font-size: 13px; margin: 4px 0; }
table.idle th, table.idle td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; }
table.idle th { background: var(--panel); }
.meter { display: inline-block; width: 60px; height: 9px; background: #e8f5ec; border: 1px solid #5f9d70; }
.meter .seg { display: block; height: 100%; }
section.report table { border-collapse: collapse; margin: 8px 0 14px; font-size: 13px; display: block; overflow-x: auto; }
section.report th, section.report td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
section.report th { background: var(--panel); }
section.report td.num, section.report th.num { text-align: right; }
section.report td { overflow-wrap: break-word; }
section.report td:first-child, section.report td.nw { white-space: nowrap; }
code { font: 12.5px/1.4 ui-monospace, "SFMono-Regular", "DejaVu Sans Mono", Menlo, Consolas, monospace;
  background: #f1f3f6; padding: 0 3px; border-radius: 3px; }
pre { background: #f6f8fa; border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px;
  white-space: pre-wrap; overflow-wrap: anywhere; }
pre code { background: none; padding: 0; white-space: pre-wrap; overflow-wrap: anywhere; }
/* Code wraps, never scrolls: an evidence line or a worked sum is read whole in a screenshot or a
   printout (a horizontal scrollbar hid the end of each line). */
footer { margin-top: 36px; color: var(--muted); font-size: 12px; border-top: 1px solid var(--line); padding-top: 8px; }
@media print { main { max-width: none; } }
)css";

std::string verdict_class(const std::string& id) {
  if (is_oom_verdict(id)) return "verdict oom";
  if (id == diagnose::verdict::kNotOom) return "verdict not-oom";
  return "verdict";
}


}  // namespace

std::string render_html(const diagnose::Verdict& v) {
  const Headline h = headline(v);
  const std::string title = headline_body(h);
  const std::string id = v.verdict.empty() ? std::string(diagnose::verdict::kUnknown) : v.verdict;
  std::string out;
  out += "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"generator\" content=\"culprit\">\n";
  out += "<title>" + html::escape_line("culprit: " + title) + "</title>\n";
  out += std::string("<style>") + kStyle + "</style>\n</head>\n<body>\n";
  out += "<main id=\"culprit-report\" data-verdict=\"" + html::escape_line(id) + "\" data-confidence=\"" +
         html::escape_line(diagnose::to_string(v.confidence)) + "\">\n";

  out += "<header class=\"" + verdict_class(id) + "\">\n<p class=\"kicker\">culprit incident report</p>\n";
  out += "<h1 id=\"verdict\">" + html::escape_line(title) + "</h1>\n";
  out += "<p><span class=\"badge conf-" + html::escape_line(h.confidence) + "\">" +
         html::escape_line(h.confidence + " confidence") + "</span><span class=\"badge\"><code>" +
         html::escape_line(id) + "</code></span></p>\n";
  if (!v.summary.empty()) out += "<p class=\"summary\">" + html::escape_line(v.summary) + "</p>\n";
  out += "</header>\n";

  if (const std::string t = charts::timeline(v); !t.empty())
    out += "<section id=\"timeline\">\n<h2>Timeline across hosts</h2>\n" + t + "</section>\n";
  if (const std::string g = charts::gpu_memory(v); !g.empty())
    // Titled by the budget's domain: a kernel / cgroup OOM's chart is its host / cgroup ledger.
    out += "<section id=\"gpu-memory\">\n<h2>" + charts::memory_label(v.budget ? &*v.budget : nullptr) + "</h2>\n" + g +
           "</section>\n";
  if (const std::string m = charts::host_memory(v); !m.empty())
    out += "<section id=\"host-memory\">\n<h2>Host and cgroup memory over time</h2>\n" + m + "</section>\n";
  if (const std::string o = charts::oom_tasks(v); !o.empty())
    out += "<section id=\"oom-tasks\">\n<h2>Kernel OOM: who held the memory</h2>\n" + o + "</section>\n";

  out += "<section class=\"report\" id=\"report\">\n" + markdown_to_html(render_markdown(v, /*with_title=*/false)) + "</section>\n";
  out += "<footer>Generated by culprit. This file is self-contained: no scripts, nothing loaded from the "
         "network.</footer>\n";
  out += "</main>\n</body>\n</html>\n";
  return out;
}

}  // namespace culprit::report
