// The Markdown incident report, meant to be pasted into a GitHub issue: title, summary, a
// verdict table, culprit, memory ledger table, timeline of root + echoes, evidence in fenced
// blocks, advice, ruled out, sources. All log text is escaped; nothing can break the layout.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <vector>

#include "report/renderers.hpp"
#include "culprit/core/utf8.hpp"
#include "report/wording.hpp"
#include "report/allocator_wording.hpp"

namespace culprit::report {
namespace {

std::string escape(std::string_view text);

}  // namespace

std::string markdown_inline(std::string_view raw) { return escape(core::utf8::one_line(raw)); }

namespace {

constexpr int kMaxLineColumns = 2000;  // a runaway log line is cut, even in a code block
constexpr std::size_t kMaxTimelineRows = 40;
constexpr int kMaxCellColumns = 200;

/// Backslash-escapes Markdown punctuation (`|` too, so the result is also a safe table cell).
std::string escape(std::string_view text) {
  static constexpr std::string_view kSpecial = "\\`*_[]<>|~&";
  std::string out;
  for (char c : text) {
    if (kSpecial.find(c) != std::string_view::npos) out += '\\';
    out += c;
  }
  return out;
}

/// Inline text from a log or a rule: one line, escaped.
std::string md(std::string_view raw) { return markdown_inline(raw); }

/// A code span of clean one-line text that survives backticks inside it. A `|` is left as it
/// is: `table` escapes it in cells (GFM reads `\|` in a cell before the code span; elsewhere
/// the backslash would show).
std::string code_span(std::string_view text) {
  if (text.empty()) return {};
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(longest + 1, '`');
  const bool pad = text.front() == '`' || text.back() == '`';
  return fence + (pad ? " " : "") + std::string(text) + (pad ? " " : "") + fence;
}

/// Raw text as a code span.
std::string code(std::string_view raw) { return code_span(core::utf8::one_line(raw)); }

/// Authored prose (summaries, advice, titles): like `md`, but balanced backtick pairs stay
/// code spans, so rule text like "set `num_workers=0`" renders as code.
std::string prose(std::string_view raw) {
  const std::string text = core::utf8::one_line(raw);
  if (std::count(text.begin(), text.end(), '`') % 2 != 0) return escape(text);
  std::string out;
  bool in_code = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= text.size(); ++i) {
    if (i < text.size() && text[i] != '`') continue;
    const std::string_view part = std::string_view(text).substr(start, i - start);
    if (in_code && part.empty()) {
      out += "\\`\\`";  // `` is no code span: two backticks of a name, kept as written
    } else {
      out += in_code ? code_span(part) : escape(part);
    }
    in_code = !in_code;
    start = i + 1;
  }
  return out;
}

/// Escaped inline text placed at the start of a block (a paragraph, a list item) must not
/// open a heading, list, quote or rule: `- x`, `1. x`, `# x`, `+ x`, `= x`.
std::string at_block_start(std::string text) {
  std::size_t digits = 0;
  while (digits < text.size() && digits < 9 && text[digits] >= '0' && text[digits] <= '9') ++digits;
  if (digits > 0 && digits < text.size() && (text[digits] == '.' || text[digits] == ')'))
    return text.insert(digits, "\\");
  if (!text.empty() && std::string_view("#+-=").find(text[0]) != std::string_view::npos)
    return "\\" + text;
  return text;
}

/// A fenced code block longer than any backtick run inside `text`.
std::string fenced(const std::string& text, const char* info = "text") {
  std::size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  return fence + info + "\n" + text + (text.empty() || text.back() == '\n' ? "" : "\n") + fence + "\n";
}

std::string or_dash(const std::string& s) { return s.empty() ? std::string("—") : s; }

std::string process_md(const diagnose::ProcessRef& p, bool with_role) {
  std::string out;
  if (p.pid) out = fmt::format("pid {}", *p.pid);
  if (p.pid && p.place)  // where it ran, as the text report says it (wording.hpp)
    if (const std::string place = place_phrase(*p.place); !place.empty()) out += " (" + md(place) + ")";
  if (!p.name.empty()) out += (out.empty() ? "" : " ") + code(p.name);
  if (out.empty()) {
    if (p.role == "job") return unnamed_process(p.role) + (p.host.empty() ? std::string() : " on " + md(p.host));
    out = unnamed_process(p.role);
  }
  if (!p.host.empty()) out += " on " + md(p.host);
  if (with_role) out += " (" + role_text(p.role) + ")";
  return out;
}

struct Doc {
  std::string out;
  void para(const std::string& text) {
    if (!out.empty() && out.back() != '\n') out += '\n';
    if (!out.empty()) out += '\n';
    out += text;
    if (out.back() != '\n') out += '\n';
  }
  void heading(const std::string& title) { para("## " + title); }
};

/// A table cell: every `|` not already escaped (by an odd run of backslashes before it) gets
/// one, so neither a code span nor text can end the cell.
std::string cell_text(const std::string& cell) {
  std::string out;
  std::size_t backslashes = 0;
  for (char c : cell) {
    if (c == '|' && backslashes % 2 == 0) out += '\\';
    backslashes = c == '\\' ? backslashes + 1 : 0;
    out += c;
  }
  return out;
}

void table(Doc& doc, const std::vector<std::string>& header, const std::vector<std::string>& align,
           const std::vector<std::vector<std::string>>& rows) {
  std::string t = "|";
  for (const auto& h : header) t += " " + h + " |";
  t += "\n|";
  for (const auto& a : align) t += a + "|";
  t += '\n';
  for (const auto& r : rows) {
    t += "|";
    for (const auto& c : r) t += " " + (c.empty() ? std::string(" ") : cell_text(c)) + " |";
    t += '\n';
  }
  doc.para(t);
}

void process_section(Doc& doc, const std::string& title, const diagnose::ProcessRef& p, bool full) {
  doc.heading(title);
  std::string list;
  auto item = [&](const char* key, const std::string& value) {
    if (!value.empty()) list += fmt::format("- **{}:** {}\n", key, value);
  };
  item("Host", md(p.host));
  item("PID", p.pid ? std::to_string(*p.pid) : std::string());
  item("Name", code(p.name));
  if (full) {
    item("Role", role_value(p.role));
    item("Why", prose(p.why));
    item("Container", code(p.container));
  }
  doc.para(list.empty() ? std::string("Nothing is known about this process.") : list);
}

void budget_section(Doc& doc, const diagnose::Budget& b) {
  std::string title = "Memory budget";
  std::vector<std::string> where;
  if (!b.host.empty()) where.push_back(md(b.host));
  if (b.gpu) where.push_back(fmt::format("GPU {}", *b.gpu));
  if (b.unified) where.push_back("unified memory");
  if (!where.empty()) title += " (" + fmt::format("{}", fmt::join(where, ", ")) + ")";
  doc.heading(title);
  if (b.unified)
    doc.para("Unified memory: the GPU and the host share one pool, so host processes count "
             "against GPU memory.");
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : ledger_rows(b)) {
    std::string label = md(r.label);
    if (r.role == "shortfall") label = "**" + label + "**";
    rows.push_back({label, md(r.role), r.pid ? std::to_string(*r.pid) : std::string(),
                    size_text(r.bytes), r.bytes ? std::to_string(*r.bytes) : std::string(),
                    r.share && r.bytes ? share_text(*r.bytes, b.total) : std::string()});
  }
  if (rows.empty()) {
    doc.para("No sizes are known.");
  } else {
    table(doc, {"Entry", "Role", "PID", "Size", "Bytes", "Share of total"},
          {"---", "---", "--:", "--:", "--:", "--:"}, rows);
  }
  if (!b.arithmetic.empty()) {
    std::string text;
    for (const auto& a : b.arithmetic) text += core::utf8::one_line(a) + "\n";
    doc.para(fenced(text));
  }
  if (says_partial_budget(b)) doc.para(md(std::string(kPartialBudget)));
}

