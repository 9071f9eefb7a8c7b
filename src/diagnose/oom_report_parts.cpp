// The sentences of a kernel OOM report's missing parts (see oom_report_parts.hpp). One home for
// what each part proves: the kill line names the victim, the task table measures the holders,
// the invoker line says which allocation failed, Mem-Info (or a memcg's usage block) gives the
// figures, and the `oom-kill:` summary (5.0+) the constraint and the cgroups.
#include "oom_report_parts.hpp"

#include "culprit/core/oom_parts.hpp"

namespace culprit::diagnose {
namespace {

namespace part = core::oom_part;

/// The kill line's absence, by what named the victim instead.
std::string kill_line_note(std::string_view victim_from) {
  const std::string head = "the kill line (\"Killed process N\") is missing: ";
  if (victim_from == "summary") return head + "the victim is named from the oom-kill summary";
  if (victim_from == "selected") return head + "the victim is the process the kernel selected to kill";
  if (victim_from == "reaper") return head + "the victim is named by the OOM reaper's line";
  return head + "no victim is named";
}

std::string note_for(std::string_view id, std::string_view victim_from, bool memcg) {
  if (id == part::kKillLine) return kill_line_note(victim_from);
  if (id == part::kTaskTable)
    return memcg ? "no task table: the ledger of the cgroup's processes is unknown"
                 : "no task table: the ledger of host processes is unknown";
  if (id == part::kInvoker)
    return "no invoker line (\"invoked oom-killer\"): which allocation failed, and for which process, is unknown";
  if (id == part::kMemInfo)
    return memcg ? "no memcg usage block (\"memory: usage\"): the cgroup's usage and limit are unknown"
                 : "no Mem-Info block: the host's swap, shmem, slab and free pages are unknown";
  if (id == part::kSummary)
    return "no oom-kill summary line (\"oom-kill:constraint=\"): the constraint and the victim's cgroup are inferred";
  return {};
}

}  // namespace

std::vector<std::string> oom_part_list(std::string_view ids) {
  std::vector<std::string> out;
  for (std::string_view id : part::kAll) {
    // Each id as a whole item of the comma list.
    for (std::size_t at = 0; at <= ids.size();) {
      std::size_t end = ids.find(',', at);
      if (end == std::string_view::npos) end = ids.size();
      if (ids.substr(at, end - at) == id) {
        out.emplace_back(id);
        break;
      }
      at = end + 1;
    }
  }
  return out;
}

OomReportParts describe_oom_parts(std::string host, std::string_view parts, std::string_view missing,
                                  std::string_view victim_from, bool memcg) {
  OomReportParts r;
  r.host = std::move(host);
  r.seen = oom_part_list(parts);
  r.missing = oom_part_list(missing);
  for (const auto& id : r.missing) r.notes.push_back(note_for(id, victim_from, memcg));
  return r;
}

}  // namespace culprit::diagnose
