// Source names of `culprit run`'s own files: a base name after a folder's `/` or an archive's
// `:` / `!` (input::read_inputs names an archive's members so).
#include "culprit/core/job_output.hpp"

namespace culprit::core::job_output {

bool base_name_is(std::string_view source_name, std::string_view base) {
  if (source_name.size() < base.size() || source_name.substr(source_name.size() - base.size()) != base) return false;
  if (source_name.size() == base.size()) return true;
  const char before = source_name[source_name.size() - base.size() - 1];
  return before == '/' || before == ':' || before == '!';
}

}  // namespace culprit::core::job_output
