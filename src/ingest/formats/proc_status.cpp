// The snapshot's recorded process facts (proc-status.txt; kProcStatusShell in
// src/cli/snapshot.cpp): for each GPU holder nvidia-smi lists and the job's own pid, the kernel's
// /proc/PID/status and /proc/PID/cgroup, each under a `==> PATH <==` header (head(1)'s), after
// the pid namespace culprit read them from. Read here, without a container runtime, into
// ProcessSightings: what places a holder (its pid in its namespace, its cgroup) and what says it
// is gone. The same file from any machine gives the same answer.
//
//   ==> /proc/self/ns/pid <==         readlink: `pid:[4026531836]` — the initial pid namespace's
//   pid:[4026531836]                  inode (PROC_PID_INIT_INO, include/linux/proc_ns.h): the
//                                     host's pids, so a pid /proc lacks is gone, not unseen
//   ==> /proc/48211/status <==        proc(5): `Key:<TAB>value` lines
//   Name:   python3
//   State:  S (sleeping)
//   PPid:   48190
//   NSpid:  48211   1                 its pid in each pid namespace, outermost first (Linux 4.1+)
//   VmRSS:    812344 kB
//   ==> /proc/48211/cgroup <==        proc(5): `hierarchy-ID:controller-list:cgroup-path`
//   0::/system.slice/docker-<id>.scope
//   ==> /proc/51234/status <==
//   (no such process)                 culprit's marker: /proc had no such directory
//   ==> /proc/48211/limits <==        proc(5), fs/proc/base.c proc_pid_limits: `%-25s %-20s %-20s
//   Limit                     Soft Limit           Hard Limit           Units     `
//   Max address space         1024000000           unlimited            bytes     (ulimit -v)
//   Max data size             unlimited            unlimited            bytes     (ulimit -d)
//
// Field table (status key -> ProcessSighting): Name -> name | State (first letter) -> state |
//   PPid -> ppid | NSpid (last) -> nspid | VmRSS (kB) -> rss | cgroup file -> cgroup
//   (core::cgroup_path_of) | the marker -> absent, only when the namespace line proves the
//   host's pids (read from inside a container, the host's pids are not there to see).
// Limits: a finite soft `Max address space` / `Max data size` becomes one event (kind log, rule
//   proc_limits, the pid's) with `address_space_bytes` / `data_bytes`: the ceiling a refused
//   host allocation (MemoryError, ENOMEM) of that process hits before the host's memory does.
// Bounds: a status key's value is read up to 256 bytes; a block of more than 512 lines is
// cut there (status has ~60 lines, cgroup one per hierarchy).
#include <optional>
#include <string>

#include "culprit/core/cgroup_place.hpp"
#include "culprit/core/parser_rules.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/proc_status.hpp"

namespace culprit::ingest {
namespace {

using Sv = std::string_view;

/// The inode number of the initial pid namespace (PROC_PID_INIT_INO = 0xEFFFFFFC).
constexpr Sv kInitPidNamespace = "pid:[4026531836]";
constexpr Sv kNoSuchProcess = "(no such process)";
constexpr std::size_t kMaxBlockLines = 512;

std::optional<std::int64_t> number(Sv s) {
  s = text::trim(s);
  if (s.empty() || s.size() > 18) return std::nullopt;
  std::int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v;
}

/// `==> /proc/<pid>/<file> <==` -> pid and file; `==> /proc/self/ns/pid <==` -> pid 0, `ns/pid`.
struct Header {
  std::int64_t pid = 0;
  Sv file;
};
std::optional<Header> header_of(Sv line) {
  if (!line.starts_with("==> /proc/") || !line.ends_with(" <==")) return std::nullopt;
  Sv path = line.substr(10, line.size() - 14);
  if (path == "self/ns/pid") return Header{0, "ns/pid"};
  const auto slash = path.find('/');
  if (slash == Sv::npos) return std::nullopt;
  const auto pid = number(path.substr(0, slash));
  const Sv file = path.substr(slash + 1);
  if (!pid || *pid <= 0 || (file != "status" && file != "cgroup" && file != "limits")) return std::nullopt;
  return Header{*pid, file};
}

}  // namespace

bool proc_status::is_header(Sv line) { return header_of(line).has_value(); }

bool proc_status::is_body_line(Sv line) {
  if (line == kNoSuchProcess || (line.starts_with("pid:[") && line.ends_with("]"))) return true;
  if (line.starts_with("Limit ") || line.starts_with("Max ")) return true;  // a limits table's rows
  const auto colon = line.find(':');
  if (colon == Sv::npos || colon == 0 || colon > 32) return false;
  const Sv key = line.substr(0, colon);
  if (number(key)) {  // a cgroup line: `0::/…`, `4:memory:/…`
    const auto second = line.find(':', colon + 1);
    return second != Sv::npos && second + 1 < line.size() && line[second + 1] == '/';
  }
  // A status key: letters, digits and `_` (`VmRSS`, `voluntary_ctxt_switches`), then a tab
  // (proc(5) separates with one) or the end (`Groups:` of no groups).
  for (char c : key)
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_')) return false;
  return colon + 1 == line.size() || line[colon + 1] == '\t';
}

namespace {

class ProcStatusParser {
 public:
  explicit ProcStatusParser(ParseContext& ctx) : ctx_(ctx) {}

