// The format back-ends behind report::render; internal to the report module.
#pragma once

#include <string>

#include "culprit/diagnose/finding.hpp"
#include "culprit/report/renderer.hpp"

namespace culprit::report {

std::string render_text(const diagnose::Verdict& v, const RenderOptions& options);
/// `with_title` false leaves out the `# Incident:` title and the summary (the HTML page shows
/// them in its header).
std::string render_markdown(const diagnose::Verdict& v, bool with_title = true);
std::string render_json(const diagnose::Verdict& v);
std::string render_html(const diagnose::Verdict& v);

/// Evidence lines shown at most, per report (text and Markdown); JSON carries them all.
inline constexpr std::size_t kMaxEvidence = 30;
/// Lines of one multi-line evidence block shown in text (Markdown shows up to 3x this).
inline constexpr std::size_t kMaxBlockLines = 20;

}  // namespace culprit::report
