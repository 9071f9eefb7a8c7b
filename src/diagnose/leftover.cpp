// Leftover GPU holders (see leftover.hpp). The signs, and why each one means "nothing will free
// this memory by itself":
//   defunct   ps STAT `Z` or `<defunct>`: it exited, its parent never reaped it, and the driver
//             still lists its memory (nvidia-smi then cannot read its name either);
//   stopped   STAT `T` / `t`: SIGSTOP / Ctrl-Z / a debugger; it keeps its memory while stopped;
//   orphaned  an engine worker with PPID 1: its server is gone (a worker re-parents to init when
//             the server dies without taking it down). PPID 1 alone is no sign for other
//             programs (daemons, `nohup` runs), nor where pid 1 is not an init — in a container
//             whose entrypoint (`vllm serve`) is pid 1 its workers have PPID 1 by design;
//   unnamed   nvidia-smi prints `Unknown Error` / `Not Found` for the name (nvmlErrorString when
//             it cannot read /proc/PID of the process).
// A kernel stack in the nvidia modules adds "stuck in the NVIDIA driver" to an orphan's reasons.
#include "leftover.hpp"

#include <fmt/format.h>

namespace culprit::diagnose {
namespace {

using Sv = std::string_view;

bool starts(Sv s, Sv p) { return s.substr(0, p.size()) == p; }

/// The names init processes run under (host and container inits): an orphan's new parent.
bool init_name(Sv n) {
  for (Sv i : {"init", "systemd", "tini", "tini-static", "dumb-init", "docker-init", "catatonit", "s6-svscan",
               "runit", "runsvdir", "openrc-init", "launchd"})
    if (n == i) return true;
  return false;
}

}  // namespace

bool engine_gpu_worker(Sv n) {
  // vLLM sets these process titles (vllm/utils: bind_process_name, `VLLM::` prefix since 0.9);
  // older releases name workers by class in their log prefixes (VllmWorker, EngineCore_DP0).
  for (Sv p : {"VLLM::EngineCore", "VLLM::Worker", "VLLM::EngineCor", "VllmWorker", "EngineCore_", "sglang::scheduler",
               "ray::RayWorker", "ray::WorkerWrapper"})
    if (starts(n, p)) return true;
  return n == "EngineCore";
}

bool unnamed_by_nvidia_smi(Sv n) { return n == "Unknown Error" || n == "Not Found" || n == "[Not Found]"; }

std::vector<std::string> leftover_reasons(const LeftoverFacts& p) {
  std::vector<std::string> out;
  const bool defunct = (!p.state.empty() && p.state[0] == 'Z') || p.cmdline.find("<defunct>") != std::string::npos;
  std::string unnamed, worker;
  for (const auto& n : p.names) {
    if (unnamed.empty() && unnamed_by_nvidia_smi(n)) unnamed = n;
    if (worker.empty() && engine_gpu_worker(n)) worker = n;
  }
  const bool orphaned = p.ppid && *p.ppid == 1 && !worker.empty() && (!p.pid1_name || init_name(*p.pid1_name));
  if (!p.gpu_listed && !orphaned) return out;  // nothing says it holds a GPU
  if (defunct) out.push_back(fmt::format("defunct (ps state {}): it exited but was never reaped", p.state.empty() ? "Z" : p.state));
  if (!p.state.empty() && (p.state[0] == 'T' || p.state[0] == 't'))
    out.push_back(fmt::format("stopped (ps state {}) while holding GPU memory", p.state));
  if (orphaned) {
    std::string why = fmt::format("{} re-parented to init (PPID 1): the server that started it is gone", worker);
    if (!p.driver_frame.empty()) why += fmt::format(", and it is stuck in the NVIDIA driver ({})", p.driver_frame);
    out.push_back(why);
  }
  if (!unnamed.empty())
    out.push_back(fmt::format("nvidia-smi cannot read its name (`{}`): the process is defunct or not visible here", unnamed));
  return out;
}

}  // namespace culprit::diagnose
