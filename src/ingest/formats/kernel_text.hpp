// The text helpers of the kernel-log readers (kernel_nvrm.cpp, kernel_oom_lines.cpp,
// kernel_oom_report.cpp), one home for the three. Their trim is narrower than text::trim (which
// also takes \n, \v and \f and a leading \r), so they keep their own. Private to the ingest module.
#pragma once

#include <string_view>

#include "culprit/text/lines.hpp"

namespace culprit::ingest::kernel {

/// `s` without leading spaces and tabs and without trailing spaces, tabs and \r.
inline std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

/// Whether `s` holds `p`: text's own.
using text::contains;

/// Whether `s` opens with `p`: text's own.
using text::starts_with;

}  // namespace culprit::ingest::kernel
