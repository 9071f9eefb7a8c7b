// Redaction for sharing a report: hostnames, IP addresses, user names (and so home paths),
// container ids and pod uids become stable placeholders (`host-1`, `ip-1`, `user-1`,
// `container-1`, `pod-1`), the same placeholder for the same value everywhere in the report;
// pids, sizes and times are kept, so the diagnosis still reads the same.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "culprit/diagnose/finding.hpp"

namespace culprit::report {

/// What a value is, which decides its placeholder.
enum class RedactKind { host, ip, user, container, pod, uuid };

/// Collects identifying values, then replaces them. Collect everything first (all hosts from
/// the structured fields, then patterns in all text), then apply: placeholders are numbered in
/// the order values were first seen, so the same input always gives the same report.
///   Redactor r; r.collect(verdict); auto shared = r.apply(verdict);
class Redactor {
 public:
  /// Every host field of the verdict, then users, IPs, container ids and UUIDs found in all its text.
  void collect(const diagnose::Verdict& verdict);
  /// Users, IPs, container ids and UUIDs found in `text` (and hosts named by `user@host`).
  void collect_text(std::string_view text);
  /// One value of a known kind. Empty values, `localhost`, well-known system user names
  /// (`root`, `ubuntu`, …) and unspecified / loopback addresses are ignored.
  void add(std::string_view value, RedactKind kind);

  /// `text` with every collected value replaced by its placeholder, in one left-to-right pass
  /// that prefers the longest value at each position (so `spark-b` wins over `spark`) and
  /// never rewrites a placeholder. Hosts, users and IPs match only as whole words.
  std::string apply(std::string_view text) const;
  /// A copy of `verdict` with `apply` run over every string in it (ids such as verdict, role
  /// and event kind are left alone: they are culprit's own words).
  diagnose::Verdict apply(const diagnose::Verdict& verdict) const;

  /// (value, placeholder) pairs in the order the values were first seen.
  const std::vector<std::pair<std::string, std::string>>& mapping() const { return mapping_; }

 private:
  struct Entry {
    std::string value, placeholder;
    bool whole_word = true;
  };
  std::vector<Entry> entries_;
  std::array<std::vector<std::size_t>, 256> by_first_byte_;  // entry indexes, longest value first
  std::vector<std::pair<std::string, std::string>> mapping_;
  int counts_[6] = {0, 0, 0, 0, 0, 0};
};

/// `collect` then `apply` in one call.
diagnose::Verdict redact(const diagnose::Verdict& verdict);

}  // namespace culprit::report
