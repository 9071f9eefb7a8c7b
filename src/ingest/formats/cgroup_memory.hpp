// The shape of the cgroup memory file culprit writes (cgroup.txt, sample-NNNN-cgroup.txt; see
// kCgroupShell in src/cli/snapshot.cpp), which is also what `head /sys/fs/cgroup/…/memory.*`
// prints: each file under a `==> PATH <==` header, then its content. Shared by the sniffer's
// detector and the parser.
#pragma once

#include <string_view>

namespace culprit::ingest::cgroup_memory {

/// `==> PATH <==`: the PATH, else empty.
std::string_view header_path(std::string_view line);

/// A header of a cgroup memory file: its base name starts with `memory.` (v2 memory.current,
/// memory.max, memory.events …; v1 memory.usage_in_bytes, memory.limit_in_bytes …).
bool is_memory_header(std::string_view line);

/// A header the listing may hold besides the memory files: `/proc/self/cgroup` (the cgroup's
/// path), or a memory file.
bool is_listing_header(std::string_view line);

/// A line of a file's content: one or two tokens (`123456`, `max`, `oom_kill 0`, `0::/a/b`).
bool is_body_line(std::string_view line);

}  // namespace culprit::ingest::cgroup_memory
