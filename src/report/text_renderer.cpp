// The terminal report: the verdict in one line first, then short sections (culprit, victim,
// memory budget, root failure and echoes, evidence, ruled out, advice, skipped inputs).
// Every line fits `width` columns; log text is cleaned of escapes and cut with an ellipsis.
#include <fmt/color.h>
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "report/renderers.hpp"
#include "culprit/core/utf8.hpp"
#include "report/wording.hpp"
#include "report/allocator_wording.hpp"

namespace culprit::report {
namespace {

constexpr int kMinWidth = 40;
constexpr std::size_t kMaxEchoes = 20;
constexpr std::size_t kMaxSources = 20;

/// Accumulates lines, applying the width and (optionally) colour.
class TextOut {
 public:
  explicit TextOut(const RenderOptions& o)
      : color_(o.color), width_(o.width <= 0 ? 0 : std::max(kMinWidth, o.width)) {}

  int width() const { return width_; }
  /// Columns left after `indent`; 0 means unlimited.
  int room(int indent) const { return width_ == 0 ? 0 : std::max(10, width_ - indent); }

  std::string paint(const std::string& text, fmt::text_style style) const {
    if (!color_ || text.empty()) return text;
    return fmt::format(style, "{}", text);
  }

  void line(const std::string& text) {
    out_ += text;
    out_ += '\n';
    blank_ = false;
  }
  void blank() {
    if (!blank_ && !out_.empty()) out_ += '\n';
    blank_ = true;
  }
  void heading(const std::string& title) {
    blank();
    line(paint(core::utf8::cut(title, room(0)), fmt::emphasis::bold));
  }
  /// Wrapped text; the first line may carry a different prefix than the rest.
  void wrapped(const std::string& text, int indent, const std::string& first_prefix = {},
               const std::string& rest_prefix = {}) {
    const std::string pad(static_cast<std::size_t>(indent), ' ');
    const int prefix_cols = std::max(core::utf8::columns(first_prefix), core::utf8::columns(rest_prefix));
    const auto lines = core::utf8::wrap(core::utf8::one_line(text), room(indent + prefix_cols));
    for (std::size_t i = 0; i < lines.size(); ++i)
      line(pad + (i == 0 ? first_prefix : rest_prefix) + lines[i]);
  }
  void bullet(const std::string& text, int indent = 2) { wrapped(text, indent, "- ", "  "); }

  /// `key  value` rows with the values aligned and wrapped under themselves.
  void fields(const std::vector<std::pair<std::string, std::string>>& rows, int indent = 2) {
    std::size_t key_cols = 0;
    for (const auto& [k, v] : rows)
      if (!v.empty()) key_cols = std::max(key_cols, static_cast<std::size_t>(core::utf8::columns(k)));
    const std::string pad(static_cast<std::size_t>(indent), ' ');
    const std::string hang(key_cols + 2, ' ');
    for (const auto& [k, v] : rows) {
      if (v.empty()) continue;
      const auto lines =
          core::utf8::wrap(core::utf8::one_line(v), room(indent + static_cast<int>(key_cols) + 2));
      const std::string key = k + std::string(key_cols + 2 - core::utf8::columns(k), ' ');
      for (std::size_t i = 0; i < lines.size(); ++i)
        line(pad + (i == 0 ? paint(key, fmt::emphasis::faint) : hang) + lines[i]);
    }
  }

  std::string take() { return std::move(out_); }