/// PyTorch's allocator at the OOM: its figures, what they say, the largest live allocation sites.
void allocator_section(Doc& doc, const diagnose::AllocatorView& a) {
  doc.heading(md(allocator_title(a)));
  std::vector<std::vector<std::string>> rows;
  for (const auto& f : allocator_figures(a)) rows.push_back({md(f.label), size_text(f.bytes), std::to_string(f.bytes)});
  table(doc, {"Figure", "Size", "Bytes"}, {"---", "--:", "--:"}, rows);
  for (const auto& note : allocator_notes(a)) doc.para(md(note));
  if (a.sites.empty()) return;
  rows.clear();
  for (const auto& s : a.sites)
    rows.push_back({code(site_place(s)), size_text(s.bytes), std::to_string(s.blocks), size_text(s.largest), code(s.file)});
  doc.para(std::string("**") + kSitesHeading + "**");
  table(doc, {"Frame", "Live", "Blocks", "Largest block", "File"}, {"---", "--:", "--:", "--:", "---"}, rows);
  if (a.site_count > static_cast<std::int64_t>(a.sites.size()))
    doc.para(fmt::format("… and {} more sites (see the snapshot file).", a.site_count - static_cast<std::int64_t>(a.sites.size())));
}

void timeline_section(Doc& doc, const diagnose::Verdict& v) {
  struct Item {
    const diagnose::Finding* f;
    bool root;
  };
  std::vector<Item> items;
  if (v.root) items.push_back({&*v.root, true});
  for (const auto& e : v.echoes) items.push_back({&e, false});
  if (items.empty()) return;
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) {
    if (a.f->ts && b.f->ts) return *a.f->ts < *b.f->ts;
    return a.f->ts.has_value() && !b.f->ts.has_value();  // unknown times last
  });
  std::vector<std::vector<std::string>> rows;
  for (const auto& it : items) {
    const auto& f = *it.f;
    std::string what = it.root ? "**Root:** " : "Echo: ";
    what += prose(!f.title.empty() ? f.title : verdict_label(f.verdict));
    if (!f.summary.empty()) what += " — " + prose(f.summary);
    rows.push_back({or_dash(iso_time(f.ts)), or_dash(md(f.host)), what});
  }
  doc.heading("Timeline");
  table(doc, {"Time (UTC)", "Host", "What"}, {"---", "---", "---"}, rows);
}

