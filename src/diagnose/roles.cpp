// Role assignment. A pid the job's own logs name is `job`. A GPU holder that is not is
// `foreign` only on positive evidence — it runs another framework than the job, its container
// predates the job, a `ps` listing shows it runs as another user, is stopped, or started before
// the job, or a snapshot lists it still holding after the job's processes died — and `unknown`
// otherwise (confidence drops rather than guessing); its pid missing from the job's known pids is
// never evidence. role_why carries every reason. A holder that is a leftover (leftover.hpp:
// defunct, stopped, an orphaned engine worker, a name nvidia-smi cannot read) is foreign for that
// reason too, and processes.leftover says why. A container runtime or orchestration daemon
// (infrastructure.hpp) is never the job's workload: `foreign`, its why saying what it is.
// Pure over RoleFacts (load.cpp reads them); assign_roles (load.cpp) writes the decisions.
#include "roles.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "culprit/core/job_evidence.hpp"
#include "culprit/core/size.hpp"
#include "culprit/core/time.hpp"
#include "infrastructure.hpp"
#include "leftover.hpp"
#include "placement.hpp"

namespace culprit::diagnose {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string human_framework(const std::string& f) {
  if (f == "sglang") return "SGLang";
  if (f == "vllm") return "vLLM";
  if (f == "torchrun") return "torchrun";
  if (f == "deepspeed") return "DeepSpeed";
  if (f == "jax") return "JAX";
  if (f == "tensorflow") return "TensorFlow";
  if (f == "ray") return "Ray";
  if (f == "ollama") return "Ollama";
  if (f == "llama.cpp") return "llama.cpp";
  return f;
}

std::string duration(double seconds) {
  if (seconds >= 86400 * 2) return fmt::format("{} days", static_cast<long>(seconds / 86400));
  if (seconds >= 7200) return fmt::format("{} hours", static_cast<long>(seconds / 3600));
  if (seconds >= 120) return fmt::format("{} minutes", static_cast<long>(seconds / 60));
  return fmt::format("{} seconds", static_cast<long>(seconds));
}

/// Reasons from `ps` for holder `h`: another user than every job process on its host, a stopped
/// state (`T`, `t`), or a start well before the job (its first event, or its processes' own
/// start / elapsed times in ps). Appends human-readable reasons.
void ps_reasons(const RoleFacts& facts, const RoleFacts::Holder& h, std::vector<std::string>& reasons) {
  constexpr double kMargin = 300;  // a job's processes start up to minutes before they log
  // The job `culprit run` started has an exact start; ps's lstart is cut to the second, so a
  // holder listed more than a second before it started before it.
  constexpr double kExactMargin = 1;
  std::set<std::string> job_users;
  std::optional<double> job_start, job_elapsed, exact_start;
  for (const auto& j : facts.job_processes) {
    if (j.host != h.host) continue;
    if (!j.user.empty()) job_users.insert(j.user);
    if (j.started && j.evidence == core::job_evidence::kCulpritRun)
      exact_start = exact_start ? std::min(*exact_start, *j.started) : *j.started;
    if (j.started && (!job_start || *j.started < *job_start)) job_start = j.started;
    if (j.elapsed && (!job_elapsed || *j.elapsed > *job_elapsed)) job_elapsed = j.elapsed;
  }
  // `ps aux` cuts long user names to 7 characters and a `+` (`svc-infe+`): compare the prefix.
  auto same_user = [](const std::string& a, const std::string& b) {
    if (a == b) return true;
    const bool cut_a = !a.empty() && a.back() == '+', cut_b = !b.empty() && b.back() == '+';
    if (cut_a && b.compare(0, a.size() - 1, a, 0, a.size() - 1) == 0) return true;
    return cut_b && a.compare(0, b.size() - 1, b, 0, b.size() - 1) == 0;
  };
  bool known_user = false;
  for (const auto& j : job_users) known_user = known_user || same_user(h.user, j);
  if (!h.user.empty() && !job_users.empty() && !known_user)
    reasons.push_back(fmt::format("runs as user {}, the job's processes as {} (ps)", h.user, fmt::join(job_users, ", ")));
  if (!h.state.empty() && (h.state[0] == 'T' || h.state[0] == 't'))
    reasons.push_back(fmt::format("stopped (ps state {}) while holding GPU memory", h.state));
  std::optional<double> job_begin = facts.job_t0;
  if (job_start && (!job_begin || *job_start < *job_begin)) job_begin = job_start;
  if (h.started && exact_start && *h.started < *exact_start - kExactMargin) {
    reasons.push_back(fmt::format("started at {} (ps), {} before the job `culprit run` started",
                                  core::format_iso(*h.started).substr(0, 19), duration(*exact_start - *h.started)));
  } else if (h.started && job_begin && *h.started < *job_begin - kMargin) {
    reasons.push_back(fmt::format("started by {} (ps), {} before the job's first sign of life",
                                  core::format_iso(*h.started).substr(0, 16), duration(*job_begin - *h.started)));
  } else if (h.elapsed && job_elapsed && *h.elapsed > *job_elapsed + kMargin) {
    reasons.push_back(fmt::format("had run {} when ps listed it, the job's processes {} — it predates the job",
                                  duration(*h.elapsed), duration(*job_elapsed)));
  }
}

/// The reason a snapshot taken after the job's end proves (RoleFacts::Holder::outlived): the end
/// is cited where the job's output says it (file:line), not quoted — its line may be long.
std::string outlived_reason(const RoleFacts::Holder::Outlived& o) {
  return fmt::format("still held {} at {}, after the job's processes had died ({}, {}:{})",
                     o.bytes ? core::format_size(*o.bytes) : std::string("GPU memory"),
                     core::format_iso(o.seen_ts).substr(11, 8), core::format_iso(o.end_ts).substr(11, 8), o.source,
                     o.line);
}

}  // namespace

