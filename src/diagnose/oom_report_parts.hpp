// What a kernel OOM report's missing parts leave unknown: the sentence for each part id
// (core/oom_parts.hpp) the parser listed in `parts_missing`, worded for a host or a cgroup OOM
// and for where the victim's name came from instead of the kill line. Pure; the report's
// "parts missing" list is these sentences.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "culprit/diagnose/finding.hpp"

namespace culprit::diagnose {

/// The parts of a comma list of part ids (`invoker,task_table`), unknown ids dropped, in the
/// kernel's order (core::oom_part::kAll).
std::vector<std::string> oom_part_list(std::string_view ids);

/// The report parts record of one OOM event's fields: `parts` and `parts_missing` (comma lists),
/// `victim_from` (kill_line | summary | selected | reaper | exiting) and whether the limit was a
/// cgroup's (`memcg`). `notes` holds one sentence per missing part, in the kernel's order.
OomReportParts describe_oom_parts(std::string host, std::string_view parts, std::string_view missing,
                                  std::string_view victim_from, bool memcg);

}  // namespace culprit::diagnose
