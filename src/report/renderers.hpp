// The three format back-ends behind report::render; internal to the report module.
#pragma once

#include <string>

#include "culprit/diagnose/finding.hpp"
#include "culprit/report/renderer.hpp"

namespace culprit::report {

std::string render_text(const diagnose::Verdict& v, const RenderOptions& options);
std::string render_markdown(const diagnose::Verdict& v);
std::string render_json(const diagnose::Verdict& v);

/// Evidence lines shown at most, per report (text and Markdown); JSON carries them all.
inline constexpr std::size_t kMaxEvidence = 30;
/// Lines of one multi-line evidence block shown in text (Markdown shows up to 3x this).
inline constexpr std::size_t kMaxBlockLines = 20;

}  // namespace culprit::report
