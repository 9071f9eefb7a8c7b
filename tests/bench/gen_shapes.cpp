// Many-shapes corpus for the scan benchmark: one folder per shape of log, each written by a
// generator of that shape's lines (its stamps and prefixes as the tool prints them, routine
// messages of a GPU serving / training node, rare failures), seeded so runs compare. Nothing
// is copied from a real log: every line is built here from the tool's documented layout.
//
//   DIR/<shape>/incident-<k>/node-<k>/<file>   two incidents of one file each (a scan's two
//                                              jobs each take one)
//   DIR/mixed/incident-<k>/node-<k>/<files>    every shape's file, smaller, in each node folder
//
// Failure lines come 1 in `kFailureEvery` lines, in the shape's own wrapping (a CUDA OOM in an
// application log, an OOM kill in a kernel log), so a scan finds something and rg counts it.
// Shapes named `*-many` hold a memory line (`KV cache usage`, `gpu_memory_utilization`) one line
// in ten: the many-hits case, where the prefilter passes a tenth of the text to the regexes.
//
// Usage: culprit_gen_shapes DIR [MEGABYTES_PER_SHAPE=64] [SEED=42] [SHAPE...]
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace {

/// One failure line in so many lines: rare, as in a log that ran for hours before it failed.
constexpr int kFailureEvery = 100000;

struct Clock {
  std::int64_t sec = 1775695642;  // 2026-04-09 00:47:22 UTC
  int usec = 0;
  [[nodiscard]] int h() const { return static_cast<int>((sec / 3600) % 24); }
  [[nodiscard]] int m() const { return static_cast<int>((sec / 60) % 60); }
  [[nodiscard]] int s() const { return static_cast<int>(sec % 60); }
};

struct Gen {
  std::mt19937_64 rng;
  std::uniform_real_distribution<double> u{0, 1};
  Clock clock;
  double boot = 5.0;  // seconds since boot, for kernel stamps
  std::int64_t lines = 0;
  bool many = false;  // a memory line in ten

  double r() { return u(rng); }
  int n(int below) { return static_cast<int>(u(rng) * below); }
  void tick() {
    clock.usec += n(400000);
    if (clock.usec >= 1000000) {
      clock.sec += clock.usec / 1000000;
      clock.usec %= 1000000;
    }
    boot += r() * 0.5;
  }
  /// True on the rare line that carries the failure.
  bool failure() { return lines % kFailureEvery == kFailureEvery / 2; }
  /// True on the lines of the many-hits case that carry a memory message.
  bool memory_line() { return many && lines % 10 == 3; }

  // --- the messages, without a stamp ---------------------------------------------------------
  std::string serving() {
    if (memory_line())
      return n(2) == 0 ? fmt::format("GPU KV cache usage: {:.1f}%, CPU KV cache usage: 0.0%, gpu_memory_utilization=0.90, free memory {:.2f} GiB", r() * 90, r() * 8)
                       : fmt::format("Memory profiling takes {:.2f} seconds; the current vLLM instance can use total_gpu_memory (79.19GiB) x gpu_memory_utilization (0.90) = 71.27GiB; model weights take {:.2f}GiB", r() * 9, r() * 40);
    switch (n(4)) {
      case 0: return fmt::format("Avg prompt throughput: {:.1f} tokens/s, Avg generation throughput: {:.1f} tokens/s, Running: {} reqs, Swapped: 0 reqs, Pending: 0 reqs", r() * 900, r() * 4000, n(64));
      case 1: return fmt::format("Received request cmpl-{:x}: prompt: '', params: SamplingParams(n=1, temperature=0.7, top_p=1.0, max_tokens={}), lora_request: None.", rng(), n(2048));
      case 2: return fmt::format("Finished request cmpl-{:x}.", rng());
      default: return fmt::format("Added request chatcmpl-{:x} with {} prompt tokens.", rng(), n(4096));
    }
  }
  std::string training() {
    if (memory_line())
      return fmt::format("step {} memory: allocated {:.2f} GiB, reserved {:.2f} GiB, max allocated {:.2f} GiB, KV cache usage n/a", lines, r() * 60, r() * 70, r() * 75);
    switch (n(3)) {
      case 0: return fmt::format("step {} | loss {:.4f} | lr {:.3e} | grad_norm {:.3f} | tokens/s {}", lines, 2 + r(), r() * 1e-4, r() * 3, n(90000));
      case 1: return fmt::format("Saving checkpoint shard {} of {} to /scratch/run-{}/ckpt", n(8), 8, n(99));
      default: return fmt::format("data loader worker {} prefetched batch {} in {:.1f} ms", n(16), lines, r() * 40);
    }
  }
  std::string kernel() {
    if (memory_line())
      return fmt::format("Memory cgroup stats for /kubepods/pod{:x}: anon {} file {} kernel {} shmem 0", rng() & 0xffffff, n(1 << 30), n(1 << 28), n(1 << 20));
    switch (n(4)) {
      case 0: return fmt::format("mlx5_core 0000:{:02x}:00.0: mlx5_fw_tracer_handle_traces:742:(pid {}): FWTracer: Events were lost", n(255), n(90000));
      case 1: return fmt::format("IPv6: ADDRCONF(NETDEV_CHANGE): veth{:x}: link becomes ready", rng() & 0xffffff);
      case 2: return fmt::format("docker0: port {}(veth{:x}) entered forwarding state", n(9), rng() & 0xffffff);
      default: return fmt::format("audit: type=1400 audit({}.{:03}:{}): apparmor=\"STATUS\" operation=\"profile_replace\" name=\"cri-containerd\" pid={}", 1775695642 + n(9999), n(999), n(9999), n(99999));
    }
  }
  std::string cuda_oom() {
    return "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.12 GiB is free. Process 3301 has 78.05 GiB memory in use. Of the allocated memory 71.20 GiB is allocated by PyTorch, and 5.31 GiB is reserved by PyTorch but unallocated.";
  }
  std::string kernel_oom() {
    return "Out of memory: Killed process 3300 (pt_main_thread) total-vm:272418576kB, anon-rss:36049820kB, file-rss:286712kB, shmem-rss:0kB, UID:1000 pgtables:71116kB oom_score_adj:0";
  }
  std::string app_message(bool serve) { return failure() ? cuda_oom() : serve ? serving() : training(); }
  std::string kernel_message() { return failure() ? kernel_oom() : kernel(); }

  // --- stamps ---------------------------------------------------------------------------------
  std::string vllm_head(std::string_view level = "INFO") {
    return fmt::format("{} 04-09 {:02}:{:02}:{:02} [{}]", level, clock.h(), clock.m(), clock.s(),
                       n(3) == 0 ? "scheduler.py:84" : n(2) ? "metrics.py:455" : "engine.py:291");
  }
  std::string iso(int digits, char sep = 'T') {
    std::string frac = fmt::format("{:06}", clock.usec) + "000";
    return fmt::format("2026-04-09{}{:02}:{:02}:{:02}.{}", sep, clock.h(), clock.m(), clock.s(), frac.substr(0, digits));
  }
  std::string syslog_stamp() { return fmt::format("Apr  9 {:02}:{:02}:{:02}", clock.h(), clock.m(), clock.s()); }
  std::string boot_stamp() { return fmt::format("[{:>12.6f}]", boot); }
};

std::string json_escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

/// A shape: its folder name, its file name and a writer of one line (without its newline; a
/// line may hold `\r` or end in one).
struct Shape {
  const char* name;
  const char* file;
  std::function<std::string(Gen&)> line;
  const char* newline = "\n";
  bool many = false;
};

std::string vllm_plain(Gen& g) { return g.vllm_head(g.failure() ? "ERROR" : "INFO") + " " + g.app_message(true); }

std::vector<Shape> shapes() {
  std::vector<Shape> s;
  s.push_back({"vllm", "vllm.log", vllm_plain});
  s.push_back({"vllm-many", "vllm.log", vllm_plain, "\n", true});
  s.push_back({"vllm-worker", "vllm-worker.log", [](Gen& g) {
                 return fmt::format("(VllmWorker rank={} pid={}) {}", g.n(8), 3300 + g.n(8), vllm_plain(g));
               }});
  s.push_back({"vllm-worker-colour", "vllm-worker.log", [](Gen& g) {
                 return fmt::format("\x1b[1;36m(VllmWorker rank={} pid={})\x1b[0;0m {}", g.n(8), 3300 + g.n(8), vllm_plain(g));
               }});
  s.push_back({"sglang", "sglang.log", [](Gen& g) {
                 if (g.failure()) return fmt::format("[{} TP{}] Scheduler hit an exception: {}", g.iso(0, ' ').substr(0, 19), g.n(8), g.cuda_oom());
                 if (g.memory_line()) return fmt::format("[{} TP{}] Load weight end. type=LlamaForCausalLM, dtype=torch.bfloat16, avail mem={:.2f} GB, mem usage={:.2f} GB.", g.iso(0, ' ').substr(0, 19), g.n(8), g.r() * 60, g.r() * 20);
                 return fmt::format("[{} TP{}] Decode batch. #running-req: {}, #token: {}, token usage: {:.2f}, gen throughput (token/s): {:.2f}, #queue-req: 0", g.iso(0, ' ').substr(0, 19), g.n(8), g.n(64), g.n(90000), g.r(), g.r() * 3000);
               }});
  s.push_back({"sglang-many", "sglang.log", [](Gen& g) {
                 if (g.memory_line()) return fmt::format("[{} TP{}] KV Cache is allocated. #tokens: {}, K size: {:.2f} GB, V size: {:.2f} GB, mem_fraction_static=0.88, gpu_memory_utilization high", g.iso(0, ' ').substr(0, 19), g.n(8), g.n(900000), g.r() * 30, g.r() * 30);
                 return fmt::format("[{} TP{}] Prefill batch. #new-seq: {}, #new-token: {}, #cached-token: {}, #running-req: {}, #queue-req: 0", g.iso(0, ' ').substr(0, 19), g.n(8), g.n(9), g.n(9000), g.n(9000), g.n(64));
               }, "\n", true});
  s.push_back({"python-logging", "train.log", [](Gen& g) {
                 return fmt::format("{}:trainer:{}", g.failure() ? "ERROR" : "INFO", g.app_message(false));
               }});
  s.push_back({"python-asctime", "train.log", [](Gen& g) {
                 return fmt::format("{},{:03} - trainer - {} - {}", g.iso(0, ' ').substr(0, 19), g.clock.usec / 1000, g.failure() ? "ERROR" : "INFO", g.app_message(false));
               }});
  s.push_back({"python-json", "train.jsonl", [](Gen& g) {
                 return fmt::format(R"({{"asctime": "{},{:03}", "name": "trainer", "levelname": "{}", "message": "{}"}})",
                                    g.iso(0, ' ').substr(0, 19), g.clock.usec / 1000, g.failure() ? "ERROR" : "INFO", json_escape(g.app_message(false)));
               }});
  s.push_back({"kern.log", "kern.log", [](Gen& g) {
                 return fmt::format("{} node-00 kernel: {} {}", g.syslog_stamp(), g.boot_stamp(), g.kernel_message());
               }});
  s.push_back({"messages", "messages", [](Gen& g) {
                 if (g.n(2) == 0) return fmt::format("{} node-00 kernel: {} {}", g.syslog_stamp(), g.boot_stamp(), g.kernel_message());
                 switch (g.n(3)) {
                   case 0: return fmt::format("{} node-00 systemd[1]: Started Session {} of User root.", g.syslog_stamp(), g.n(9999));
                   case 1: return fmt::format("{} node-00 containerd[{}]: time=\"2026-04-09T00:47:22Z\" level=info msg=\"StartContainer for {:x} returns successfully\"", g.syslog_stamp(), 900 + g.n(9), g.rng());
                   default: return fmt::format("{} node-00 CRON[{}]: (root) CMD (/usr/local/bin/gpu-health --quiet)", g.syslog_stamp(), g.n(99999));
                 }
               }});
  s.push_back({"journal-short-iso", "journal.txt", [](Gen& g) {
                 return fmt::format("2026-04-09T{:02}:{:02}:{:02}+0000 node-00 kernel: {}", g.clock.h(), g.clock.m(), g.clock.s(), g.kernel_message());
               }});
  s.push_back({"journal-json", "journal.json", [](Gen& g) {
                 return fmt::format(R"({{"__CURSOR":"s=8a1c;i={:x}","__REALTIME_TIMESTAMP":"{}{:06}","__MONOTONIC_TIMESTAMP":"{}","_BOOT_ID":"4f2d","PRIORITY":"6","_TRANSPORT":"kernel","SYSLOG_IDENTIFIER":"kernel","_HOSTNAME":"node-00","MESSAGE":"{}"}})",
                                    g.lines, g.clock.sec, g.clock.usec, static_cast<std::int64_t>(g.boot * 1e6), json_escape(g.kernel_message()));
               }});
  s.push_back({"dmesg", "dmesg.txt", [](Gen& g) { return fmt::format("{} {}", g.boot_stamp(), g.kernel_message()); }});
  s.push_back({"dmesg-T", "dmesg.txt", [](Gen& g) {
                 return fmt::format("[Thu Apr  9 {:02}:{:02}:{:02} 2026] {}", g.clock.h(), g.clock.m(), g.clock.s(), g.kernel_message());
               }});
  s.push_back({"k8s-cri", "0.log", [](Gen& g) { return fmt::format("{}Z stdout F {}", g.iso(9), vllm_plain(g)); }});
  s.push_back({"docker-json", "container-json.log", [](Gen& g) {
                 return fmt::format(R"({{"log":"{}\n","stream":"stdout","time":"{}Z"}})", json_escape(vllm_plain(g)), g.iso(9));
               }});
  s.push_back({"docker-t", "docker.log", [](Gen& g) { return fmt::format("{}Z {}", g.iso(9), vllm_plain(g)); }});
  s.push_back({"slurm-progress", "slurm-4242.out", [](Gen& g) {
                 // A tqdm bar redrawn with `\r` many times on one line, then a logged line.
                 if (g.n(4) != 0) return fmt::format("{}:trainer:{}", g.failure() ? "ERROR" : "INFO", g.app_message(false));
                 std::string bar;
                 const int total = 1000, at = g.n(total - 20);
                 for (int i = 0; i < 8; ++i) {
                   const int done = at + i * 2, pct = done * 100 / total;
                   bar += fmt::format("\rEpoch {}: {:3}%|{:<10}| {}/{} [00:{:02}<03:{:02}, {:.2f}it/s, loss={:.3f}]", g.n(9), pct,
                                      std::string(static_cast<std::size_t>(pct / 10), '#'), done, total, g.n(60), g.n(60), g.r() * 9, 2 + g.r());
                 }
                 return bar;
               }});
  s.push_back({"absl", "xla.log", [](Gen& g) {
                 if (g.failure()) return fmt::format("E0409 {:02}:{:02}:{:02}.{:06} {:6} pjrt_stream_executor_client.cc:2985] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 2147483648 bytes.", g.clock.h(), g.clock.m(), g.clock.s(), g.clock.usec, 3300);
                 static const char* kFiles[] = {"gpu_compiler.cc:1234", "service.cc:168", "cuda_dnn.cc:529", "device_compiler.h:186"};
                 return fmt::format("I0409 {:02}:{:02}:{:02}.{:06} {:6} {}] {}", g.clock.h(), g.clock.m(), g.clock.s(), g.clock.usec, 3300 + g.n(8), kFiles[g.n(4)], g.training());
               }});
  s.push_back({"deepspeed", "deepspeed.log", [](Gen& g) {
                 if (g.n(3) == 0)
                   return fmt::format("Epoch 0:  {}%|#         | {}/1000 [00:30<03:40,  4.00it/s, v_num=0, train_loss={:.3f}]", g.n(99), g.n(999), 2 + g.r());
                 return fmt::format("[{},{:03}] [{}] [logging.py:96:log_dist] [Rank {}] {}", g.iso(0, ' ').substr(0, 19), g.clock.usec / 1000, g.failure() ? "ERROR" : "INFO", g.n(8), g.app_message(false));
               }});
  s.push_back({"crlf", "vllm-windows.log", vllm_plain, "\r\n"});
  s.push_back({"unknown", "app.out", [](Gen& g) {
                 return fmt::format("<{}.{:03}|lvl={}|comp=router-{}> {}", g.clock.sec, g.clock.usec / 1000, g.failure() ? 2 : 6, g.n(9), g.app_message(true));
               }});
  return s;
}

void write_shape(const Shape& shape, const fs::path& file, std::int64_t bytes, std::mt19937_64::result_type seed) {
  Gen g{std::mt19937_64(seed)};
  g.many = shape.many;
  std::FILE* f = std::fopen(file.c_str(), "w");
  if (f == nullptr) throw std::runtime_error("cannot write " + file.string());
  std::int64_t written = 0;
  const std::string_view nl = shape.newline;
  while (written < bytes) {
    g.tick();
    const std::string line = shape.line(g);
    std::fwrite(line.data(), 1, line.size(), f);
    std::fwrite(nl.data(), 1, nl.size(), f);
    written += static_cast<std::int64_t>(line.size() + nl.size());
    ++g.lines;
  }
  std::fclose(f);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: culprit_gen_shapes DIR [MEGABYTES_PER_SHAPE=64] [SEED=42] [SHAPE...]\n");
    return 2;
  }
  const fs::path root = argv[1];
  const std::int64_t per_shape = (argc > 2 ? std::stoll(argv[2]) : 64) * 1024 * 1024;
  const std::uint64_t seed = argc > 3 ? std::stoull(argv[3]) : 42;
  std::vector<std::string> only;
  for (int i = 4; i < argc; ++i) only.emplace_back(argv[i]);
  const auto all = shapes();
  std::uint64_t k = 0;
  for (const Shape& shape : all) {
    ++k;
    if (!only.empty() && std::find(only.begin(), only.end(), shape.name) == only.end()) continue;
    for (int inc = 0; inc < 2; ++inc) {
      const fs::path dir = root / shape.name / fmt::format("incident-{}", inc) / fmt::format("node-{:02}", inc);
      fs::create_directories(dir);
      write_shape(shape, dir / shape.file, per_shape / 2, seed * 1000 + k * 10 + static_cast<std::uint64_t>(inc));
    }
    std::printf("%s/%s\n", root.c_str(), shape.name);
  }
  // Mixed: every shape in each node folder, the shape's share of the same total.
  if (only.empty() || std::find(only.begin(), only.end(), "mixed") != only.end()) {
    const std::int64_t share = per_shape / static_cast<std::int64_t>(all.size()) / 2;
    for (int inc = 0; inc < 2; ++inc) {
      const fs::path dir = root / "mixed" / fmt::format("incident-{}", inc) / fmt::format("node-{:02}", inc);
      fs::create_directories(dir);
      k = 0;
      for (const Shape& shape : all) {
        ++k;
        write_shape(shape, dir / fmt::format("{}-{}", shape.name, shape.file), share, seed * 7000 + k * 10 + static_cast<std::uint64_t>(inc));
      }
    }
    std::printf("%s/mixed\n", root.c_str());
  }
  return 0;
}
