// job_end_event: the manifest's job record as one event. Its message says the end in words; its
// fields carry it for the rules' SQL.
#include "api/job_end.hpp"

#include <fmt/format.h>

#include <utility>

#include "culprit/core/job_output.hpp"
#include "culprit/core/signal_name.hpp"
#include "culprit/text/lines.hpp"

namespace culprit::api {
namespace {

/// The longest command line an event keeps (a job's argument list can be pages long).
constexpr std::size_t kMaxCommandBytes = 300;

/// The line of `text` (1-based) where `needle` first appears; 1 when it does not.
std::int64_t line_of(std::string_view text, std::string_view needle) {
  const std::size_t at = text.find(needle);
  if (at == std::string_view::npos) return 1;
  return 1 + static_cast<std::int64_t>(text::count_newlines(text.substr(0, at)));
}

/// `SIGKILL` for 9 (Linux numbering, as the manifest's machine had it); `signal N` when unnamed.
std::string signal_name(int signal) {
  const std::string_view name = core::signal_name(signal);
  return name.empty() ? fmt::format("signal {}", signal) : std::string(name);
}

}  // namespace

std::optional<core::Event> job_end_event(const Manifest& m, std::string_view manifest_name,
                                         std::string_view manifest_text, const std::string& host,
                                         std::int64_t source_id) {
  if (!m.job || (m.job->signal <= 0 && m.job->exit_code < 0)) return std::nullopt;
  const JobRecord& job = *m.job;
  core::Event e;
  e.source_id = source_id;
  e.line = e.line_end = line_of(manifest_text, "\"job\"");
  e.host = host;
  e.pid = job.pid;
  e.kind = core::kind::kJobEnd;
  e.rule = "culprit_run";
  if (const double at = job.ended > 0 ? job.ended : m.taken; at > 0) {
    e.ts = at;
    e.ts_raw = iso_utc(at, true);  // UTC, zoned: clock alignment leaves it as it is
    e.ts_kind = core::TsKind::wall;
  }
  std::string command;
  for (const auto& a : job.command) command += (command.empty() ? "" : " ") + a;
  if (command.size() > kMaxCommandBytes) command.replace(kMaxCommandBytes, std::string::npos, "…");
  if (!job.command.empty()) {
    const std::string& exe = job.command[0];
    e.comm = exe.substr(exe.rfind('/') == std::string::npos ? 0 : exe.rfind('/') + 1);
  }
  if (job.signal > 0) {
    e.severity = core::Severity::error;
    e.set_int("signal", job.signal);
    e.set("signal_name", signal_name(job.signal));
    e.message = fmt::format("`{}` (pid {}) was ended by {}", command, job.pid, signal_name(job.signal));
  } else {
    e.severity = job.exit_code == 0 ? core::Severity::info : core::Severity::error;
    e.set_int("exitcode", job.exit_code);
    e.message = fmt::format("`{}` (pid {}) exited with status {}", command, job.pid, job.exit_code);
  }
  e.set("kernel_log", m.kernel_log.empty() ? "unknown" : m.kernel_log);
  e.set("command", command);
  if (!job.user.empty()) e.set("user", job.user);
  // The job's output files lie beside the manifest: the same name up to its base name.
  const std::string_view folder = manifest_name.substr(0, manifest_name.size() - kManifestName.size());
  e.set("stdout", fmt::format("{}{}", folder, core::job_output::kStdout));
  e.set("stderr", fmt::format("{}{}", folder, core::job_output::kStderr));
  return e;
}

}  // namespace culprit::api
