// A small signal set for parser tests, shaped like rules/signals/*.toml entries: Xid, kernel
// segfault, systemd unit OOM notice, earlyoom kill. Tests must not depend on the shipped rules.
#pragma once

#include <memory>

#include "culprit/text/signal_set.hpp"

namespace culprit::test {

inline text::Signal make_signal(std::string id, std::string kind, core::Severity severity, std::string_view regex,
                                std::vector<std::string> literals) {
  text::Signal s;
  s.id = std::move(id);
  s.kind = std::move(kind);
  s.severity = severity;
  s.pattern = std::make_shared<const text::Pattern>(regex);
  s.literals = std::move(literals);
  return s;
}

/// Signals the kernel-log tests rely on (ids are test-local).
inline text::SignalSet kernel_test_signals() {
  text::SignalSet set;
  set.add(make_signal("nvidia_xid", "xid", core::Severity::error,
                      R"(NVRM: Xid \((?:PCI:)?(?P<pci>[0-9a-fA-F:.]+)\): (?P<xid>\d+)(?:, pid=(?P<pid>'?[^,]*'?), name=(?P<comm>[^,]*))?)",
                      {"NVRM: Xid"}));
  set.add(make_signal("kernel_segfault", "segfault", core::Severity::warning,
                      R"((?P<comm>\S+)\[(?P<pid>\d+)\]: segfault at)", {"segfault at"}));
  set.add(make_signal("systemd_unit_oom", "systemd_unit_oom", core::Severity::error,
                      R"((?P<unit>\S+): A process of this unit has been killed by the OOM killer)",
                      {"killed by the OOM killer"}));
  set.add(make_signal("earlyoom_kill", "userspace_oom_kill", core::Severity::error,
                      R"(sending SIG(?P<signal>TERM|KILL) to process (?P<pid>\d+))", {"sending SIG"}));
  set.build();
  return set;
}

}  // namespace culprit::test
