// Shared by the GPU / app-log parser tests: a small fixed signal set standing in for the
// shipped rules (so expectations do not move when rules/ changes), and parse helpers.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "culprit/ingest/parser.hpp"
#include "culprit/text/pattern.hpp"
#include "culprit/text/signal_set.hpp"
#include "unit/ingest/gpu_recording_sink.hpp"

namespace culprit::test {

/// Signals in the shape of rules/signals: the allocator OOM, the CUDA runtime OOM, torchrun's
/// `failed (exitcode…)`, NCCL's `Cuda failure 'out of memory'`, the NCCL watchdog timeout, and a
/// frame-scope signal (a PyTorch frame of the first CUDA use, read in a traceback's body).
inline const text::SignalSet& gpu_test_signals() {
  static const text::SignalSet set = [] {
    text::SignalSet s;
    auto add = [&s](const char* id, const char* kind, core::Severity sev, const char* re,
                    std::vector<std::string> formats = {}) {
      text::Signal sig;
      sig.id = id;
      sig.kind = kind;
      sig.severity = sev;
      sig.formats = std::move(formats);
      sig.pattern = std::make_shared<text::Pattern>(re);
      s.add(std::move(sig));
    };
    add("test_cuda_oom", "cuda_oom", core::Severity::error,
        R"((?P<device>CUDA|HIP|XPU) out of memory\. Tried to allocate (?P<requested_size>[\d.]+ (?:bytes|KiB|MiB|GiB)))");
    add("test_cuda_runtime_oom", "cuda_oom", core::Severity::error,
        R"(cuda runtime error \(2\) : out of memory|CUDA error: out of memory)");
    add("test_torchrun_failed", "signal_exit", core::Severity::error,
        R"(failed \(exitcode: (?P<exitcode>-\d+)\) local_rank: (?P<local_rank>\d+) \(pid: (?P<pid>\d+)\))");
    add("test_nccl_cuda_oom", "cuda_oom", core::Severity::error,
        R"(Cuda failure (?:\d+ )?'out of memory')");
    add("test_nccl_watchdog", "nccl_timeout", core::Severity::error,
        R"(Watchdog caught collective operation timeout: WorkNCCL\(SeqNum=(?P<seq>\d+), OpType=(?P<op>\w+))");
    add("test_torch_first_use_frame", "cuda_first_use", core::Severity::info,
        R"(File "[^"]*torch/nn/modules/[a-z_]+\.py", line \d+, in (?P<frame>_apply|to|cuda|__init__)\b)",
        {"app_log", std::string(text::kTracebackFrameScope)});
    s.build();
    return s;
  }();
  return set;
}

/// A context writing into `sink`, with the test signals, as the pipeline would set it up.
inline ingest::ParseContext gpu_context(GpuRecordingSink& sink, std::string format,
                                        std::string host = {}, int year_hint = 0,
                                        core::Diagnostics* diags = nullptr) {
  ingest::ParseContext ctx;
  ctx.sink = &sink;
  ctx.signals = &gpu_test_signals();
  ctx.diagnostics = diags;
  ctx.source_id = 1;
  ctx.source_name = "test.log";
  ctx.host = std::move(host);
  ctx.format = std::move(format);
  ctx.year_hint = year_hint;
  return ctx;
}

inline GpuRecordingSink parse_app(std::string_view text, std::string host = {}, int year_hint = 0) {
  GpuRecordingSink sink;
  auto ctx = gpu_context(sink, "app_log", std::move(host), year_hint);
  ingest::parse_app_log(text, ctx);
  return sink;
}

inline GpuRecordingSink parse_smi(std::string_view text, std::string host = {}) {
  GpuRecordingSink sink;
  auto ctx = gpu_context(sink, "nvidia_smi_table", std::move(host));
  ingest::parse_nvidia_smi_table(text, ctx);
  return sink;
}

/// A field's value ("" when absent).
inline std::string field(const core::Event& e, std::string_view key) { return e.field_or(key); }

}  // namespace culprit::test
