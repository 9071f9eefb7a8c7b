// Ray's top-memory-users table (ray_memory_table.hpp): the header, the rows in either
// generation's units, and whose each process is, from the command line Ray prints.
//
// Sizes: 1.x rows carry their unit (`7.3GB` in 0.x, `127.58GiB` later); 2.2+ rows a bare number
// under `MEM(GB)`. GB is read as the project reads it everywhere (core::parse_size: 2^30), which
// is what Ray's monitors divide by in the later generations [recalled, ray-project/ray not read].
#include "ingest/formats/ray_memory_table.hpp"

#include <array>
#include <optional>

#include "culprit/core/size.hpp"
#include "culprit/text/lines.hpp"

namespace culprit::ingest {

namespace {

using Sv = std::string_view;
using text::is_digit;
using text::is_space;

constexpr std::int64_t kGiB = 1024LL * 1024 * 1024;

/// Ray's own daemons, by a piece of their command line (the executable for the C++ ones, the
/// script for the Python ones; Ray 1.x / 2.x layouts of site-packages/ray/). First match wins.
struct DaemonNeedle {
  Sv needle;
  bool executable;  ///< the needle is the executable's basename (else: anywhere in the line)
  Sv label;
};
constexpr std::array kDaemons = {
    DaemonNeedle{"dashboard/agent.py", false, "Ray's dashboard agent"},
    DaemonNeedle{"dashboard/dashboard.py", false, "Ray's dashboard"},
    DaemonNeedle{"ray-dashboard-", false, "Ray's dashboard"},  // a dashboard module's process title
    DaemonNeedle{"runtime_env/agent/main.py", false, "Ray's runtime-env agent"},
    DaemonNeedle{"log_monitor.py", false, "Ray's log monitor"},
    DaemonNeedle{"ray/autoscaler/_private/monitor.py", false, "Ray's autoscaler monitor"},
    DaemonNeedle{"ray/monitor.py", false, "Ray's autoscaler monitor"},
    DaemonNeedle{"ray/util/client/server", false, "Ray's client server"},
    DaemonNeedle{"ray.util.client.server", false, "Ray's client server"},
    DaemonNeedle{"raylet", true, "Ray's raylet"},
    DaemonNeedle{"gcs_server", true, "Ray's GCS server"},
    DaemonNeedle{"plasma_store_server", true, "Ray's object store (plasma)"},
    DaemonNeedle{"plasma_store", true, "Ray's object store (plasma)"},
};

Sv first_word(Sv s) {
  s = text::trim_left(s);
  std::size_t i = 0;
  while (i < s.size() && !is_space(s[i])) ++i;
  return s.substr(0, i);
}

Sv basename(Sv path) {
  const std::size_t slash = path.rfind('/');
  return slash == Sv::npos ? path : path.substr(slash + 1);
}

// The first word of `command` that names a Python script (`…/train.py`), as its basename.
Sv script_of(Sv command) {
  std::size_t i = 0;
  while (i < command.size()) {
    while (i < command.size() && is_space(command[i])) ++i;
    const std::size_t start = i;
    while (i < command.size() && !is_space(command[i])) ++i;
    const Sv word = command.substr(start, i - start);
    if (word.size() > 3 && word.substr(word.size() - 3) == ".py") return basename(word);
  }
  return {};
}

// Splits off the next blank-separated token of `s` from `i` (tabs or runs of spaces).
Sv token(Sv s, std::size_t& i) {
  while (i < s.size() && is_space(s[i])) ++i;
  const std::size_t start = i;
  while (i < s.size() && !is_space(s[i])) ++i;
  return s.substr(start, i - start);
}

// A decimal number (`30.10`, `7`), nothing else.
bool is_number(Sv s) {
  bool digit = false, dot = false;
  for (char c : s) {
    if (is_digit(c)) digit = true;
    else if (c == '.' && !dot) dot = true;
    else return false;
  }
  return digit;
}

}  // namespace

std::string_view ray_class_word(RayProcessClass cls) {
  switch (cls) {
    case RayProcessClass::worker: return "worker";
    case RayProcessClass::driver: return "driver";
    case RayProcessClass::daemon: return "daemon";
    case RayProcessClass::other: break;
  }
  return "other";
}

RayProcessKind classify_ray_command(std::string_view command) {
  RayProcessKind k;
  const Sv cmd = text::trim(command);
  const Sv exe = first_word(cmd);
  const Sv exe_base = basename(exe);
  const Sv script = script_of(cmd);
  k.name = std::string(!script.empty() && exe_base.substr(0, 6) == "python" ? script : exe_base);
  for (const auto& d : kDaemons) {
    const bool hit = d.executable ? exe_base == d.needle : cmd.find(d.needle) != Sv::npos;
    if (hit) {
      k.cls = RayProcessClass::daemon;
      k.label = std::string(d.label);
      return k;
    }
  }
  // Workers name themselves by their task or actor (setproctitle): `ray::Name`, 1.x `ray_Name`;
  // before a title is set, the worker script.
  if (exe.substr(0, 5) == "ray::" || (exe.size() > 4 && exe.substr(0, 4) == "ray_") ||
      cmd.find("workers/default_worker.py") != Sv::npos) {
    k.cls = RayProcessClass::worker;
    k.name = std::string(exe.substr(0, 5) == "ray::" || exe.substr(0, 4) == "ray_" ? exe : Sv("default_worker.py"));
    k.label = "a Ray worker of the job";
    return k;
  }
  if (exe_base.starts_with("python") || exe_base.starts_with("ipykernel")) {
    k.cls = RayProcessClass::driver;
    k.label = "a Python program that is none of Ray's daemons, most likely the job's driver";
    return k;
  }
  k.cls = RayProcessClass::other;
  k.label = "another program";
  return k;
}

bool RayMemoryTable::opens(std::string_view message) {
  std::size_t i = 0;
  const Sv pid = token(message, i), mem = token(message, i), command = token(message, i);
  return pid == "PID" && (mem == "MEM" || mem == "MEM(GB)") && command == "COMMAND" && token(message, i).empty();
}

RayMemoryTable::RayMemoryTable(std::int64_t seg_line, std::string_view header)
    : first_line_(seg_line), last_line_(seg_line) {
  std::size_t i = 0;
  token(header, i);
  bare_gb_ = token(header, i) == "MEM(GB)";
}

bool RayMemoryTable::read_row(std::string_view message, RayMemoryUser& row) const {
  std::size_t i = 0;
  const Sv pid = token(message, i);
  if (!text::is_decimal(pid, 10)) return false;
  // The blank between PID and MEM: a tab, or the spaces it was expanded to.
  if (i >= message.size()) return false;
  const Sv mem = token(message, i);
  std::optional<std::int64_t> bytes;
  if (bare_gb_) {
    if (is_number(mem)) bytes = core::parse_size(mem, kGiB);
  } else {
    // 1.x always prints a unit (`7.3GB`, `127.58GiB`); a bare number is some other table.
    std::size_t n = 0;
    while (n < mem.size() && (is_digit(mem[n]) || mem[n] == '.')) ++n;
    const Sv unit = mem.substr(n);
    if (n > 0 && (unit == "GB" || unit == "GiB" || unit == "MB" || unit == "MiB" || unit == "KB" || unit == "KiB"))
      bytes = core::parse_size(mem);
  }
  if (!bytes || *bytes < 0) return false;
  std::int64_t v = 0;
  for (char c : pid) v = v * 10 + (c - '0');
  if (v <= 0) return false;
  row.pid = v;
  row.bytes = *bytes;
  row.command = std::string(text::trim(message.substr(i)).substr(0, RayMemoryUser::kMaxCommand));
  return true;
}

RayMemoryTable::Offer RayMemoryTable::offer(std::int64_t seg_line, std::string_view message) {
  if (text::trim(message).empty()) {
    // One blank line may stand between the header and the first row; after the rows a blank
    // ends the table (1.x prints one before its object-store note).
    if (!rows_.empty() || blank_seen_) return Offer::ended;
    blank_seen_ = true;
    last_line_ = seg_line;
    return Offer::consumed;
  }
  if (rows_.size() >= kMaxRows) return Offer::ended;
  RayMemoryUser row;
  if (!read_row(message, row)) return Offer::ended;
  row.line = seg_line;
  rows_.push_back(std::move(row));
  last_line_ = seg_line;
  return Offer::consumed;
}

}  // namespace culprit::ingest
