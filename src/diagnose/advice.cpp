// Advice for a CUDA OOM's culprit: a foreign holder to stop, an unknown one to identify, or the
// job's own footprint, in its framework's words and with the memory settings its logs show.
#include "advice.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <vector>

#include "culprit/core/container_name.hpp"
#include "culprit/core/facts.hpp"
#include "culprit/core/size.hpp"
#include "ledger_model.hpp"
#include "phrases.hpp"
#include "place_advice.hpp"

namespace culprit::diagnose {

std::string setting_name(std::string_view as_logged) {
  std::string name(as_logged);
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

namespace {

/// What a GPU-memory setting does, for the advice (keys: setting_name(), lower-case).
std::string setting_hint(std::string_view setting) {
  std::string key = setting_name(setting);
  for (auto& ch : key) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  if (key == "xla_python_client_mem_fraction")
    return "XLA preallocates that share of every GPU (default 0.75) and NCCL, cuDNN and cuBLAS allocate outside "
           "it: lower it, or set XLA_PYTHON_CLIENT_PREALLOCATE=false";
  if (key == "xla_python_client_preallocate")
    return "with preallocation on (the default) XLA takes XLA_PYTHON_CLIENT_MEM_FRACTION (0.75) of every GPU up front";
  if (key == "xla_python_client_allocator") return "the XLA allocator in use";
  if (key == "gpu_memory_utilization")
    // Which way to turn it depends on the error (a start-up check wants it lower or the GPU freed,
    // a KV-cache budget higher): the setting is described here, the direction is the advice's.
    return "vLLM claims that share of the whole GPU at start (it must fit in the free memory), and its KV cache "
           "gets what the share leaves after the weights";
  if (key == "mem_fraction_static")
    return "SGLang's static share (weights + KV cache pool); what it leaves is for activations and CUDA graphs";
  if (key == "tf_force_gpu_allow_growth") return "when false, TensorFlow maps nearly all GPU memory at start";
  return {};
}

}  // namespace

std::string job_settings_advice(const std::vector<JobSetting>& settings) {
  std::vector<std::string> parts;
  for (const auto& s : settings) {
    std::string part = fmt::format("{}={} ({})", s.setting, s.value, s.place);
    if (auto hint = setting_hint(s.setting); !hint.empty()) part += ": " + hint;
    parts.push_back(part);
  }
  if (parts.empty()) return {};
  return fmt::format("The job's own memory settings in its logs: {}. ", fmt::join(parts, "; "));
}

namespace {

/// A serving engine's two knobs for its KV cache: its share of the GPU and the context length.
struct KvKnobs {
  std::string_view framework, share, length;
};
constexpr KvKnobs kKvKnobs[] = {
    {core::framework::kVllm, "gpu_memory_utilization (--gpu-memory-utilization)", "max_model_len (--max-model-len)"},
    {core::framework::kSglang, "--mem-fraction-static", "--context-length"},
    {core::framework::kTensorrtLlm, "the KV cache's free_gpu_memory_fraction (--kv_cache_free_gpu_memory_fraction)",
     "max_seq_len (--max_seq_len)"},
};

/// The engine's own KV-cache budget came up short (a signal providing `kv_cache_budget`): the way
/// out points where the engine points — a larger share of the GPU when the GPU has room beyond it,
/// or a shorter context (to the length the engine estimated, where it printed one) — never a
/// smaller share, which leaves the cache less still.
std::string kv_budget_advice(std::string_view fw, const std::string& estimated_len) {
  KvKnobs knobs{fw, "the engine's share of GPU memory", "the context length"};
  for (const auto& k : kKvKnobs)
    if (k.framework == fw) knobs = k;
  return fmt::format(
      "The engine's own KV-cache budget is too small for its settings: raise {} if the GPU has room beyond the "
      "engine's share (nvidia-smi shows what else holds it), or lower {}{}; a smaller share only leaves the cache "
      "less room.",
      knobs.share, knobs.length,
      estimated_len.empty() ? std::string() : fmt::format(" to at most {}, the length the engine estimated", estimated_len));
}

}  // namespace

std::string footprint_advice(const FootprintFacts& facts) {
  namespace framework = core::framework;
  const std::string& fw = facts.framework;
  if (facts.kv_budget) return kv_budget_advice(fw, facts.estimated_len);
  if (fw == framework::kLlamaCpp)
    return "The job itself needs more memory than the GPU has: offload fewer layers to the GPU (llama.cpp "
           "--n-gpu-layers, Ollama num_gpu), use a smaller context (--ctx-size / num_ctx) or fewer parallel "
           "slots, or a smaller quantization of the model.";
  if (fw == framework::kJax)
    return "The job itself needs more memory than the GPU has: XLA preallocates 75% of the GPU by default "
           "(XLA_PYTHON_CLIENT_MEM_FRACTION, XLA_PYTHON_CLIENT_PREALLOCATE=false), so check that no two processes "
           "share a GPU; otherwise lower the batch size or shard the model over more devices.";
  if (fw == framework::kTensorflow)
    return "The job itself needs more memory than the GPU has: lower the batch size or the model size; let "
           "TensorFlow grow its memory (tf.config.experimental.set_memory_growth) when other processes share the GPU.";
  if (fw == framework::kMps)
    return "The job itself needs more memory than the unified memory allows: lower the batch size or the "
           "resolution, or raise PYTORCH_MPS_HIGH_WATERMARK_RATIO with care (it can make the whole machine swap).";
  return "The job itself needs more memory than the GPU has: lower its footprint (batch size, sequence length, "
         "--mem-fraction-static / gpu_memory_utilization, max_model_len), shard it over more GPUs, or try "
         "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True when reserved memory is much larger than allocated.";
}

/// What to do about a CUDA OOM's culprit, by role; `settings` is job_settings_advice() and
/// `footprint` footprint_advice() for a job culprit.
namespace {

/// On unified memory a page cache (a `kernel` holder of the pool) that covers the shortfall is
/// memory the kernel gives back on request: say so, with the command. '' otherwise.
std::string page_cache_advice(const Budget* budget) {
  if (!budget || !budget->unified) return {};
  for (const auto& g : budget->holders) {
    if (g.role != "kernel" || g.bytes <= 0) continue;
    if (budget->shortfall && g.bytes < *budget->shortfall) return {};
    return fmt::format(" On unified memory the page cache counts against the GPU: it held {}; free it before the "
                       "launch with `sync; echo 3 > /proc/sys/vm/drop_caches` (as root).",
                       core::format_size(g.bytes));
  }
  return {};
}

std::string holder_action(const std::optional<ProcessRef>& c, const std::string& settings,
                          const std::string& footprint, const Budget* budget);

}  // namespace

std::string culprit_action(const std::optional<ProcessRef>& c, const std::string& settings,
                           const std::string& footprint, const Budget* budget) {
  return holder_action(c, settings, footprint, budget) + page_cache_advice(budget);
}

namespace {

/// A holder whose pid nvidia-smi listed but could not read: not a process of the namespace the
/// listing was made in (NVML gives host pids; inside a container only its own are visible), or
/// gone. Its pid means something only on the GPU's host, outside containers: that is where to
/// look it up and stop it. A prompt's host that is a container's default hostname is named so.
std::string outside_view_advice(const ProcessRef& c, const Budget* budget) {
  const std::int64_t pid = c.pid.value_or(0);
  const std::string where = c.host.empty() ? std::string("the GPU's host")
                            : core::is_docker_default_hostname(c.host)
                                ? fmt::format("the host that runs container {} (its default hostname is its id)", c.host)
                                : fmt::format("{}, outside any container", c.host);
  std::string beside;
  if (budget && budget->shortfall && *budget->shortfall > 0)
    beside = fmt::format(" To keep it running, the job needs at least {} less on that GPU (the shortfall).",
                         core::format_size(*budget->shortfall));
  return fmt::format("nvidia-smi could not read pid {0}: it is a process of another PID namespace (NVML lists the "
                     "host's pids; a container sees only its own), or it has exited, so `kill {0}` from where the "
                     "listing was made cannot reach it. On {1}, `ps -o user,lstart,cmd -p {0}` and `cat /proc/{0}/cgroup` "
                     "say whose it is (a container's id is in the cgroup path): stop it there (`kill {0}`, or stop its "
                     "container), or run the job on GPUs it does not use; then relaunch.{2}",
                     pid, where, beside);
}

std::string holder_action(const std::optional<ProcessRef>& c, const std::string& settings,
                          const std::string& footprint, const Budget* budget) {
  if (c && c->role == "foreign" && !c->pid) {
    // An unnamed holder the ledger inferred: say how much, and how to find it.
    std::string how_much = "memory the job does not hold";
    if (budget && budget->foreign && *budget->foreign > 0) {
      how_much = fmt::format("about {}", core::format_size(*budget->foreign));
    } else if (budget && budget->unexplained) {
      const std::int64_t beyond = *budget->unexplained - budget->context_bound.value_or(0);
      if (beyond > 0) how_much = fmt::format("about {}", core::format_size(beyond));
    }
    const std::string gpu = budget && budget->gpu ? fmt::format("GPU {}", *budget->gpu) : std::string("the GPU");
    return fmt::format("Another process holds {} of {}{}. Find it with `nvidia-smi --query-compute-apps=pid,used_memory "
                       "--format=csv` on the host (from inside a container the pids are the host's), stop it if it is not "
                       "part of this job, or run the job on a GPU it does not use; then relaunch.",
                       how_much, gpu, on_host_phrase(c->host));
  }
  if (c && (c->role == "foreign" || c->role == "unknown") && c->outside_view && c->pid)
    return outside_view_advice(*c, budget);
  if (c && c->role == "foreign") {
    // A command only from a name Docker could have given: a logged name is a stranger's text.
    std::string where = c->container.empty() ? fmt::format("`kill {}`{}", c->pid.value_or(0), on_host_phrase(c->host))
                        : core::is_docker_name(c->container)
                            ? fmt::format("`docker stop {}`{}", c->container, on_host_phrase(c->host))
                            : fmt::format("`kill {}`{}; its container's logged name is not one Docker gives, so no "
                                          "`docker stop` is built from it",
                                          c->pid.value_or(0), on_host_phrase(c->host));
    // Its recorded place names what to stop: its pod, or its container by its own runtime.
    if (const std::string stop = place_stop_command(*c); !stop.empty()) where = stop + on_host_phrase(c->host);
    // The other way out: the job fits beside the holder once it needs the shortfall less (the
    // ledger's arithmetic), for a job that has to share the device.
    std::string beside;
    if (budget && budget->shortfall && *budget->shortfall > 0)
      beside = fmt::format(" To keep it running, make the job fit beside it instead: it needs at least {} less on "
                           "that GPU (the shortfall).",
                           core::format_size(*budget->shortfall));
    return fmt::format("Stop the foreign process {} (pid {}) that holds the GPU ({}), or run the job on GPUs it "
                       "does not use; then relaunch. Check GPUs are empty before a launch (nvidia-smi).{}",
                       c->name.empty() ? "(unnamed)" : c->name, c->pid.value_or(0), where, beside) +
           gone_holder_advice(*c);
  }
  if (budget && budget->rule == ledger_rule::kRanksShareGpu) {
    const std::string gpu = budget->gpu ? fmt::format("GPU {}", *budget->gpu) : std::string("one GPU");
    return settings + fmt::format("Several of the job's processes share {}: if each rank was meant to have a GPU of "
                                  "its own, pin it before its first CUDA call (torch.cuda.set_device(LOCAL_RANK), "
                                  "device=f\"cuda:{{LOCAL_RANK}}\") or give each rank its own CUDA_VISIBLE_DEVICES; "
                                  "check that the launcher's --nproc-per-node matches the GPUs it can see.",
                                  gpu);
  }
  if (c && c->role == "unknown")
    return fmt::format("Find out who owns pid {}{} (ps -o user,lstart,cmd -p {}); if it is not part of the job, "
                       "stop it before relaunching.", c->pid.value_or(0), on_host_phrase(c->host), c->pid.value_or(0));
  return settings + footprint;
}

}  // namespace

}  // namespace culprit::diagnose