  void run(Sv text) {
    Sv file;
    std::size_t block_lines = 0;
    std::string cgroup_text;
    std::int64_t seg_line = 0;
    for (Sv raw : text::split_lines(text)) {
      ++seg_line;
      Sv line = raw;
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
      if (auto h = header_of(line)) {
        if (file == "cgroup") current_.cgroup = core::cgroup_path_of(cgroup_text);
        if (file == "limits") flush_limits();
        if (h->file == "limits") limits_line_ = seg_line;
        cgroup_text.clear();
        if (h->pid != 0 && h->pid != current_.pid) flush();
        if (h->pid != 0) current_.pid = h->pid;
        file = h->file;
        block_lines = 0;
        continue;
      }
      if (file.empty() || ++block_lines > kMaxBlockLines) continue;
      if (file == "ns/pid") {
        if (text::starts_with(line, "pid:[")) host_namespace_ = line == kInitPidNamespace;
      } else if (file == "cgroup") {
        cgroup_text.append(line.substr(0, 4096));
        cgroup_text += '\n';
      } else if (line == kNoSuchProcess) {
        absent_ = true;
      } else if (file == "limits") {
        limit_line(line);
      } else {
        status_line(line);
      }
    }
    if (file == "cgroup") current_.cgroup = core::cgroup_path_of(cgroup_text);
    if (file == "limits") flush_limits();
    flush();
  }

 private:
  /// One row of a limits table: its name is the first 25 columns, then the soft limit.
  void limit_line(Sv line) {
    if (line.size() <= 26) return;
    const Sv name = text::trim(line.substr(0, 25));
    Sv rest = text::trim(line.substr(25));
    const Sv soft = rest.substr(0, rest.find(' '));
    const auto value = number(soft);  // `unlimited` is no number: no ceiling
    if (!value) return;
    if (name == "Max address space") address_space_ = value;
    else if (name == "Max data size") data_ = value;
  }

  void flush_limits() {
    if (ctx_.sink && current_.pid > 0 && (address_space_ || data_)) {
      core::Event e = ctx_.make_event(limits_line_);
      e.kind = core::kind::kLog;
      e.severity = core::Severity::info;
      e.rule = std::string(core::parser_rule::kProcLimits);
      e.pid = current_.pid;
      e.message = "limits of pid " + std::to_string(current_.pid);
      e.set_int_if("address_space_bytes", address_space_);
      e.set_int_if("data_bytes", data_);
      ctx_.sink->add_event(e);
    }
    address_space_.reset();
    data_.reset();
  }

  void status_line(Sv line) {
    const auto colon = line.find(':');
    if (colon == Sv::npos) return;
    const Sv key = line.substr(0, colon);
    const Sv value = text::trim(line.substr(colon + 1).substr(0, 256));
    if (key == "Name") {
      current_.name = std::string(value);
    } else if (key == "State") {
      current_.state = std::string(value.substr(0, 1));
    } else if (key == "PPid") {
      current_.ppid = number(value);
    } else if (key == "NSpid") {
      // Tab-separated, outermost namespace first: the last is its pid inside its own.
      const auto last = value.find_last_of(" \t");
      current_.nspid = number(last == Sv::npos ? value : value.substr(last + 1));
    } else if (key == "VmRSS") {
      if (value.ends_with(" kB"))
        if (auto kib = number(value.substr(0, value.size() - 3)); kib && *kib < (std::int64_t{1} << 40))
          current_.rss = *kib * 1024;
    }
  }

  void flush() {
    if (current_.pid > 0 && ctx_.sink) {
      current_.host = ctx_.host;
      current_.evidence = "/proc";
      // A pid /proc lacks is gone only where culprit saw the host's pids; from a container's
      // pid namespace it is merely out of sight, which says nothing.
      current_.absent = absent_ && host_namespace_;
      if (!absent_ || host_namespace_) ctx_.sink->add_process(current_);
    }
    current_ = core::ProcessSighting{};
    absent_ = false;
  }

  ParseContext& ctx_;
  core::ProcessSighting current_;
  std::int64_t limits_line_ = 0;                  ///< the limits header's line: the event's
  std::optional<std::int64_t> address_space_, data_;  ///< finite soft limits, bytes
  bool absent_ = false;
  bool host_namespace_ = false;
};

}  // namespace

void parse_proc_status(std::string_view text, ParseContext& ctx) { ProcStatusParser(ctx).run(text); }

}  // namespace culprit::ingest