 private:
  bool color_;
  int width_;
  std::string out_;
  bool blank_ = true;
};

std::string pad_right(const std::string& s, int cols) {
  return s + std::string(static_cast<std::size_t>(std::max(0, cols - core::utf8::columns(s))), ' ');
}

std::string pad_left(const std::string& s, int cols) {
  return std::string(static_cast<std::size_t>(std::max(0, cols - core::utf8::columns(s))), ' ') + s;
}

fmt::text_style verdict_style(const std::string& id) {
  if (is_oom_verdict(id)) return fmt::fg(fmt::terminal_color::red) | fmt::emphasis::bold;
  if (id == diagnose::verdict::kNotOom) return fmt::fg(fmt::terminal_color::yellow) | fmt::emphasis::bold;
  return fmt::emphasis::bold;
}

fmt::text_style confidence_style(diagnose::Confidence c) {
  switch (c) {
    case diagnose::Confidence::high: return fmt::fg(fmt::terminal_color::green);
    case diagnose::Confidence::medium: return fmt::fg(fmt::terminal_color::yellow);
    case diagnose::Confidence::low: return fmt::emphasis::faint;
  }
  return {};
}

// The verdict in one line, in its one shape (wording.hpp). When it does not fit: the victim
// clause goes (the Victim section names it), then the culprit's name is shortened (to 2 columns
// beside a pid, else to 16: a unit or cgroup name is all there is of it), then the time goes (the
// Timeline and Root failure sections give it); the lead — what and where — is cut only when it
// alone is wider than the terminal, so the culprit is never what a narrow terminal loses.
void write_headline(TextOut& out, const diagnose::Verdict& v) {
  Headline h = headline(v);
  const int w = out.width();
  const std::string conf = headline_confidence(h);
  const std::string full_culprit = h.culprit;
  bool with_victim = true;
  auto excess = [&] {
    return w <= 0 ? 0 : core::utf8::columns(core::utf8::one_line(headline_body(h, with_victim))) + 1 + core::utf8::columns(conf) - w;
  };
  auto shorten_culprit = [&] {
    h.culprit = full_culprit;
    const int over = excess();
    if (over <= 0 || !h.culprit_process) return;
    diagnose::ProcessRef shorter = *h.culprit_process;
    shorter.name = core::utf8::one_line(shorter.name);
    const int columns = core::utf8::columns(shorter.name);
    const int keep = std::max(std::min(shorter.pid ? 2 : 16, columns), columns - over);
    if (keep < columns) {
      shorter.name = core::utf8::cut(shorter.name, keep);
      h.culprit = process_phrase(shorter, h.host);
    }
  };
  if (excess() > 0) with_victim = false;
  shorten_culprit();
  if (excess() > 0 && !h.when.empty()) {
    h.when.clear();
    shorten_culprit();
  }
  std::string body = core::utf8::one_line(headline_body(h, with_victim));
  if (excess() > 0) body = core::utf8::cut(body, w - 1 - core::utf8::columns(conf));
  out.line(out.paint(body, verdict_style(v.verdict)) + " " + out.paint(conf, confidence_style(v.confidence)));
}

void write_process(TextOut& out, const std::string& title, const diagnose::ProcessRef& p,
                   bool full) {
  out.heading(title);
  std::vector<std::pair<std::string, std::string>> rows{
      {"host", p.host},
      {"pid", p.pid ? std::to_string(*p.pid) : std::string()},
      {"name", p.name},
  };
  if (full) {
    rows.emplace_back("role", role_value(p.role));
    rows.emplace_back("why", p.why);
    rows.emplace_back("container", p.container);
    if (p.place) rows.emplace_back("place", place_phrase(*p.place));
  }
  out.fields(rows);
}

void write_budget(TextOut& out, const diagnose::Budget& b) {
  std::string title = "Memory budget";
  std::string where = b.host;
  if (b.gpu) where += (where.empty() ? "" : " ") + fmt::format("GPU {}", *b.gpu);
  if (!where.empty()) title += " — " + core::utf8::one_line(where);
  if (b.unified) title += " (unified memory)";
  out.heading(title);

  const auto rows = ledger_rows(b);
  int size_cols = 0, label_cols = 0;
  std::vector<std::string> sizes;
  for (const auto& r : rows) {
    sizes.push_back(size_text(r.bytes));
    size_cols = std::max(size_cols, core::utf8::columns(sizes.back()));
    label_cols = std::max(label_cols, core::utf8::columns(core::utf8::one_line(r.label)));
  }
  // Issue 37, finding 31: a long label (`job: the failing process (its framework's own figure; its CUDA
  // context is not …)`) wraps within its column, whose width is capped, instead of being cut and
  // stretching the table to the line's full width.
  constexpr int kIndent = 2, kShareCols = 6, kMaxLabelCols = 52;
  label_cols = std::min(label_cols, kMaxLabelCols);
  if (out.width() > 0)
    label_cols = std::min(label_cols, out.width() - kIndent - 2 - size_cols - 2 - kShareCols);
  label_cols = std::max(label_cols, 8);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const auto& r = rows[i];
    const auto label = core::utf8::wrap(core::utf8::one_line(r.label), label_cols);
    std::string text = std::string(kIndent, ' ') + pad_right(label.front(), label_cols) + "  " +
                       pad_left(sizes[i], size_cols);
    if (r.share && r.bytes) {
      if (std::string share = share_text(*r.bytes, b.total); !share.empty())
        text += "  " + pad_left(share, kShareCols);
    }
    if (r.role == "shortfall") text = out.paint(text, fmt::emphasis::bold);
    out.line(text);
    for (std::size_t k = 1; k < label.size(); ++k) out.line(std::string(kIndent + 2, ' ') + label[k]);
  }
  if (rows.empty()) out.line("  (no sizes known)");
  if (b.unified) {
    out.blank();
    out.wrapped("Unified memory: the GPU and the host share one pool, so host processes count "
                "against GPU memory.", 2);
  }
  if (!b.arithmetic.empty()) {
    out.blank();
    for (const auto& a : b.arithmetic) out.wrapped(a, 2, "", "  ");
  }
  if (says_partial_budget(b)) {
    out.blank();
    out.wrapped(std::string(kPartialBudget), 2);
  }
}

/// PyTorch's allocator at the OOM: its figures, what they say, the largest live allocation sites.
void write_allocator(TextOut& out, const diagnose::AllocatorView& a) {
  out.heading(core::utf8::one_line(allocator_title(a)));
  const auto figures = allocator_figures(a);
  int label_cols = 0, size_cols = 0;
  for (const auto& f : figures) {
    label_cols = std::max(label_cols, core::utf8::columns(f.label));
    size_cols = std::max(size_cols, core::utf8::columns(size_text(f.bytes)));
  }
  for (const auto& f : figures) out.line("  " + pad_right(f.label, label_cols) + "  " + pad_left(size_text(f.bytes), size_cols));
  for (const auto& note : allocator_notes(a)) {
    out.blank();
    out.wrapped(note, 2);
  }
  if (a.sites.empty()) return;
  out.blank();
  out.line(std::string("  ") + kSitesHeading + ":");
  std::vector<std::string> sizes;
  int cols = 0;
  for (const auto& s : a.sites) {
    sizes.push_back(size_text(s.bytes));
    cols = std::max(cols, core::utf8::columns(sizes.back()));
  }
  for (std::size_t i = 0; i < a.sites.size(); ++i) {
    const auto& s = a.sites[i];
    const std::string text = "  " + pad_left(sizes[i], cols) + fmt::format("  {:>4} block{}  ", s.blocks, s.blocks == 1 ? " " : "s") +
                             core::utf8::one_line(site_place(s));
    out.line(core::utf8::cut(text, out.room(0)));
  }
  if (a.site_count > static_cast<std::int64_t>(a.sites.size()))
    out.line(fmt::format("  … and {} more sites (see the snapshot file)", a.site_count - static_cast<std::int64_t>(a.sites.size())));
}

void write_failure(TextOut& out, const diagnose::Finding& f) {
  std::string when = iso_time(f.ts);
  if (when.empty()) when = "time unknown";
  std::string what = !f.title.empty() ? f.title : verdict_label(f.verdict);
  std::string head = when + "  " + (f.host.empty() ? std::string("?") : f.host) + "  " + what +
                     " [" + diagnose::to_string(f.confidence) + "]";
  out.line("  " + core::utf8::cut(core::utf8::one_line(head), out.room(2)));
  if (!f.summary.empty()) out.wrapped(f.summary, 4);
}

void write_evidence(TextOut& out, const std::vector<diagnose::Evidence>& evidence) {
  out.heading("Evidence");
  const std::size_t shown = std::min(evidence.size(), kMaxEvidence);
  for (std::size_t i = 0; i < shown; ++i) {
    const auto& e = evidence[i];
    std::string where = e.source.empty() ? std::string("?") : e.source;
    if (e.line > 0) where += fmt::format(":{}", e.line);
    std::string tail;
    if (!e.host.empty() && e.source.find(e.host) == std::string::npos) tail += "  " + core::utf8::one_line(e.host);
    if (e.ts) tail += "  " + iso_time(e.ts);
    // Too wide: the path gives way first (from the left, keeping `file:line`), never the time.
    where = core::utf8::one_line(where);
    if (const int room = out.room(2); room > 0 && core::utf8::columns(where) + core::utf8::columns(tail) > room)
      where = core::utf8::cut_left(where, std::max(12, room - core::utf8::columns(tail)));
    out.line("  " + out.paint(core::utf8::cut(where + tail, out.room(2)), fmt::fg(fmt::terminal_color::cyan)));
    // A block (kernel OOM report, traceback) keeps its lines; each is cut, never wrapped.
    std::string text = core::utf8::clean(e.text);
    while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
    std::vector<std::string> lines;
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      lines.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    const std::size_t keep = std::min(lines.size(), kMaxBlockLines);
    for (std::size_t k = 0; k < keep; ++k) {
      std::string l = lines[k];
      while (!l.empty() && l.back() == ' ') l.pop_back();
      out.line("    " + core::utf8::cut(l, out.room(4)));
    }
    if (lines.size() > keep) out.line(fmt::format("    … ({} more lines)", lines.size() - keep));
  }
  if (evidence.size() > shown)
    out.line(fmt::format("  … and {} more (see --format json)", evidence.size() - shown));
}

}  // namespace

