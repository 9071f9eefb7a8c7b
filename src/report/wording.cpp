// The shared phrasing of the text and Markdown reports: the verdict line, process phrases,
// sizes and times, and the ledger rows. One place, so both formats say the same thing.
#include "report/wording.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <limits>

#include "culprit/core/cgroup_place.hpp"
#include "culprit/core/size.hpp"
#include "culprit/core/time.hpp"

namespace culprit::report {

namespace dv = diagnose::verdict;

std::string oom_parts_title(const diagnose::OomReportParts& parts) {
  if (parts.notes.empty()) return {};
  return "Kernel OOM report" + (parts.host.empty() ? std::string() : " on " + parts.host) + ": parts missing";
}

std::string verdict_label(std::string_view id) {
  if (id == dv::kCudaOom) return "CUDA OOM";
  if (id == dv::kKernelOom) return "Host kernel OOM";
  if (id == dv::kCgroupOom) return "cgroup OOM";
  if (id == dv::kUserspaceOomKill) return "User-space OOM kill";
  if (id == dv::kHostAllocFail) return "Host allocation failure";
  if (id == dv::kNotOom) return "Not an OOM";
  if (id == dv::kUnknown || id.empty()) return "Unknown";
  return std::string(id);
}

bool is_oom_verdict(std::string_view id) {
  return id == dv::kCudaOom || id == dv::kKernelOom || id == dv::kCgroupOom ||
         id == dv::kUserspaceOomKill || id == dv::kHostAllocFail;
}

std::string size_text(std::int64_t bytes) {
  if (bytes >= 0) return core::format_size(bytes);
  if (bytes == std::numeric_limits<std::int64_t>::min()) bytes += 1;  // cannot negate
  return "-" + core::format_size(-bytes);
}

std::string size_text(const std::optional<std::int64_t>& bytes) {
  return bytes ? size_text(*bytes) : std::string("—");
}

std::string iso_time(const std::optional<double>& ts) {
  return ts ? core::format_iso(*ts) : std::string();
}

std::string formats_text(const diagnose::SourceSummary& s) {
  std::string out;
  for (const auto& f : s.formats) out += (out.empty() ? "" : ",") + f;
  return out.empty() ? s.format : out;
}

std::string short_time(const std::optional<double>& ts) {
  if (!ts) return {};
  std::string iso = core::format_iso(*ts);  // 2026-04-09T00:47:13.000Z
  if (iso.size() >= 20 && iso[10] == 'T') {
    iso[10] = ' ';
    return iso.substr(0, 19) + "Z";
  }
  return iso;
}

std::string role_value(std::string_view role) {
  // `kernel` (page cache, shmem, slab) and `host` (CPU processes of a unified pool) are holders'
  // roles in a ledger; a process's role is one of the first two or unknown.
  if (role == "job" || role == "foreign" || role == "kernel" || role == "host") return std::string(role);
  return "unknown";
}

std::string role_text(std::string_view role) {
  const std::string value = role_value(role);
  return value == "unknown" ? "role unknown" : value;
}

std::string unnamed_process(std::string_view role) {
  if (role == "job") return "the job itself";
  return role == "foreign" ? "another process" : "unknown process";
}

namespace {

/// How a runtime calls itself in a phrase (`Docker container …`); ids are core/cgroup_place.hpp's.
std::string_view runtime_word(std::string_view runtime) {
  if (runtime == core::runtime::kDocker) return "Docker";
  if (runtime == core::runtime::kPodman) return "Podman";
  if (runtime == core::runtime::kContainerd) return "containerd";
  if (runtime == core::runtime::kCrio) return "CRI-O";
  return {};
}

}  // namespace

std::string place_phrase(const diagnose::ProcessPlace& p) {
  std::string out;
  if (p.nspid) out = fmt::format("pid {}", *p.nspid);
  if (!p.container_name.empty()) {
    out += fmt::format("{}in container {}", out.empty() ? "" : " ", p.container_name);
  } else if (!p.container_id.empty()) {
    const std::string_view word = runtime_word(p.runtime);
    out += fmt::format("{}in {}{}container {}", out.empty() ? "" : " ", word, word.empty() ? "" : " ",
                       p.container_id.substr(0, 12));
  } else if (p.nspid) {
    out += " in another pid namespace";
  }
  if (!p.pod_name.empty()) {
    out += fmt::format("{}pod {}{}", out.empty() ? "" : ", ",
                       p.pod_namespace.empty() ? "" : p.pod_namespace + "/", p.pod_name);
  } else if (!p.pod_uid.empty()) {
    out += fmt::format("{}pod uid {}", out.empty() ? "" : ", ", p.pod_uid);
  }
  if (!p.gone.empty()) out += (out.empty() ? "" : "; ") + p.gone;
  return out;
}

std::string process_phrase(const diagnose::ProcessRef& p, std::string_view here, bool with_role) {
  std::string out;
  if (p.pid) out = fmt::format("pid {}", *p.pid);
  // Its place right after the host's pid: `pid 48211 (pid 1 in container vllm-embeddings) python3`.
  if (p.pid && p.place)
    if (const std::string place = place_phrase(*p.place); !place.empty()) out += " (" + place + ")";
  if (!p.name.empty()) {
    if (!out.empty()) out += ' ';
    out += p.name;
  }
  // Nothing names the process: for the job that is "the job itself" (its own error, no pid).
  if (out.empty()) {
    if (p.role == "job") return unnamed_process(p.role) + ((!here.empty() && !p.host.empty() && p.host != here) ? " on " + p.host : "");
    out = unnamed_process(p.role);
  }
  if (!here.empty() && !p.host.empty() && p.host != here) out += " on " + p.host;
  if (with_role) out += " (" + role_text(p.role) + ")";
  return out;
}

std::string incident_host(const diagnose::Verdict& v) {
  if (v.root && !v.root->host.empty()) return v.root->host;
  if (v.culprit && !v.culprit->host.empty()) return v.culprit->host;
  if (v.budget && !v.budget->host.empty()) return v.budget->host;
  if (v.victim && !v.victim->host.empty()) return v.victim->host;
  return {};
}

std::string where_phrase(const diagnose::Verdict& v) {
  std::string host = incident_host(v);
  if (v.budget && v.budget->gpu && (v.budget->host.empty() || v.budget->host == host)) {
    return host.empty() ? fmt::format("GPU {}", *v.budget->gpu)
                        : fmt::format("{} GPU {}", host, *v.budget->gpu);
  }
  return host;
}

bool victim_differs(const diagnose::Verdict& v) {
  if (!v.victim) return false;
  if (!v.culprit) return true;
  const auto& a = *v.culprit;
  const auto& b = *v.victim;
  if (!a.host.empty() && !b.host.empty() && a.host != b.host) return true;
  if (a.pid && b.pid) return *a.pid != *b.pid;
  if (!a.name.empty() && !b.name.empty()) return a.name != b.name;
  // One of them is known by neither pid nor name: a culprit that is the job as a whole holds its
  // own victim; an unnamed foreign or unknown holder is another process than the job's victim.
  return a.role != "job";
}

namespace {

std::string grouped(std::int64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  const std::size_t start = digits[0] == '-' ? 1 : 0;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > start && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

std::string event_time_text(const diagnose::TimelineEvent& e) {
  if (e.ts) return core::format_iso(*e.ts);
  if (e.ts_kind == "boot" && e.ts_value) return fmt::format("boot+{:.1f}s", *e.ts_value);
  if (!e.ts_raw.empty() && e.ts_kind != "none") return e.ts_raw;
  return fmt::format("line {}", e.line);
}

std::string event_process_text(const diagnose::TimelineEvent& e) {
  std::string out;
  if (e.pid) out = fmt::format("pid {}", *e.pid);
  if (!e.comm.empty()) out += (out.empty() ? "" : " ") + e.comm;
  if (e.rank) out += (out.empty() ? "" : ", ") + fmt::format("rank {}", *e.rank);
  return out;
}

std::string event_location(const diagnose::TimelineEvent& e) {
  std::string out = e.source.empty() ? std::string("?") : e.source;
  if (e.line > 0) out += fmt::format(":{}", e.line);
  return out;
}

std::vector<std::size_t> events_around_failure(const std::vector<diagnose::TimelineEvent>& events,
                                               std::size_t max) {
  std::vector<std::size_t> picked;
  if (max == 0 || events.empty()) return picked;
  std::vector<bool> taken(events.size(), false);
  auto take = [&](std::size_t i) {
    if (taken[i] || picked.size() >= max) return;
    taken[i] = true;
    picked.push_back(i);
  };
  std::optional<std::size_t> root;
  for (std::size_t i = 0; i < events.size(); ++i)
    if (events[i].mark == "root" && !root) root = i;
  if (!root) {
    for (std::size_t i = events.size() > max ? events.size() - max : 0; i < events.size(); ++i) take(i);
  } else {
    take(*root);
    std::size_t echoes = 0;
    for (std::size_t i = 0; i < events.size() && echoes < max / 2; ++i)
      if (events[i].mark == "echo") take(i), ++echoes;
    for (std::size_t d = 1; picked.size() < max && (d <= *root || *root + d < events.size()); ++d) {
      if (d <= *root) take(*root - d);
      if (*root + d < events.size()) take(*root + d);
    }
  }
  std::sort(picked.begin(), picked.end());
  return picked;
}

std::string clock_text(const diagnose::HostClock& h) {
  if (h.method.empty() && (h.confidence.empty() || h.confidence == "none")) return "not aligned";
  std::string out = h.method.empty() ? std::string("aligned") : h.method;
  if (!h.confidence.empty()) out += " (" + h.confidence + ")";
  return out;
}

std::string nothing_found_phrase(const diagnose::Verdict& v) {
  if (v.sources.empty()) return "no failure recognised (no sources were read)";
  std::int64_t lines = 0;
  for (const auto& s : v.sources) lines += s.lines;
  return fmt::format("no failure recognised in {} source{} ({} line{})", v.sources.size(),
                     v.sources.size() == 1 ? "" : "s", grouped(lines), lines == 1 ? "" : "s");
}

Headline headline(const diagnose::Verdict& v) {
  Headline h;
  h.confidence = diagnose::to_string(v.confidence);
  if (v.verdict == dv::kUnknown && !v.root && !v.culprit) {
    h.lead = "Unknown — " + nothing_found_phrase(v);
    return h;
  }
  h.lead = verdict_label(v.verdict);
  if (!is_oom_verdict(v.verdict) && v.root && !v.root->title.empty()) h.lead += ": " + v.root->title;
  const std::string host = incident_host(v);
  if (const std::string where = where_phrase(v); !where.empty()) h.lead += " on " + where;
  if (v.root) {
    h.when = short_time(v.root->ts);
  }
  if (v.culprit) {
    h.culprit = process_phrase(*v.culprit, host);
    h.culprit_process = *v.culprit;
    h.host = host;
  } else if (is_oom_verdict(v.verdict)) {
    h.culprit = "culprit unknown";
  }
  if (victim_differs(v)) h.victim = process_phrase(*v.victim, host, false);
  h.victim_word = victim_word(v);
  return h;
}

const char* victim_word(const diagnose::Verdict& v) {
  return v.verdict == diagnose::verdict::kCudaOom ? "failed" : "killed";
}

std::string headline_body(const Headline& h, bool with_victim) {
  std::string body = h.lead;
  if (!h.when.empty()) body += " at " + h.when;
  if (!h.culprit.empty()) body += " — " + h.culprit;
  if (with_victim && !h.victim.empty()) body += "; " + h.victim_word + ": " + h.victim;
  return body;
}

std::string headline_confidence(const Headline& h) { return "[" + h.confidence + "]"; }

std::vector<LedgerRow> ledger_rows(const diagnose::Budget& b) {
  std::vector<LedgerRow> rows;
  auto entry_of = [&](std::string_view role) -> const diagnose::LedgerEntry* {
    for (const auto& e : b.entries)
      if (e.role == role) return &e;
    return nullptr;
  };
  auto scalar = [&](const char* label, std::optional<std::int64_t> value, bool share) {
    if (!value) {
      if (const auto* e = entry_of(label)) value = e->bytes;
    }
    if (value) rows.push_back({label, label, std::nullopt, value, share});
  };
  auto holders = [&](std::string_view role, const char* fallback_label,
                     const std::optional<std::int64_t>& fallback) {
    bool any = false;
    for (const auto& e : b.entries) {
      const bool match = role == "unknown"
                             ? (e.role != "job" && e.role != "foreign" && e.role != "free" &&
                                e.role != "requested" && e.role != "total" && e.role != "rest" &&
                                e.label != "unexplained" && e.label != "shortfall")
                             : e.role == role;
      if (!match) continue;
      std::string label = e.label;
      if (label.empty()) label = e.pid ? fmt::format("{} pid {}", e.role, *e.pid) : e.role;
      rows.push_back({label, e.role, e.pid, e.bytes, true});
      any = true;
    }
    if (!any && fallback_label && fallback) rows.push_back({fallback_label, std::string(role), {}, fallback, true});
  };

  scalar("total", b.total, false);
  scalar("free", b.free, true);
  scalar("requested", b.requested, false);
  std::optional<std::int64_t> shortfall = b.shortfall;
  if (!shortfall && b.requested && b.free) shortfall = *b.requested - *b.free;
  if (shortfall) rows.push_back({"shortfall", "shortfall", {}, shortfall, false});
  holders("job", "job", b.job);
  holders("foreign", "foreign", b.foreign);
  holders("unknown", nullptr, std::nullopt);
  // Unexplained: the scalar, labelled by the `rest` entry when there is one (it says why).
  std::optional<std::int64_t> unexplained = b.unexplained;
  std::string rest_label = "unexplained";
  for (const auto& e : b.entries) {
    if (e.role != "rest" && e.label != "unexplained") continue;
    if (!e.label.empty()) rest_label = e.label;
    if (!unexplained) unexplained = e.bytes;
    break;
  }
  if (unexplained) rows.push_back({rest_label, "rest", {}, unexplained, true});
  if (b.torch_allocated) rows.push_back({"framework allocated", "torch", {}, b.torch_allocated, false});
  if (b.torch_reserved) rows.push_back({"framework reserved", "torch", {}, b.torch_reserved, false});
  return rows;
}

std::string share_text(std::int64_t bytes, const std::optional<std::int64_t>& total) {
  if (!total || *total <= 0 || bytes < 0) return {};  // a negative rest is no share of anything
  return fmt::format("{:.1f}%", 100.0 * static_cast<double>(bytes) / static_cast<double>(*total));
}

std::vector<const diagnose::Finding*> other_findings(const diagnose::Verdict& v) {
  auto same = [](const diagnose::Finding& a, const diagnose::Finding& b) {
    return a.rule == b.rule && a.event_id == b.event_id && a.host == b.host && a.title == b.title;
  };
  std::vector<const diagnose::Finding*> out;
  for (const auto& f : v.findings) {
    if (v.root && same(f, *v.root)) continue;
    bool echo = false;
    for (const auto& e : v.echoes) echo = echo || same(f, e);
    if (!echo) out.push_back(&f);
  }
  return out;
}

}  // namespace culprit::report
