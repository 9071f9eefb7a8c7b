// Format sniffing per source and per segment of a paste. A paste is split at shell prompts
// (`user@host:~$ cmd`) and where the format changes; each segment gets a format and a host.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/text/lines.hpp"

namespace culprit::ingest {

/// Format ids (stable; stored in sources.format). Each format read has a row in the format table
/// (src/ingest/format_table.cpp); binary, empty and culprit_report are skipped sources, and
/// culprit_snapshot is `culprit run`'s manifest, read by the api (culprit/api/snapshot_manifest.hpp).
namespace format {
inline constexpr std::string_view kKernelLog = "kernel_log";
inline constexpr std::string_view kAppLog = "app_log";
inline constexpr std::string_view kNvidiaSmiTable = "nvidia_smi_table";
inline constexpr std::string_view kNvidiaSmiCsv = "nvidia_smi_csv";
inline constexpr std::string_view kNvidiaSmiQ = "nvidia_smi_q";      // nvidia-smi -q text
inline constexpr std::string_view kNvidiaSmiXml = "nvidia_smi_xml";  // nvidia-smi -q -x
inline constexpr std::string_view kGpustat = "gpustat";                // wookayin/gpustat
inline constexpr std::string_view kFree = "free";
inline constexpr std::string_view kMeminfo = "meminfo";                 // cat /proc/meminfo
inline constexpr std::string_view kCgroupMemory = "cgroup_memory";      // culprit's cgroup.txt (`==> …/memory.current <==`)
inline constexpr std::string_view kPs = "ps";                            // ps aux / -ef / -eo …
inline constexpr std::string_view kDockerPs = "docker_ps";
inline constexpr std::string_view kProcStatus = "proc_status";  // culprit's proc-status.txt (`==> /proc/N/status <==`)
inline constexpr std::string_view kProcStack = "proc_stack";            // cat /proc/PID/stack
inline constexpr std::string_view kJournalJson = "journal_json";        // journalctl -o json*
inline constexpr std::string_view kDockerInspect = "docker_inspect";    // docker inspect, kubectl get pod -o json
inline constexpr std::string_view kKubectlDescribe = "kubectl_describe";
inline constexpr std::string_view kTorchelasticError = "torchelastic_error";  // $TORCHELASTIC_ERROR_FILE
inline constexpr std::string_view kTorchMemorySnapshot = "torch_memory_snapshot";  // torch.cuda.memory._snapshot() as JSON
inline constexpr std::string_view kBinary = "binary";
inline constexpr std::string_view kEmpty = "empty";
inline constexpr std::string_view kCulpritReport = "culprit_report";  // culprit's own output (skipped)
inline constexpr std::string_view kCulpritSnapshot = "culprit_snapshot";  // the job's end, from the manifest
}  // namespace format

/// The head of an input the sniffer reads for its format (ingest::ingest, reads_in_pieces): the
/// whole of a smaller one.
inline constexpr std::size_t kSniffHeadBytes = 65536;

/// The most likely format of a block of text (kernel_log, nvidia_smi_table, …, app_log).
/// `binary` when the text is not text (NUL bytes, mostly non-printable); `empty` when blank.
std::string sniff_format(std::string_view text);

/// One piece of a paste: lines [first_line, first_line + line_count) of the source.
struct Segment {
  std::string_view text;
  std::int64_t first_line = 1;
  std::string format;
  std::string host;     ///< from the prompt or the command (`ssh user@host …`), else empty
  std::string command;  ///< the command typed at the prompt, if any
  /// The lines text::split_lines(text) gives: lines [first_line - 1, first_line - 1 + line_count)
  /// of the split the segments were cut from.
  std::size_t line_count = 0;
};

/// Splits a paste at shell prompts and format changes. A file that is all one format comes
/// back as one segment.
std::vector<Segment> segment_text(std::string_view text);
/// The same over `lines`, text::split_lines(text) (a caller that has it), whose ranges the
/// segments name (Segment::line_count), so that a parser need not split its segment again.
/// `line_hits`, where given, is the input's block pass per line (src/ingest/line_hits.hpp): its
/// anchor bits stand in for the sniffer's own anchor pass. `rare`: the text's census, where one
/// was taken (its `@`: no prompt without one).
std::vector<Segment> segment_text(std::string_view text, const std::vector<std::string_view>& lines,
                                  const std::vector<std::uint8_t>* line_hits = nullptr,
                                  const text::RareBytes& rare = text::RareBytes::all());

/// sniff_format in two halves, for a caller that segments the text itself (the ingest pipeline
/// keeps a small input's segments): `empty` or `binary` for a text that is not text, else "";
/// and the format of the segments that cover most lines (`empty` when there are none).
/// sniff_format(t) is not_text_format(t), else majority_format(segment_text(t)).
std::string not_text_format(std::string_view text);
std::string majority_format(const std::vector<Segment>& segments);

/// The host named by a prompt line (`aurora@spark-b:~$ …`) or an ssh command in it; the last
/// ssh hop wins (`ssh a@h1 'ssh b@h2 "cmd"'` -> h2). Empty when none, and for a command that
/// reports on a job from anywhere (`sacct`, `squeue`, `scontrol`, `qstat`…) unless
/// an ssh hop names where it ran: its output is not about the prompt's host.
std::string host_from_command_line(std::string_view line);

}  // namespace culprit::ingest
