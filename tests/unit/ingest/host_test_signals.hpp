// Signals for the host-side parser tests (journald, docker/kubectl, clocks), shaped like the
// shipped rules/signals entries but test-local: tests must not depend on the shipped rules.
#pragma once

#include "unit/ingest/test_signals.hpp"

namespace culprit::test {

inline text::SignalSet host_test_signals() {
  text::SignalSet set;
  set.add(make_signal("nvidia_xid", "xid", core::Severity::error,
                      R"(NVRM: Xid \((?:PCI:)?(?P<pci>[0-9a-fA-F:.]+)\): (?P<xid>\d+)(?:, pid=(?P<pid>'?[^,]*'?), name=(?P<comm>[^,]*))?)",
                      {"NVRM: Xid"}));
  set.add(make_signal("systemd_unit_oom", "oom_kill", core::Severity::error,
                      R"((?P<unit>\S+): A process of this unit has been killed by the OOM killer)",
                      {"killed by the OOM killer"}));
  set.add(make_signal("earlyoom_kill", "userspace_oom_kill", core::Severity::critical,
                      R"re(sending (?P<signal_name>SIGTERM|SIGKILL) to process (?P<victim_pid>\d+)(?: uid \d+)? "(?P<victim_name>[^"]*)")re",
                      {"sending SIG"}));
  set.add(make_signal("kernel_killed_process", "oom_kill", core::Severity::critical,
                      R"((?:(?P<reason>Out of memory|Memory cgroup out of memory): )?Killed process (?P<pid>\d+) \((?P<name>.*)\) total-vm:)",
                      {"Killed process"}));
  set.add(make_signal("torchrun_worker_killed", "signal_exit", core::Severity::error,
                      R"(failed \(exitcode: (?P<exitcode>-(?P<signal>\d+))\) local_rank: (?P<local_rank>\d+) \(pid: (?P<pid>\d+)\))",
                      {"failed (exitcode: -"}));
  set.add(make_signal("kubelet_memory_eviction", "userspace_oom_kill", core::Severity::critical,
                      R"(The node was low on resource: memory\.(?:.*?Container (?P<victim_name>\S+) was using)?)",
                      {"low on resource: memory"}));
  set.add(make_signal("kubelet_system_oom", "oom_kill", core::Severity::critical,
                      R"(System OOM encountered(?:, victim process: (?P<name>[^,]+), pid: (?P<pid>\d+))?)",
                      {"System OOM encountered"}));
  set.build();
  return set;
}

}  // namespace culprit::test
