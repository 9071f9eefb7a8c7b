// culprit::render: the public formats onto the report module's renderers.
#include "culprit/culprit.hpp"
#include "culprit/report/redact.hpp"
#include "culprit/report/renderer.hpp"

namespace culprit {
namespace {

report::Format to_report(Format f) {
  switch (f) {
    case Format::text: return report::Format::text;
    case Format::markdown: return report::Format::markdown;
    case Format::json: return report::Format::json;
    case Format::html: return report::Format::html;
  }
  return report::Format::text;
}

Format from_report(report::Format f) {
  switch (f) {
    case report::Format::text: return Format::text;
    case report::Format::markdown: return Format::markdown;
    case report::Format::json: return Format::json;
    case report::Format::html: return Format::html;
  }
  return Format::text;
}

}  // namespace

std::optional<Format> parse_format(std::string_view name) {
  const auto f = report::parse_format(name);
  if (!f) return std::nullopt;
  return from_report(*f);
}

diagnose::Verdict redacted(const diagnose::Verdict& verdict) { return report::redact(verdict); }

std::string render(const Analysis& analysis, Format format, const RenderOptions& options) {
  report::RenderOptions render_options;
  render_options.color = options.color;
  render_options.width = options.width;
  if (options.redact) return report::render(report::redact(analysis.verdict), to_report(format), render_options);
  return report::render(analysis.verdict, to_report(format), render_options);
}

std::string_view version() { return CULPRIT_VERSION; }

}  // namespace culprit
