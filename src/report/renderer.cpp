// report::render and parse_format: the dispatch from a Format to its back-end.
#include "culprit/report/renderer.hpp"

#include <cctype>

#include "report/renderers.hpp"

namespace culprit::report {

std::string render(const diagnose::Verdict& verdict, Format format, const RenderOptions& options) {
  switch (format) {
    case Format::text: return render_text(verdict, options);
    case Format::markdown: return render_markdown(verdict);
    case Format::json: return render_json(verdict);
    case Format::html: return render_html(verdict);
  }
  return render_text(verdict, options);
}

std::optional<Format> parse_format(std::string_view name) {
  std::string lower;
  for (char c : name) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  if (lower == "text" || lower == "txt") return Format::text;
  if (lower == "markdown" || lower == "md") return Format::markdown;
  if (lower == "json") return Format::json;
  if (lower == "html" || lower == "htm") return Format::html;
  return std::nullopt;
}

std::string_view to_string(Format format) {
  switch (format) {
    case Format::text: return "text";
    case Format::markdown: return "markdown";
    case Format::json: return "json";
    case Format::html: return "html";
  }
  return "text";
}

}  // namespace culprit::report
