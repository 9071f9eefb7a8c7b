// Synthetic multi-node corpus for the scan benchmark: realistic worker, launcher and kernel
// log lines with rare failures, seeded so runs compare. Writes DIR/incident-NNN/<node>/{...}.
//
// Usage: culprit_gen_corpus DIR [MEGABYTES=400] [INCIDENTS=24] [SEED=42]
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace {

struct Writer {
  std::FILE* f;
  std::int64_t bytes = 0;
  void line(const std::string& s) {
    std::fwrite(s.data(), 1, s.size(), f);
    std::fputc('\n', f);
    bytes += static_cast<std::int64_t>(s.size()) + 1;
  }
};

const char* kVllmInfo[] = {
    "Avg prompt throughput: {:.1f} tokens/s, Avg generation throughput: {:.1f} tokens/s, Running: {} reqs, Swapped: 0 reqs, Pending: 0 reqs, GPU KV cache usage: {:.1f}%, CPU KV cache usage: 0.0%.",
    "Received request cmpl-{:x}: prompt: '', params: SamplingParams(n=1, temperature=0.7, top_p=1.0, max_tokens={}), prompt_token_ids: None, lora_request: None.",
    "Finished request cmpl-{:x}.",
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: culprit_gen_corpus DIR [MEGABYTES] [INCIDENTS] [SEED]\n");
    return 2;
  }
  const fs::path root = argv[1];
  const std::int64_t target = (argc > 2 ? std::stoll(argv[2]) : 400) * 1024 * 1024;
  const int incidents = argc > 3 ? std::stoi(argv[3]) : 24;
  std::mt19937_64 rng(argc > 4 ? std::stoull(argv[4]) : 42);
  std::uniform_real_distribution<double> u(0, 1);
  const std::int64_t per_file = target / (incidents * 4);
  std::int64_t total = 0;
  for (int i = 0; i < incidents; ++i) {
    const fs::path inc = root / fmt::format("incident-{:03}", i);
    const int failure = i % 4;  // 0 CUDA OOM, 1 kernel OOM, 2 NCCL timeout only, 3 healthy
    for (int node = 0; node < 2; ++node) {
      const std::string host = fmt::format("gpu-{:02}", node + i * 2);
      fs::create_directories(inc / host);
      // Worker log: vLLM-style serving lines with worker prefixes and ANSI colour.
      {
        Writer w{std::fopen((inc / host / "vllm-worker.log").c_str(), "w")};
        int sec = 0;
        while (w.bytes < per_file) {
          sec += static_cast<int>(u(rng) * 2);
          const int pick = static_cast<int>(u(rng) * 3);
          std::string msg = pick == 0 ? fmt::format(fmt::runtime(kVllmInfo[0]), u(rng) * 900, u(rng) * 4000,
                                                    static_cast<int>(u(rng) * 64), u(rng) * 90)
                          : pick == 1 ? fmt::format(fmt::runtime(kVllmInfo[1]), rng(), static_cast<int>(u(rng) * 2048))
                                      : fmt::format(fmt::runtime(kVllmInfo[2]), rng());
          w.line(fmt::format("\x1b[1;36m(VllmWorker rank={} pid={})\x1b[0;0m INFO 04-09 {:02}:{:02}:{:02} [metrics.py:{}] {}",
                             node, 3300 + node, (sec / 3600) % 24, (sec / 60) % 60, sec % 60, 400 + pick, msg));
        }
        if (failure == 0 && node == 1) {
          w.line("(VllmWorker rank=1 pid=3301) ERROR 04-09 05:10:11 [multiproc_executor.py:470] Traceback (most recent call last):");
          w.line("(VllmWorker rank=1 pid=3301) ERROR 04-09 05:10:11 [multiproc_executor.py:470]   File \"/usr/lib/python3/site-packages/vllm/worker.py\", line 97, in execute_model");
          w.line("(VllmWorker rank=1 pid=3301) ERROR 04-09 05:10:11 [multiproc_executor.py:470] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 79.19 GiB of which 1.12 GiB is free. Process 3301 has 78.05 GiB memory in use. Of the allocated memory 71.20 GiB is allocated by PyTorch, and 5.31 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)");
        }
        if (failure == 2)
          w.line(fmt::format("[rank{}]:[E0409 05:10:11.426415540 ProcessGroupNCCL.cpp:629] [Rank {}] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=12, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600085 milliseconds before timing out.", node, node));
        total += w.bytes;
        std::fclose(w.f);
      }
      // Kernel log: raw dmesg with ordinary driver / network chatter.
      {
        Writer w{std::fopen((inc / host / "dmesg.txt").c_str(), "w")};
        double t = 5.0;
        while (w.bytes < per_file) {
          t += u(rng) * 3;
          const int pick = static_cast<int>(u(rng) * 4);
          std::string msg = pick == 0 ? fmt::format("mlx5_core 0000:{:02x}:00.0: mlx5_fw_tracer_handle_traces:{}:(pid {}): FWTracer: Events were lost", static_cast<int>(u(rng) * 255), 742, static_cast<int>(u(rng) * 90000))
                          : pick == 1 ? fmt::format("IPv6: ADDRCONF(NETDEV_CHANGE): veth{:x}: link becomes ready", rng() & 0xffffff)
                          : pick == 2 ? fmt::format("docker0: port {}(veth{:x}) entered forwarding state", static_cast<int>(u(rng) * 9), rng() & 0xffffff)
                                      : fmt::format("nvidia-nvlink: Unregistered Nvlink Core, major device number {}", static_cast<int>(u(rng) * 500));
          w.line(fmt::format("[{:>12.6f}] {}", t, msg));
        }
        if (failure == 1 && node == 0) {
          w.line(fmt::format("[{:>12.6f}] pt_main_thread invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE|__GFP_COMP), order=0, oom_score_adj=0", t));
          w.line(fmt::format("[{:>12.6f}] Tasks state (memory values in pages):", t));
          w.line(fmt::format("[{:>12.6f}] [  pid  ]   uid  tgid total_vm      rss rss_anon rss_file rss_shmem pgtables_bytes swapents oom_score_adj name", t));
          w.line(fmt::format("[{:>12.6f}] [   3300]  1000  3300 68104644  9084133  9012455    71678         0 72822784        0             0 pt_main_thread", t));
          w.line(fmt::format("[{:>12.6f}] oom-kill:constraint=CONSTRAINT_NONE,nodemask=(null),cpuset=/,mems_allowed=0-1,global_oom,task_memcg=/user.slice/user-1000.slice/session-3.scope,task=pt_main_thread,pid=3300,uid=1000", t));
          w.line(fmt::format("[{:>12.6f}] Out of memory: Killed process 3300 (pt_main_thread) total-vm:272418576kB, anon-rss:36049820kB, file-rss:286712kB, shmem-rss:0kB, UID:1000 pgtables:71116kB oom_score_adj:0", t));
        }
        total += w.bytes;
        std::fclose(w.f);
      }
    }
  }
  std::printf("%s: %d incidents, %.1f MiB\n", root.c_str(), incidents, total / 1048576.0);
  return 0;
}