/// Events across hosts around the failure (the timeline the diagnosis read, capped).
void events_section(Doc& doc, const diagnose::ReportData& data) {
  if (data.timeline.empty()) return;
  const auto picked = events_around_failure(data.timeline, kMaxTimelineRows);
  std::vector<std::vector<std::string>> rows;
  for (std::size_t i : picked) {
    const auto& e = data.timeline[i];
    std::string kind = code(e.kind);
    if (e.mark == "root") kind = "**root** " + kind;
    else if (e.mark == "echo") kind = "echo " + kind;
    rows.push_back({md(event_time_text(e)), or_dash(md(e.host)), kind, md(event_process_text(e)),
                    code(event_location(e)), md(core::utf8::cut(e.summary, kMaxCellColumns))});
  }
  doc.heading("Events across hosts");
  const std::size_t total = std::max<std::size_t>(static_cast<std::size_t>(std::max<std::int64_t>(data.timeline_total, 0)),
                                                  data.timeline.size());
  if (total > rows.size())
    doc.para(fmt::format("{} of {} events (other than plain log lines), nearest the failure; "
                         "`culprit timeline` lists them all.", rows.size(), total));
  table(doc, {"Time (UTC)", "Host", "Kind", "Process", "Source", "Event"},
        {"---", "---", "---", "---", "---", "---"}, rows);
}

/// Each host's clock alignment: how far the times of different hosts can be compared.
void hosts_section(Doc& doc, const std::vector<diagnose::HostClock>& hosts) {
  if (hosts.empty()) return;
  std::vector<std::vector<std::string>> rows;
  for (const auto& h : hosts)
    rows.push_back({or_dash(md(h.host)), md(h.method.empty() ? std::string("not aligned") : h.method),
                    md(h.confidence), h.offset ? fmt::format("{:+.1f} s", *h.offset) : std::string("—"),
                    h.unified_memory ? "yes" : "no"});
  doc.heading("Hosts and clocks");
  table(doc, {"Host", "Clock alignment", "Confidence", "Offset to UTC", "Unified memory"},
        {"---", "---", "---", "--:", "---"}, rows);
}

void evidence_section(Doc& doc, const std::vector<diagnose::Evidence>& evidence) {
  doc.heading("Evidence");
  const std::size_t shown = std::min(evidence.size(), kMaxEvidence);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& e = evidence[i];
    std::string label = e.source.empty() ? std::string("?") : e.source;
    if (e.line > 0) label += fmt::format(":{}", e.line);
    std::string head = "**" + code(label) + "**";
    if (!e.host.empty()) head += " · " + md(e.host);
    if (e.ts) head += " · " + iso_time(e.ts);
    std::string text = core::utf8::clean(e.text);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    std::string body;
    std::size_t start = 0, count = 0, total = 0;
    const std::size_t max_lines = 3 * kMaxBlockLines;
    while (start <= text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      if (count < max_lines) {
        body += core::utf8::cut(std::string_view(text).substr(start, end - start), kMaxLineColumns) + "\n";
        ++count;
      }
      ++total;
      start = end + 1;
    }
    if (total > count) body += fmt::format("… ({} more lines)\n", total - count);
    doc.para(head);
    doc.para(fenced(body));
  }
  if (evidence.size() > shown)
    doc.para(fmt::format("… and {} more evidence lines (see `--format json`).", evidence.size() - shown));
}

