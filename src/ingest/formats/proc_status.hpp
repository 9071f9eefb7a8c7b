// The shape of the snapshot's recorded process facts (proc-status.txt, see proc_status.cpp):
// `==> /proc/…` headers over /proc/PID/status, /proc/PID/cgroup and the pid namespace link.
// Shared by the sniffer's detector and the parser.
#pragma once

#include <string_view>

namespace culprit::ingest::proc_status {

/// `==> /proc/self/ns/pid <==`, `==> /proc/<pid>/status <==` or `==> /proc/<pid>/cgroup <==`.
bool is_header(std::string_view line);

/// A line such a file holds: `Key:<TAB>value` (status), `N:controllers:/path` (cgroup),
/// `pid:[N]` (the namespace link), or culprit's `(no such process)` marker.
bool is_body_line(std::string_view line);

}  // namespace culprit::ingest::proc_status