std::string render_text(const diagnose::Verdict& v, const RenderOptions& options) {
  TextOut out(options);
  write_headline(out, v);
  if (!v.summary.empty()) {
    out.blank();
    out.wrapped(v.summary, 0);
  }

  if (v.culprit) write_process(out, "Culprit", *v.culprit, true);
  if (v.victim) {
    write_process(out, victim_differs(v) ? fmt::format("Victim ({}, not the culprit)", victim_word(v)) : "Victim (the culprit itself)",
                  *v.victim, false);
  }
  if (v.budget) {
    write_budget(out, *v.budget);
  } else if (v.verdict == diagnose::verdict::kCudaOom) {
    out.heading("Memory budget");
    out.wrapped(std::string(kNoBudget), 2);
  }
  if (v.data.allocator) write_allocator(out, *v.data.allocator);
  if (v.data.oom_parts)
    if (const std::string title = oom_parts_title(*v.data.oom_parts); !title.empty()) {
      out.heading(core::utf8::one_line(title));
      for (const auto& n : v.data.oom_parts->notes) out.bullet(n);
    }

  if (v.root) {
    out.heading("Root failure");
    write_failure(out, *v.root);
  }
  if (!v.echoes.empty()) {
    out.heading(fmt::format("Echoes ({})", v.echoes.size()));
    const std::size_t shown = std::min(v.echoes.size(), kMaxEchoes);
    for (std::size_t i = 0; i < shown; ++i) write_failure(out, v.echoes[i]);
    if (v.echoes.size() > shown) out.line(fmt::format("  … and {} more", v.echoes.size() - shown));
  }
  if (const auto others = other_findings(v); !others.empty()) {
    out.heading("Other findings");
    for (const auto* f : others) write_failure(out, *f);
  }

  const auto& evidence = !v.evidence.empty() || !v.root ? v.evidence : v.root->evidence;
  if (!evidence.empty()) write_evidence(out, evidence);

  if (!v.ruled_out.empty()) {
    out.heading("Ruled out");
    for (const auto& r : v.ruled_out) out.bullet(r);
  }
  std::vector<std::string> advice = v.advice;
  if (advice.empty() && v.root && !v.root->advice.empty()) advice.push_back(v.root->advice);
  if (!advice.empty()) {
    out.heading("Advice");
    for (const auto& a : advice) out.bullet(a);
  }
  if (!v.skipped.empty()) {
    out.heading("Skipped inputs");
    for (const auto& s : v.skipped) out.bullet(s);
  }
  if (!v.sources.empty()) {
    out.heading(fmt::format("Sources ({})", v.sources.size()));
    const std::size_t shown = std::min(v.sources.size(), kMaxSources);
    for (std::size_t i = 0; i < shown; ++i) {
      const auto& s = v.sources[i];
      std::string detail = formats_text(s);
      if (detail.empty()) detail = "unknown format";
      if (!s.host.empty()) detail += ", host " + s.host + (s.host_from.empty() ? "" : " from " + s.host_from);
      detail += fmt::format(", {} line{}", s.lines, s.lines == 1 ? "" : "s");
      if (s.files > 1) detail += fmt::format(" in {} samples", s.files);
      if (!s.clock_note.empty()) detail += ", clock " + s.clock_note;
      out.line("  " + core::utf8::cut(core::utf8::one_line(s.name + "  (" + detail + ")"), out.room(2)));
    }
    if (v.sources.size() > shown) out.line(fmt::format("  … and {} more", v.sources.size() - shown));
  }
  return out.take();
}

}  // namespace culprit::report