void list_section(Doc& doc, const std::string& title, const std::vector<std::string>& items) {
  if (items.empty()) return;
  doc.heading(title);
  std::string list;
  for (const auto& i : items) list += "- " + at_block_start(prose(i)) + "\n";
  doc.para(list);
}

}  // namespace

std::string render_markdown(const diagnose::Verdict& v, bool with_title) {
  Doc doc;
  if (with_title) {
    doc.para("# Incident: " + md(headline_body(headline(v))));
    if (!v.summary.empty()) doc.para(at_block_start(prose(v.summary)));
  }

  std::vector<std::vector<std::string>> facts;
  facts.push_back({"Verdict", md(verdict_label(v.verdict)) + " (" + code(v.verdict) + ")"});
  facts.push_back({"Confidence", diagnose::to_string(v.confidence)});
  if (const std::string where = where_phrase(v); !where.empty()) facts.push_back({"Where", md(where)});
  if (v.root && v.root->ts) facts.push_back({"When (UTC)", iso_time(v.root->ts)});
  facts.push_back({"Culprit", v.culprit ? process_md(*v.culprit, true) : std::string("unknown")});
  if (v.victim)
    facts.push_back({v.verdict == diagnose::verdict::kCudaOom ? "Failed process" : "Killed", process_md(*v.victim, false)});
  if (v.budget) {
    if (v.budget->shortfall) facts.push_back({"Shortfall", size_text(v.budget->shortfall)});
  }
  if (v.root && !v.root->rule.empty()) facts.push_back({"Root rule", code(v.root->rule)});
  table(doc, {"Field", "Value"}, {"---", "---"}, facts);

  if (v.culprit) process_section(doc, "Culprit", *v.culprit, true);
  if (v.victim)
    process_section(doc, victim_differs(v) ? fmt::format("Victim ({}, not the culprit)", victim_word(v)) : "Victim (the culprit itself)",
                    *v.victim, false);
  if (v.budget) {
    budget_section(doc, *v.budget);
  } else if (v.verdict == diagnose::verdict::kCudaOom) {
    doc.heading("Memory budget");
    doc.para(md(std::string(kNoBudget)));
  }
  if (v.data.allocator) allocator_section(doc, *v.data.allocator);
  if (v.data.oom_parts) list_section(doc, md(oom_parts_title(*v.data.oom_parts)), v.data.oom_parts->notes);
  timeline_section(doc, v);
  events_section(doc, v.data);

  if (const auto others = other_findings(v); !others.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto* f : others)
      rows.push_back({diagnose::to_string(f->confidence), code(f->verdict), or_dash(md(f->host)),
                      or_dash(iso_time(f->ts)), prose(f->title), code(f->rule)});
    doc.heading("Other findings");
    table(doc, {"Confidence", "Verdict", "Host", "Time (UTC)", "Title", "Rule"},
          {"---", "---", "---", "---", "---", "---"}, rows);
  }

  const auto& evidence = !v.evidence.empty() || !v.root ? v.evidence : v.root->evidence;
  if (!evidence.empty()) evidence_section(doc, evidence);

  std::vector<std::string> advice = v.advice;
  if (advice.empty() && v.root && !v.root->advice.empty()) advice.push_back(v.root->advice);
  list_section(doc, "Advice", advice);
  list_section(doc, "Ruled out", v.ruled_out);

  hosts_section(doc, v.data.hosts);
  if (!v.sources.empty()) {
    std::vector<std::vector<std::string>> rows;
    for (const auto& s : v.sources)
      rows.push_back({code(s.name) + (s.files > 1 ? fmt::format(" ({} samples)", s.files) : std::string()), or_dash(md(s.host.empty() || s.host_from.empty() ? s.host : s.host + " (" + s.host_from + ")")),
                      or_dash(md(formats_text(s))), std::to_string(s.lines),
                      std::to_string(s.bytes), or_dash(md(s.clock_note))});
    doc.heading("Sources");
    table(doc, {"Name", "Host", "Format", "Lines", "Bytes", "Clock"},
          {"---", "---", "---", "--:", "--:", "---"}, rows);
  }
  list_section(doc, "Skipped inputs", v.skipped);
  return doc.out;
}

}  // namespace culprit::report
