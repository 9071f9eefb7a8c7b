// The parts of a kernel OOM report (formats.md Part 1; mm/oom_kill.c dump_header and
// oom_kill_process): one home for their ids, which the kernel-log parser writes into an OOM
// event's `parts` / `parts_missing` fields and the report's "parts missing" list reads back.
#pragma once

#include <array>
#include <string_view>

namespace culprit::core::oom_part {

inline constexpr std::string_view kInvoker = "invoker";       ///< `<comm> invoked oom-killer: gfp_mask=…`
inline constexpr std::string_view kMemInfo = "mem_info";      ///< `Mem-Info:` (global) or the memcg `memory: usage …` block
inline constexpr std::string_view kTaskTable = "task_table";  ///< `[  pid  ]   uid  tgid total_vm …` and its rows
inline constexpr std::string_view kSummary = "summary";       ///< `oom-kill:constraint=…,task=…,pid=…` (5.0+)
inline constexpr std::string_view kKillLine = "kill_line";    ///< `[<reason>: ]Killed process N (comm) total-vm:…`

/// In the order the kernel prints them.
inline constexpr std::array<std::string_view, 5> kAll{kInvoker, kMemInfo, kTaskTable, kSummary, kKillLine};

}  // namespace culprit::core::oom_part
