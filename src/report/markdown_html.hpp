// The Markdown report shown inside the HTML report: a converter for the subset of Markdown that
// render_markdown writes (headings, paragraphs, `-` lists, GFM tables, fenced code, code spans,
// **bold**, backslash escapes). Everything is escaped; no raw HTML passes through.
#pragma once

#include <string>
#include <string_view>

namespace culprit::report {

/// HTML fragment for `markdown`. Unknown constructs come out as escaped paragraph text.
std::string markdown_to_html(std::string_view markdown);

}  // namespace culprit::report
