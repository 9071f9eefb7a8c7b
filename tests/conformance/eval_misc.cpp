// Evaluators for line-level reads (gpud's /dev/kmsg records, NPD's syslog translator), exception
// classification (pytorch/tnt) and NPD's problem classes.
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "conformance/evaluators.hpp"
#include "ingest/formats/kernel_stamp.hpp"
#include "ingest/formats/line_prefix.hpp"

namespace culprit::conformance {
namespace {

std::string b(bool v) { return v ? "true" : "false"; }

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i <= text.size()) {
    std::size_t j = text.find('\n', i);
    if (j == std::string::npos) j = text.size();
    std::string line = text.substr(i, j - i);
    while (!line.empty() && line.back() == '\r') line.pop_back();
    out.push_back(line);
    if (j == text.size()) break;
    i = j + 1;
  }
  return out;
}

std::string usec(const ingest::kernel::KernelLine& kl) {
  if (!kl.ts_value) return "(none)";
  return std::to_string(static_cast<std::int64_t>(std::llround(*kl.ts_value * 1e6)));
}

/// Culprit's class of an event in NPD's terms, or "".
std::string npd_class(const core::Event& e) {
  if ((e.kind == core::kind::kKernelOom || e.kind == core::kind::kOomKill) && victim_pid(e)) return "OOMKilling";
  if (e.rule == "kernel_hung_task") return "TaskHung";
  if (e.rule == "kernel_oops") return "KernelOops";
  return "";
}

bool known_npd_reason(const std::string& r) {
  return r == "OOMKilling" || r == "TaskHung" || r == "DockerHung" || r == "KernelOops";
}

}  // namespace

void ev_kmsg(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  using ingest::kernel::parse_kernel_line;
  if (key == "all_parse") {
    bool all = true;
    for (const auto& line : lines_of(ctx.text))
      if (!line.empty()) all = all && parse_kernel_line(line, 0).kmsg;
    compare(out, key, want.show(), b(all), "");
    return;
  }
  std::string line = lines_of(ctx.text).front();
  auto kl = parse_kernel_line(line, 0);
  constexpr std::string_view kNot = "(not a kmsg record)";
  if (key == "error") {
    compare(out, key, want.is_null() ? "false" : want.show(), b(!kl.kmsg), "");
  } else if (key == "priority") {
    compare(out, key, want.show(), kl.kmsg && kl.kmsg_priority ? std::to_string(*kl.kmsg_priority) : std::string(kNot), "");
  } else if (key == "sequence") {
    compare(out, key, want.show(), kl.kmsg && kl.kmsg_seq ? std::to_string(*kl.kmsg_seq) : std::string(kNot), "");
  } else if (key == "timestamp") {
    // "boot_time + 102258085667 us"
    std::string w = want.show();
    std::size_t plus = w.find("+ ");
    std::string peer = plus == std::string::npos ? w : w.substr(plus + 2, w.find(' ', plus + 2) - plus - 2);
    compare(out, key, peer, kl.kmsg ? usec(kl) : std::string(kNot), "");
  } else if (key == "message") {
    compare(out, key, want.show(), kl.kmsg ? std::string(kl.message) : std::string(kNot), "");
  }
}

void ev_tnt(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  bool cuda = false, cpu = false;
  for (const auto& e : ctx.facts.events) {
    cuda = cuda || e.kind == core::kind::kCudaOom;
    cpu = cpu || e.kind == core::kind::kHostAllocFail;
  }
  bool got = key == "is_out_of_cpu_memory" ? cpu : key == "is_out_of_cuda_memory" ? cuda : (cpu || cuda);
  compare(out, key, want.show(), b(got), "");
}

void ev_npd_rules(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  // Peer reasons (one per reason; the same rule is shipped in two configs) and their lines.
  std::map<std::string, std::int64_t> peer;
  for (const auto& m : want.items) peer.emplace(m.text("reason"), m.find("line") ? m.find("line")->as_int().value_or(0) : 0);
  std::set<std::string> got;
  for (const auto& e : ctx.facts.events)
    if (auto c = npd_class(e); !c.empty()) got.insert(c);
  std::set<std::string> peer_known;
  for (const auto& [reason, line] : peer) {
    if (!known_npd_reason(reason)) {
      put(out, key + "." + reason, Status::not_applicable, fmt::format("line {}", line), "",
          "n/a: not one of culprit's classes (OOM kill, hung task, oops)");
      continue;
    }
    std::string cls = reason == "DockerHung" ? "TaskHung" : reason;
    peer_known.insert(cls);
    std::string found = "no";
    for (const auto& e : ctx.facts.events)
      if (npd_class(e) == cls && e.line <= line && line <= std::max(e.line, e.line_end)) found = fmt::format("line {}", line);
    compare(out, key + "." + reason, fmt::format("line {}", line), found == "no" ? "not classed" : found, "");
  }
  // Classes culprit gave that the peer did not.
  std::vector<std::string> extra;
  for (const auto& c : got)
    if (!peer_known.count(c)) extra.push_back(c);
  if (peer_known.empty() || !extra.empty())
    compare(out, key + " (no other class)", "none", extra.empty() ? "none" : join(extra), "");
}

void ev_npd_counter(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  for (const auto& [reason, n] : want.members) {
    if (!known_npd_reason(reason)) {
      put(out, key + "." + reason, Status::not_applicable, n.show(), "", "n/a: not one of culprit's classes");
      continue;
    }
    std::int64_t count = 0;
    for (const auto& e : ctx.facts.events) {
      std::string c = npd_class(e);
      if (reason == "DockerHung") count += c == "TaskHung" && e.comm == "docker";
      else count += c == reason;
    }
    compare(out, key + "." + reason, n.show(), std::to_string(count), "");
  }
}

void ev_npd_translator(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  std::string line = lines_of(ctx.text).front();
  std::string stamp, message;
  if (line.rfind("time=\"", 0) == 0) {  // a logrus line, not a kernel one: culprit's app-log reading
    auto peeled = ingest::peel_line(line);
    stamp = peeled.time.raw;
    message = peeled.message;
  } else {
    auto kl = ingest::kernel::parse_kernel_line(line, 0);
    stamp = std::string(kl.ts_raw);
    message = std::string(kl.message);
  }
  if (key == "timestamp") {
    std::string w = want.show();
    compare(out, key, w.substr(0, w.find(',')), stamp, "");
  } else {
    compare(out, key, want.show(), message, "");
  }
}

}  // namespace culprit::conformance