std::string framework_of(std::string_view text) {
  const std::string t = lower(text);
  if (t.find("sglang") != std::string::npos) return "sglang";
  if (t.find("vllm") != std::string::npos) return "vllm";
  if (t.find("deepspeed") != std::string::npos) return "deepspeed";
  if (t.find("torchrun") != std::string::npos || t.find("torch.distributed.elastic") != std::string::npos ||
      t.find("torch/distributed/elastic") != std::string::npos)
    return "torchrun";
  if (t.find("jaxlib") != std::string::npos || t.find("xla") != std::string::npos) return "jax";
  if (t.find("tensorflow") != std::string::npos) return "tensorflow";
  if (t.find("ollama") != std::string::npos) return "ollama";
  if (t.find("llama.cpp") != std::string::npos || t.find("llama-server") != std::string::npos) return "llama.cpp";
  if (t.find("ray::") != std::string::npos || t.find("raylet") != std::string::npos) return "ray";
  return {};
}

std::vector<RoleDecision> decide_roles(const RoleFacts& facts) {
  std::vector<RoleDecision> out;
  for (const auto& n : facts.infrastructure)
    out.push_back({n.host, n.pid, "foreign",
                   fmt::format("infrastructure: {}, not the job's workload", infrastructure_what(n.name)), "", ""});

  // The job's frameworks: what the job's own logs and failures talk about, per host ('' = any).
  std::map<std::string, std::set<std::string>> job_frameworks;
  for (const auto& t : facts.job_texts) {
    const std::string f = framework_of(t.text);
    if (f.empty()) continue;
    job_frameworks[t.host].insert(f);
    job_frameworks[""].insert(f);
  }
  for (const auto& h : facts.holders) {
    LeftoverFacts lf;
    lf.names = h.names;
    lf.cmdline = h.cmdline;
    lf.state = h.state;
    lf.ppid = h.ppid;
    lf.gpu_listed = h.gpu_listed;
    lf.pid1_name = h.pid1_name;
    lf.driver_frame = h.driver_frame;
    const std::vector<std::string> leftover = leftover_reasons(lf);
    if (!h.gpu_listed && leftover.empty()) continue;  // not a GPU holder: its role stays as it is
    std::string names;
    for (const auto& n : h.names) names += n + " ";
    std::vector<std::string> reasons;
    std::string container;
    const std::string fw = framework_of(names + h.cmdline);
    const auto found = job_frameworks.find(h.host);
    const std::set<std::string> none;
    const auto& jobs_here = found != job_frameworks.end() ? found->second
                            : job_frameworks.count("") ? job_frameworks.at("") : none;
    // Reasons that prove the holder is not the job's; a note (the container it runs in) only
    // says where it is. "Its pid is not among the job's known pids" is never a reason: the
    // inputs rarely name every process of a job.
    bool proven = false;
    if (!fw.empty() && !jobs_here.empty() && !jobs_here.count(fw)) {
      proven = true;
      std::vector<std::string> job_names;
      for (const auto& j : jobs_here) job_names.push_back(human_framework(j));
      reasons.push_back(fmt::format("a {} process, while the job runs {}", human_framework(fw),
                                    fmt::join(job_names, "/")));
    }
    // Link to a container that runs the same framework on this host (exactly one).
    const RoleFacts::Container* match = nullptr;
    int matches = 0;
    for (const auto& c : facts.containers) {
      if (c.host != h.host) continue;
      if (!fw.empty() && framework_of(c.name + " " + c.image + " " + c.command) == fw) {
        match = &c;
        ++matches;
      }
    }
    // Its recorded cgroup names its container: that row, whatever it runs (placement.hpp).
    if (!h.container_id.empty()) {
      match = nullptr;
      matches = 0;
      for (const auto& c : facts.containers)
        if (c.host == h.host && listed_id_matches(c.id, h.container_id)) {
          // `docker ps` and `docker inspect` list it twice: one container; the row with an uptime.
          if (!match) match = &c, matches = 1;
          else if (match->name != c.name) ++matches;
          else if (!match->up_seconds && c.up_seconds) match = &c;
        }
    }
    if (match && matches == 1) {
      container = match->name;
      std::string why = fmt::format("runs in container {}", container);
      if (match->up_seconds && facts.job_age && *match->up_seconds > *facts.job_age + 60) {
        why += fmt::format(", up {} — it predates the job", duration(*match->up_seconds));
        proven = true;
      } else {
        why += fmt::format(" ({})", match->status);
      }
      reasons.push_back(why);
    }
    // What a `ps` listing says (another user, stopped, started before the job): each is a
    // reason on its own.
    const std::size_t before_ps = reasons.size();
    ps_reasons(facts, h, reasons);
    for (const auto& l : leftover)  // defunct, orphaned, unnamed (stopped is one of ps_reasons too)
      if (std::find(reasons.begin(), reasons.end(), l) == reasons.end()) reasons.push_back(l);
    proven = proven || reasons.size() > before_ps;
    // Still holding after the job's processes died (a snapshot taken after the job's end on this
    // host, which the job's own output proves): the job's memory went with them, so what is
    // still held is another program's.
    if (h.outlived) {
      reasons.push_back(outlived_reason(*h.outlived));
      proven = true;
    }
    const std::string role = proven ? "foreign" : "unknown";
    const std::string why = proven ? fmt::format("{}", fmt::join(reasons, "; "))
                                   : fmt::format("holds GPU memory; no log says whose it is{}",
                                                 reasons.empty() ? std::string() : fmt::format(" ({})", fmt::join(reasons, "; ")));
    out.push_back({h.host, h.pid, role, why, fmt::format("{}", fmt::join(leftover, "; ")), container});
  }
  return out;
}

}  // namespace culprit::diagnose
