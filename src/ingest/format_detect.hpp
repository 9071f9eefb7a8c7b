// The detectors the format table binds (format_table.cpp): one per format, each the anchor that
// opens the format's block and how far it runs (formats.md gives every anchor), and the kernel
// line class with its runs. See FormatSpec for the contract of each kind.
#pragma once

#include <cstddef>
#include <string_view>

#include "ingest/format_table.hpp"

namespace culprit::ingest::detect {

// Blocks: the block an anchor at scan.lines[i] opens, or nothing.
Detection smi_table(Scan& scan, std::size_t i);         ///< nvidia-smi banner, Processes box, or a row by its shape
Detection free_block(Scan& scan, std::size_t i);        ///< `free` header (`total used free shared`)
Detection meminfo_block(Scan& scan, std::size_t i);     ///< `MemTotal:  N kB` (cat /proc/meminfo)
Detection cgroup_memory_block(Scan& scan, std::size_t i);  ///< `==> …/memory.current <==` (culprit's cgroup.txt)
Detection journal_json(Scan& scan, std::size_t i);      ///< JSON with journald's keys
Detection docker_inspect(Scan& scan, std::size_t i);    ///< JSON with docker's / a Pod's keys
Detection torchelastic_error(Scan& scan, std::size_t i);  ///< JSON with torchelastic's error-file keys
Detection torch_memory_snapshot(Scan& scan, std::size_t i);  ///< JSON with PyTorch's allocator segments
Detection kubectl_describe(Scan& scan, std::size_t i);  ///< `Name:` then `Namespace:` / `Roles:`
Detection smi_q(Scan& scan, std::size_t i);             ///< `==NVSMI LOG==`
Detection smi_xml(Scan& scan, std::size_t i);           ///< `<nvidia_smi_log>` document
Detection smi_csv(Scan& scan, std::size_t i);           ///< `--query-*` CSV header or row
Detection gpustat_block(Scan& scan, std::size_t i);     ///< gpustat GPU lines, with the header above them
Detection ps_block(Scan& scan, std::size_t i);          ///< a `ps` header with its rows
Detection docker_ps(Scan& scan, std::size_t i);         ///< `CONTAINER ID … IMAGE|STATUS` header
Detection proc_stack(Scan& scan, std::size_t i);        ///< `cat /proc/N/stack` then its frames
Detection proc_status_block(Scan& scan, std::size_t i);  ///< `==> /proc/N/status <==` (culprit's proc-status.txt)

// Kernel text: stamped lines (dmesg, syslog / journal, kmsg) and unstamped OOM-report, NVRM and
// memory.stat lines; a run keeps indented continuations and short unstamped interruptions.
bool kernel_line(std::string_view line);
Detection kernel_run(Scan& scan, std::size_t i);
/// The kernel stamp and syslog header regexes (dmesg, dmesg -T / -x / iso, kmsg, syslog and
/// journal short headers). Compiling them is ~1.6 M instructions, so a line reaches them only
/// where may_be_kernel_stamp says it may match.
bool kernel_stamp_regex(std::string_view line);
/// Whether kernel_stamp_regex may match `line`, by the bytes each of its alternatives starts
/// with: never false where it matches (the tests hold it to the regexes on every fixture line and
/// on variants of each stamp form).
bool may_be_kernel_stamp(std::string_view line);

// Anchors (FormatSpec::anchors): the literals one of which each detector's anchor line holds,
// and checks for the anchor shapes no literal tells.
inline constexpr std::string_view kSmiTableAnchors[] = {"NVIDIA-SMI ", "Processes:"};
inline constexpr std::string_view kFreeAnchors[] = {"total"};
inline constexpr std::string_view kMeminfoAnchors[] = {"MemTotal:"};
inline constexpr std::string_view kCgroupMemoryAnchors[] = {"memory."};  ///< `==> …/memory.current <==`
inline constexpr std::string_view kKubectlAnchors[] = {"Name:"};
inline constexpr std::string_view kSmiQAnchors[] = {"NVSMI LOG"};
/// A `--query-*` header names a memory / bus / process key; a row has a strong cell (` MiB`, a
/// bracketed marker) or a PCI bus id (smi_csv_shape).
inline constexpr std::string_view kSmiCsvAnchors[] = {
    "memory.", "used_gpu_memory", "used_memory", "pci.bus_id", "process_name", "utilization.", "gpu_bus_id",
    "gpu_uuid", " MiB", "[N/A]", "[Not Supported]", "[Unknown Error]", "[GPU is lost]"};
inline constexpr std::string_view kProcStackAnchors[] = {"/stack"};
inline constexpr std::string_view kDockerPsAnchors[] = {"CONTAINER ID", "POD ID"};
inline constexpr std::string_view kProcStatusAnchors[] = {"==> /proc/"};
/// Every literal is_kernel_content (and so is_prefixed_kernel_content, whose message is part of
/// the line) requires one of: OOM report anchors and body lines, register dumps, NVRM / SXid.
/// Mem-Info's `Node 0 …` lines by what follows the `Node ` (` free:` and ` active_anon:` are
/// anchors already): the prefilter trims an anchor's spaces, and a bare `node` is in every line
/// of a host named `node-07`, which made every syslog line an anchor line.
inline constexpr std::string_view kKernelAnchors[] = {
    " invoked oom-killer: ", "oom-kill:constraint=", "Killed process ", "Mem-Info:", "Tasks state", "NVRM: ",
    ": SXid (", "RIP:", "RSP:", "RAX:", "RBX:", "RCX:", "RDX:", "RSI:", "RDI:", "RBP:", "R08:", "R09:", "R10:",
    "R11:", "R12:", "R13:", "R14:", "R15:", "FS:", "GS:", "CS:", "CR2:", "EIP:", "ESP:", "EAX:", "EBX:", "ECX:",
    "EDX:", "<TASK>", "</TASK>", "<IRQ>", "</IRQ>", "Workqueue: ", "Modules linked in:", "Code: ", "unevictable:",
    "mapped:", "free:", "sec_pagetables:", "kernel_misc_reclaimable:", "CPU: ", "Call Trace:", "Hardware name: ",
    "[<", "hugepages_total=", "*4kB", "lowmem_reserve[]:", "Free swap  = ", "Total swap = ", "Task in ", "Tasks in ", "kB, limit ",
    "slab_reclaimable:", "Memory cgroup ", "Out of memory", "oom_reaper: reaped process ", "active_anon:",
    " pages ", " total pagecache pages", "+0x", " mems_allowed="};
bool json_shape(std::string_view line);       ///< starts a JSON value (`{`, `[`, `[{`, RS `{`)
bool json_first(char c);                      ///< `{`, `[` or RS: json_shape's FormatSpec::unanchored_first
/// An nvidia-smi GPU row (line 1, with its bus id) or process row pasted without the table's
/// top (smi_rows.hpp): what the smi_table detector finds besides its anchor literals.
bool smi_row_shape(std::string_view line);
bool smi_row_first(char c);                   ///< `|`: smi_row_shape's FormatSpec::unanchored_first
bool smi_xml_shape(std::string_view line);    ///< starts with `<`
bool smi_xml_first(char c);                   ///< `<`
bool smi_csv_shape(std::string_view line);    ///< `, ` cells and a PCI bus id's `:..:..` shape
/// Any byte but ESC: nvidia-smi colours none of its CSV, so a line opening with a colour code is
/// a program's log line (smi_csv_shape's FormatSpec::unanchored_first).
bool smi_csv_first(char c);
/// What smi_csv_shape needs, as FormatSpec::unanchored_pattern (`?`: any byte).
inline constexpr std::string_view kSmiCsvShapePattern = ":??:??.";
/// Whether the kSmiCsvShapePattern match at `at` of `line` may be a PCI bus id cell's
/// (`00000000:3B:00.0`): the cell's 8 bytes before it, and after the cell the line's end, a
/// blank or a `,` (its FormatSpec::unanchored_pattern_fits). A time of day with its fraction
/// (`T00:47:22.011932`, in every line of a container runtime's or glog's log) is no cell.
bool bus_id_cell_at(std::string_view line, std::size_t at);
/// A gpustat GPU line (`[0] name | 45°C,  0 % | 15234 / 24576 MB | …`, gpustat.hpp).
bool gpustat_shape(std::string_view line);
/// `[`. Not ESC: a line opening with a colour code is asked no block shape (most are a worker's
/// log lines), so `gpustat --color` output is read where a paste lost its codes, or by its parser.
bool gpustat_first(char c);
/// What gpustat_shape needs, as FormatSpec::unanchored_pattern: the memory cell's unit.
inline constexpr std::string_view kGpustatShapePattern = " MB";
/// A header-less ps row, or a header's `PID` (case-sensitive: as an anchor literal, compared
/// caseless, it would pass every `pid=` of an application log).
bool ps_shape(std::string_view line);
bool ps_first(char c);  ///< a column name's or a user name's first byte (ps::may_start_listing)
bool kernel_shape(std::string_view line);     ///< a kernel stamp, or a task row's `[ pid]  n` shape

// Command hints: output a typed command announces (see FormatSpec::announced_by).
bool announces_smi_csv(std::string_view command);
bool continues_smi_csv(std::string_view line);
bool announces_smi_q(std::string_view command);
bool continues_smi_q(std::string_view line);
bool announces_proc_stack(std::string_view command);  ///< `cat /proc/N/stack`
bool continues_proc_stack(std::string_view line);     ///< a frame

}  // namespace culprit::ingest::detect
