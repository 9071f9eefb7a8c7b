// The trim of the readers whose fields are padded with blanks only (nvidia_smi_table.cpp,
// torchrun_block.cpp, traceback.cpp), one home for the three. Narrower than text::trim, which
// also takes \r, \n, \v and \f. Private to the ingest module.
#pragma once

#include <string_view>

namespace culprit::ingest {

/// `s` without leading and trailing spaces and tabs.
inline std::string_view trim_blanks(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

}  // namespace culprit::ingest
