// The format detectors the table (format_table.cpp) binds: for each format, the anchor that opens
// its block and how far the block runs; for kernel text, the line class and its runs. Literal
// checks first, regexes last: every line of every input passes through here.
#include "ingest/format_detect.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>

#include "culprit/ingest/sniff.hpp"
#include "culprit/text/lines.hpp"
#include "culprit/text/pattern.hpp"
#include "ingest/formats/cgroup_memory.hpp"
#include "ingest/formats/proc_status.hpp"
#include "ingest/formats/gpustat.hpp"
#include "ingest/formats/json_spans.hpp"
#include "ingest/formats/kernel_oom_report.hpp"
#include "ingest/formats/kernel_stamp.hpp"
#include "ingest/formats/meminfo.hpp"
#include "ingest/formats/proc_stack.hpp"
#include "ingest/formats/ps_columns.hpp"
#include "ingest/formats/sample_stamp.hpp"
#include "ingest/formats/smi_rows.hpp"
#include "ingest/formats/torchelastic_error.hpp"
#include "ingest/formats/torch_memory_snapshot.hpp"

namespace culprit::ingest::detect {
namespace {

using text::contains;
using text::is_digit;
using text::starts_with;
using text::trim;

/// Whether a line opening with `c` may be kernel text: every stamp form is_kernel_line takes
/// and every transport prefix kernel_line peels starts with `[`, `<`, a digit or a letter (a
/// month, a facility, a host), and so does a bare task row (`[`).
bool may_open_kernel_line(char c) {
  return c == '[' || c == '<' || is_digit(c) || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/// `stamp`: what a pass knows of the line's boot stamp (Scan::boot_stamp); unknown: asked here.
bool is_kernel_line(std::string_view line, BootStamp stamp = BootStamp::unknown) {
  if (line.size() < 8) return false;
  const char c = line[0];
  if (!may_open_kernel_line(c)) return false;
  // The regex's first alternative, by its bytes.
  if (stamp == BootStamp::yes || (stamp == BootStamp::unknown && kernel::starts_with_boot_stamp(line))) return true;
  // After `[`, a digit opens no stamp of the regex's but that one (dmesg -T's forms open with a
  // day's or a month's name): the bracketed date of every SGLang line (`[2026-04-09 00:47:22
  // TP0]`), and of most loggers that bracket their time, is turned away here rather than read to
  // its `]` and its tail (~115 instructions a line: 4 % of an SGLang log's scan).
  if (c == '[' && is_digit(line[1])) return false;
  // A capital letter starts a month stamp (`Apr  9 00:47:19 host tag:`, localised `Mär 09 …`)
  // or nothing of ours: without the clock's `dd:dd:dd` near the start or a ` kernel: ` tag it is
  // not taken, so that `ERROR: worker: [rank0]` does not pass for dmesg -x's lower-case
  // `kern  :err   : [`.
  // may_be_kernel_stamp reads the first bytes only: asked before the tag's search of the whole
  // line, which every capitalised line of an application log (`INFO:root:…`) would pay.
  if (!may_be_kernel_stamp(line)) return false;
  if (c >= 'A' && c <= 'Z') {
    bool clock = false;
    for (size_t k = 6; k + 8 <= line.size() && k < 16 && !clock; ++k)
      clock = line[k + 2] == ':' && line[k + 5] == ':' && is_digit(line[k]) && is_digit(line[k + 7]);
    if (!clock && !contains(line, " kernel: ")) return false;
  }
  return kernel_stamp_regex(line);
}

/// The lines of a kernel OOM report other than its anchors (formats.md §1.0: stack-dump header
/// and frames, Mem-Info figures, memcg block, select / reaper lines), so that an unstamped report
/// (console capture, `dmesg -t`, /dev/kmsg bodies) stays one kernel run. Literal checks only.
bool is_oom_report_line(std::string_view line) {
  std::string_view t = trim(line);
  if (starts_with(t, "? ")) t.remove_prefix(2);  // an unreliable stack frame
  if (t.empty()) return false;
  // Register dump `RAX: 0000000000015fd1 RBX: …`, `RIP: 0033:0x7f…`, `FS:  0000…`, `R10: …`:
  // an x86 register name, then at least four hex digits.
  if (std::size_t colon = t.find(':'); colon >= 2 && colon <= 3 && colon + 5 < t.size()) {
    static constexpr std::string_view kRegs[] = {"RIP", "RSP", "RAX", "RBX", "RCX", "RDX", "RSI", "RDI", "RBP",
                                                  "R08", "R09", "R10", "R11", "R12", "R13", "R14", "R15", "FS",
                                                  "GS", "CS", "CR2", "EIP", "ESP", "EAX", "EBX", "ECX", "EDX"};
    const std::string_view name = t.substr(0, colon);
    const std::size_t v = t.find_first_not_of(' ', colon + 1);
    bool hex = v != std::string_view::npos && v + 4 <= t.size();
    for (std::size_t k = v; hex && k < v + 4; ++k) hex = std::isxdigit(static_cast<unsigned char>(t[k])) != 0;
    if (hex)
      for (auto r : kRegs)
        if (name == r) return true;
  }
  for (std::string_view p : {"<TASK>", "</TASK>", "<IRQ>", "</IRQ>", "Workqueue: ", "Modules linked in:",
                             "Code: Unable to access opcode", "Code: Bad RIP value"})
    if (starts_with(t, p)) return true;
  // `Code: 0f 84 a5 00 …` (instruction bytes).
  if (starts_with(t, "Code: ") && t.size() > 9 && std::isxdigit(static_cast<unsigned char>(t[6])) &&
      std::isxdigit(static_cast<unsigned char>(t[7])) && t[8] == ' ')
    return true;
  // Mem-Info counter record lines: `unevictable:2047 dirty:56`, `free:34629 free_pcp:0` (pages).
  for (std::string_view p : {"unevictable:", "mapped:", "free:", "sec_pagetables:", "kernel_misc_reclaimable:"})
    if (starts_with(t, p) && t.size() > p.size() && t[p.size()] >= '0' && t[p.size()] <= '9') return true;
  switch (t[0]) {
    case 'C':
      return (starts_with(t, "CPU: ") && contains(t, " PID: ") && contains(t, " Comm: ")) || starts_with(t, "Call Trace:");
    case 'H': return starts_with(t, "Hardware name: ");
    case '[': return starts_with(t, "[<");
    case 'N':
      return starts_with(t, "Node ") && (contains(t, " free:") || contains(t, "hugepages_total=") ||
                                         contains(t, "*4kB") || contains(t, " active_anon:"));
    case 'l': return starts_with(t, "lowmem_reserve[]:");
    case 'F': return starts_with(t, "Free swap  = ");
    case 'T':
      return starts_with(t, "Total swap = ") || (starts_with(t, "Task in ") && contains(t, " killed as a result of limit of ")) ||
             (starts_with(t, "Tasks in ") && contains(t, "memory.oom.group"));
    case 'm': return (starts_with(t, "memory: usage ") || starts_with(t, "memory+swap: usage ")) && contains(t, "kB, limit ");
    case 'k': return starts_with(t, "kmem: usage ") && contains(t, "kB, limit ");
    case 's': return (starts_with(t, "swap: usage ") && contains(t, "kB, limit ")) || starts_with(t, "slab_reclaimable:");
    case 'M': return starts_with(t, "Memory cgroup stats for ") || starts_with(t, "Memory cgroup out of memory: ");
    case 'O':
      return starts_with(t, "Out of memory: Kill") || starts_with(t, "Out of memory (oom_kill_allocating_task)") ||
             starts_with(t, "Out of memory and no killable processes");
    case 'o': return starts_with(t, "oom_reaper: reaped process ");
    case 'a': return starts_with(t, "active_anon:");
    default: break;
  }
  if (t[0] >= '0' && t[0] <= '9')
    return contains(t, " pages RAM") || contains(t, " pages reserved") || contains(t, " pages in swap cache") ||
           contains(t, " total pagecache pages");
  // `dump_stack+0x6d/0x8b` (5.x frames), `sed cpuset=/ mems_allowed=0-1` (3.x-4.19).
  return (contains(t, "+0x") && contains(t, "/0x") && t.find(' ') == std::string_view::npos) ||
         (contains(t, " cpuset=") && contains(t, " mems_allowed="));
}

/// Kernel text without a stamp (console captures, `dmesg -t`): OOM report anchors and task rows,
/// NVIDIA driver (NVRM) and NVSwitch lines.
bool is_kernel_content(std::string_view line) {
  return contains(line, " invoked oom-killer: ") || kernel::is_task_row(line) || starts_with(line, "oom-kill:constraint=") ||
         contains(line, "Killed process ") || starts_with(line, "Mem-Info:") ||
         starts_with(line, "Tasks state (memory values in pages)") || contains(line, "NVRM: ") ||
         contains(line, ": SXid (") || is_oom_report_line(line);
}

/// Kernel content behind a transport prefix the stamp regex does not take (`Apr 01 14:13:32 host: `,
/// `host <kern.warning> kernel:`, a bare `kernel:`): the kernel parser's own prefix peeling decides.
bool is_prefixed_kernel_content(std::string_view line) {
  if (line.empty() || line.size() > 4096) return false;
  const kernel::KernelLine kl = kernel::parse_kernel_line(line, 0);
  return kl.kernel && kl.message.size() < line.size() && is_kernel_content(kl.message);
}

/// `Memory cgroup stats for <path>:` that opens a 5.3+ memory.stat record (formats.md §1.4.3).
bool opens_memcg_stats(std::string_view line) {
  if (!contains(line, "Memory cgroup stats for ")) return false;
  const std::string_view m = trim(kernel::parse_kernel_line(line, 0).message);
  return starts_with(m, "Memory cgroup stats for ") && !m.empty() && m.back() == ':';
}

/// One `<key> <integer>` line of that record (`anon 42897408`, `pgfault 61533557290`), with or
/// without a prefix: continuation lines of the record often have none.
bool is_memcg_stat_line(std::string_view line) {
  const std::string_view m = trim(kernel::parse_kernel_line(line, 0).message);
  const size_t sp = m.find(' ');
  if (sp == std::string_view::npos || sp == 0 || sp + 1 >= m.size()) return false;
  for (char c : m.substr(0, sp))
    if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_')) return false;
  for (char c : m.substr(sp + 1))
    if (c < '0' || c > '9') return false;
  return true;
}

bool is_smi_banner(std::string_view line) { return contains(line, "NVIDIA-SMI ") && contains(line, "Driver Version"); }
bool is_smi_processes(std::string_view line) {
  return starts_with(line, "| Processes:") || starts_with(line, "|  Processes:");
}
/// A header line of the GPU box, whole or cut at its left (`Persistence-M`, `Bus-Id`, `Memory-Usage`).
bool is_smi_header_fragment(std::string_view line) {
  return contains(line, "|") && (contains(line, "Persistence-M") || contains(line, "Bus-Id") || contains(line, "Memory-Usage"));
}
bool is_table_line(std::string_view line) {
  return starts_with(line, "|") || starts_with(line, "+-") || starts_with(line, "+=");
}
bool is_free_header(std::string_view line) {
  if (line.empty() || line[0] != ' ' || line.find("total") == std::string_view::npos) return false;
  static const text::Pattern re(R"(^\s+total\s+used\s+free\s+shared\s)");
  return re.matches(line);
}
bool is_free_row(std::string_view line) {
  auto t = trim(line);
  return starts_with(t, "Mem:") || starts_with(t, "Swap:") || starts_with(t, "Total:") ||
         starts_with(t, "-/+ buffers/cache:") || starts_with(t, "Low:") || starts_with(t, "High:");
}
/// `CONTAINER ID` and a column the parser needs besides it (docker_ps.cpp's header rule): the
/// default table has IMAGE, a `--format "table {{.ID}}\t{{.Names}}\t{{.Status}}"` one may not.
bool is_docker_header(std::string_view line) {
  // `crictl ps` heads its id column `CONTAINER` and names the pod's (`POD ID`).
  return (starts_with(line, "CONTAINER ID") || (starts_with(line, "CONTAINER ") && contains(line, "POD ID"))) &&
         (contains(line, "IMAGE") || contains(line, "STATUS") || contains(line, "STATE"));
}
bool is_ctime_line(std::string_view line) {
  if (line.size() < 10 || line.size() > 120) return false;
  static const text::Pattern re(
      R"(^(?:\s*(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\s*$|Every [\d.]+s: ))");
  return re.matches(line);
}

/// `==============NVSMI LOG==============` opens an `nvidia-smi -q` report.
bool is_nvsmi_log(std::string_view line) { return starts_with(trim(line), "==") && contains(line, "NVSMI LOG"); }
/// A line that keeps a `-q` report going: blank, indented, `GPU 0000…:…`, or a top-level
/// `Key   : value` (`Timestamp`, `Driver Version`, `Attached GPUs`).
bool continues_nvsmi_log(std::string_view line) {
  if (trim(line).empty() || line[0] == ' ' || line[0] == '\t') return true;
  if (starts_with(line, "GPU ") && line.size() > 8 && std::isxdigit(static_cast<unsigned char>(line[4]))) return true;
  const size_t sep = line.find(" : ");
  return sep != std::string_view::npos && sep < 60 && line[0] >= 'A' && line[0] <= 'Z';
}
/// `<?xml …?>` / `<!DOCTYPE nvidia_smi_log …>` / `<nvidia_smi_log>` open a `-q -x` document.
bool opens_smi_xml(const std::vector<std::string_view>& lines, size_t i, size_t e) {
  const std::string_view t = trim(lines[i]);
  if (starts_with(t, "<nvidia_smi_log") || starts_with(t, "<!DOCTYPE nvidia_smi_log")) return true;
  if (!starts_with(t, "<?xml")) return false;
  for (size_t k = i; k < e && k < i + 4; ++k)
    if (contains(lines[k], "nvidia_smi_log")) return true;
  return false;
}
/// The query keys nvidia-smi prints in a CSV header (`--query-gpu`, `--query-compute-apps`).
bool is_smi_csv_header(std::string_view line) {
  if (line.size() > 2000 || !contains(line, ", ")) return false;
  const std::string_view first = trim(line.substr(0, line.find(',')));
  static constexpr std::string_view kFirst[] = {"index", "name", "timestamp", "pid", "gpu_uuid", "gpu_bus_id",
                                                "uuid", "pci.bus_id", "gpu_name", "process_name", "driver_version"};
  bool known = false;
  for (auto k : kFirst) known = known || first == k;
  if (!known) return false;
  for (std::string_view k : {"memory.", "used_gpu_memory", "used_memory", "pci.bus_id", "process_name", "utilization.",
                             "gpu_bus_id", "gpu_uuid"})
    if (contains(line, k)) return true;
  return false;
}
/// The bracketed values nvidia-smi's CSV prints in a cell of their own.
constexpr std::string_view kSmiCsvBracketValues[] = {"[N/A]", "[Not Supported]", "[Unknown Error]", "[GPU is lost]"};

/// Whether `line` holds one of kSmiCsvBracketValues: each `[` compared with them where it is.
bool holds_smi_bracket_value(std::string_view line) {
  for (size_t at = line.find('['); at != std::string_view::npos; at = line.find('[', at + 1))
    for (const std::string_view value : kSmiCsvBracketValues)
      if (line.compare(at, value.size(), value) == 0) return true;
  return false;
}

/// Whether a PCI bus id cell (`00000000:3B:00.0`, 16 bytes) may lie in `line`: a place of its
/// `:??:??.` (kSmiCsvShapePattern) with the cell's 8 bytes before it, and after the cell's last
/// byte the line's end, a blank or a `,` (where the next cell's `, ` or the cell's trailing
/// blanks start). A time of day with its fraction (`T00:47:22.011932`, in every line of a
/// container runtime's or glog's log) holds the pattern, not the cell.
bool may_hold_bus_id_cell(std::string_view line) {
  bool found = false;
  text::for_each_pattern(line, kSmiCsvShapePattern, '?', [&](std::size_t at) {
    found = bus_id_cell_at(line, at);
    return !found;
  });
  return found;
}

/// A header-less CSV row that can only be nvidia-smi's: `, `-separated cells, one of them a
/// `<n> MiB` memory value, a bracketed `[N/A]` / `[Not Supported]`, or a PCI bus id.
bool is_smi_csv_row(std::string_view line) {
  if (line.size() > 2000 || !contains(line, ", ") || contains(line, "  ")) return false;
  // Cheap reject: a row needs a strong cell below, which holds ` MiB`, a bracketed value or a
  // bus id (a log line with `, ` and a `[` or a clock passed a look for those bytes alone and
  // was split into cells).
  if (!contains(line, " MiB") && !holds_smi_bracket_value(line) && !may_hold_bus_id_cell(line)) return false;
  int cells = 0;
  bool strong = false;
  size_t start = 0;
  while (start <= line.size()) {
    size_t comma = line.find(", ", start);
    std::string_view c = trim(line.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start));
    if (c.empty()) return false;
    ++cells;
    if (c.size() > 4 && c.substr(c.size() - 4) == " MiB" && std::isdigit(static_cast<unsigned char>(c[0]))) strong = true;
    for (const std::string_view value : kSmiCsvBracketValues) strong = strong || c == value;
    if (c.size() == 16 && c[8] == ':' && c[11] == ':' && c[14] == '.') strong = true;
    if (comma == std::string_view::npos) break;
    start = comma + 2;
  }
  return strong && cells >= 2;
}

/// A line of `--format=csv` output: `, `-separated cells or one bare value, no column padding.
bool looks_like_csv_output(std::string_view line) {
  const std::string_view t = trim(line);
  if (t.empty() || t.size() > 2000 || contains(t, "  ")) return false;
  if (contains(t, ", ")) return true;
  for (char c : t)
    if (!((c >= '0' && c <= '9') || c == '.')) return false;
  return true;
}

/// A line that starts a JSON value: `{…`, a json-seq record (RS then `{`), `[` alone, `[{…`.
bool starts_json_value(std::string_view line) {
  // Asked of every line: most start with a byte that settles it.
  if (line.empty() || !(line[0] == '{' || line[0] == '[' || line[0] == '\x1e' || text::is_space(line[0]))) return false;
  if (line[0] == '\x1e') line.remove_prefix(1);
  // Only the left ends matter: a line of blanks is empty either way (a dmesg stamp's `[  7.5]`
  // is settled at its first digit, without reading the line's end).
  const std::string_view t = text::trim_left(line);
  if (t.empty()) return false;
  if (t[0] == '{') return true;
  if (t[0] != '[') return false;
  const std::string_view rest = text::trim_left(t.substr(1));
  return rest.empty() || rest[0] == '{';
}

/// The keys json_format_of tells the JSON formats by, each one's index its place here.
constexpr std::array<std::string_view, 17> kJsonKeys = {
    "\"__REALTIME_TIMESTAMP\"", "\"__CURSOR\"", "\"_SOURCE_MONOTONIC_TIMESTAMP\"", "\"OOMKilled\"", "\"Id\"",
    "\"State\"", "\"containerStatuses\"", "\"kind\": \"Pod", "\"kind\":\"Pod", "\"apiVersion\"",
    "\"extraInfo\"", "\"py_callstack\"", "\"errorCode\"",
    "\"culprit_memory_snapshot\"", "\"total_size\"", "\"allocated_size\"", "\"blocks\""};

/// The JSON formats culprit reads, told apart by their keys (journald's `__REALTIME_TIMESTAMP`,
/// docker's `OOMKilled` / `"State"`, a Pod's `containerStatuses`); '' for any other JSON (a
/// JSON-lines application log stays an app log). `has(k)`: whether the text holds kJsonKeys[k].
/// `head`: the text the keys are looked for in (torchrun's older record, a string message, is
/// told by its shape: is_torchelastic_string_record).
template <class Has>
std::string_view json_format_of(Has has, std::string_view head) {
  if (has(0) || has(1) || has(2)) return format::kJournalJson;
  if (has(3) || (has(4) && has(5)) || has(6) || ((has(7) || has(8)) && has(9))) return format::kDockerInspect;
  if ((has(10) && (has(11) || has(12))) || is_torchelastic_string_record(head))
    return format::kTorchelasticError;
  // PyTorch's allocator snapshot (torch_memory_snapshot.hpp): the hook's header key, or segments
  // with `total_size` and `allocated_size` and a `blocks` list.
  if (has(13) || (has(14) && has(15) && has(16))) return format::kTorchMemorySnapshot;
  return {};
}

/// Whether [a, w) holds kJsonKeys[k], searched from where the last window's search left off:
/// windows that move down the text (each line's, to 64 KiB on) read each byte once a key.
/// Exact for any window (one before the last is searched from its own start).
bool window_holds(Scan& scan, std::size_t k, const char* a, const char* w) {
  if (scan.json_keys.empty()) scan.json_keys.resize(kJsonKeys.size());
  Scan::KeyCursor& c = scan.json_keys[k];
  const std::string_view key = kJsonKeys[k];
  if (c.from == nullptr || a < c.from || (c.found != nullptr && c.found < a)) c = {a, nullptr, a};
  c.from = a;
  if (c.found != nullptr) return c.found + key.size() <= w;  // the first place at or after `a`
  if (w <= c.to) return false;                             // none ends before `to`
  // No place from `a` ends before `to`: one starting at `to - (size - 1)` or later may.
  const char* start = std::max(a, c.to - std::min<std::ptrdiff_t>(c.to - a, static_cast<std::ptrdiff_t>(key.size()) - 1));
  // memmem, not string_view::find: find looks for the key's first byte, a `"` (every few bytes
  // of JSON), and compares the key at each; memmem skips by the key's byte pairs.
  const void* at = memmem(start, static_cast<std::size_t>(w - start), key.data(), key.size());
  if (at == nullptr) {
    c.to = w;
    return false;
  }
  c.found = static_cast<const char*>(at);
  return true;
}

constexpr size_t kMaxJsonValueLines = 20000;  // one docker inspect is ~250 lines

/// End (exclusive) of the run of JSON values starting at line `i`. Values may follow each
/// other (json lines, json-seq, two pretty objects); blank lines between them are kept. A value
/// still open at `e` (a paste cut short) or after kMaxJsonValueLines runs to there and sets `cut`.
size_t json_run_end(const std::vector<std::string_view>& lines, size_t i, size_t e, bool& cut,
                    std::vector<size_t>& starts) {
  size_t end = i;
  size_t k = i;
  cut = false;
  starts.clear();
  while (k < e && starts_json_value(lines[k])) {
    starts.push_back(k);
    int depth = 0;
    size_t j = k;
    const size_t limit = std::min(e, k + kMaxJsonValueLines);
    for (; j < limit; ++j) {
      depth += json::depth_change(lines[j]);
      if (depth <= 0) break;
    }
    if (j >= limit) {
      cut = true;
      return limit;
    }
    end = j + 1;
    k = end;
    while (k < e && trim(lines[k]).empty()) ++k;
  }
  return end;
}

bool is_describe_key(std::string_view line) {
  static const text::Pattern re(R"(^[A-Z][A-Za-z /-]{0,40}:(?:\s|$))");
  return re.matches(line);
}

/// `kubectl describe pod|node`: `Name:  x` then `Namespace:` (pod) or `Roles:` (node).
bool starts_kubectl_describe(const std::vector<std::string_view>& lines, size_t i, size_t e) {
  if (!starts_with(lines[i], "Name:") || lines[i].size() < 7 || (lines[i][5] != ' ' && lines[i][5] != '\t'))
    return false;
  for (size_t k = i + 1; k < e && k < i + 4; ++k)
    if (starts_with(lines[k], "Namespace:") || starts_with(lines[k], "Roles:")) return true;
  return false;
}

/// The JSON value run at `i`, memoised in the scan (both JSON formats ask at the same line).
const Scan::JsonRun& json_run(Scan& scan, size_t i) {
  if (scan.json.at != i) {
    // A value start the last walk passed ends where it did (the walk from there is the same).
    Scan::JsonRun& run = scan.json;
    if (!std::binary_search(run.starts.begin(), run.starts.end(), i))
      run.end = json_run_end(scan.lines, i, scan.end, run.cut, run.starts);
    run.at = i;
    const char* a = scan.lines[i].data();
    const char* z = scan.lines[run.end - 1].data() + scan.lines[run.end - 1].size();
    const char* w = a + std::min<size_t>(static_cast<size_t>(z - a), 65536);
    run.format = json_format_of([&](std::size_t k) { return window_holds(scan, k, a, w); },
                                std::string_view(a, static_cast<std::size_t>(w - a)));
  }
  return scan.json;
}

/// A JSON format's block: the run of values whose keys are `id`'s. JSON that no JSON format
/// reads (a JSON-lines app log) is opaque as a whole closed run, so it is scanned once; a cut
/// one only its first line.
Detection json_block(Scan& scan, size_t i, std::string_view id) {
  if (!starts_json_value(scan.lines[i])) return {};
  const Scan::JsonRun& run = json_run(scan, i);
  if (run.format == id) return {i, run.end};
  if (run.format.empty()) return {i, run.cut ? i + 1 : run.end, true};
  return {};
}

}  // namespace

bool bus_id_cell_at(std::string_view line, std::size_t at) {
  const std::size_t end = at + 8;  // the cell is line[at - 8, at + 8)
  return at >= 8 && end <= line.size() && (end == line.size() || text::is_space(line[end]) || line[end] == ',');
}

namespace {

/// `[` whose bracket may be a dmesg stamp: boot seconds (`[  42.123]`, blanks and digits and a
/// dot up to the first `]`) or a -T time (`[Thu Apr  9 00:47:19 2026]`: the first `]` closes
/// `dd:dd:dd dddd`).
bool may_be_bracket_stamp(std::string_view line, std::size_t open) {
  const std::size_t close = line.find(']', open);
  if (close == std::string_view::npos) return false;
  bool seconds = close > open + 1;
  for (std::size_t k = open + 1; k < close && seconds; ++k)
    seconds = is_digit(line[k]) || line[k] == '.' || text::is_space(line[k]);  // a superset of RE2's \s
  if (seconds) return true;
  if (close < open + 15) return false;
  const std::string_view tail = line.substr(close - 13, 13);  // `dd:dd:dd dddd`
  return is_digit(tail[0]) && is_digit(tail[1]) && tail[2] == ':' && is_digit(tail[3]) && is_digit(tail[4]) && tail[5] == ':' &&
         is_digit(tail[6]) && is_digit(tail[7]) && tail[8] == ' ' && is_digit(tail[9]) && is_digit(tail[10]) &&
         is_digit(tail[11]) && is_digit(tail[12]);
}

/// RE2's \s: tab, newline, form feed, carriage return, blank (not \v, which is_space takes).
constexpr bool regex_space(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; }
/// RE2's \w (ASCII in every mode).
constexpr bool regex_word(char c) { return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
constexpr text::ByteSet kRegexSpace(regex_space);
constexpr text::ByteSet kRegexWord(regex_word);
/// The bytes of a month stamp's name, `[^\s\d]`.
constexpr text::ByteSet kMonthNameByte([](char c) { return !(is_digit(c) || regex_space(c)); });

/// A syslog month stamp `[A-Z][^\s\d]{2,7} [ \d]\d dd:dd:dd` (`Apr  9 00:47:19`, `Mär 09 …`); the
/// ` host kernel: ` form starts with one too.
bool month_stamp(std::string_view line) {
  const std::size_t m = kMonthNameByte.span(line.substr(0, 9), 1);
  if (m < 3 || m > 8 || m + 12 > line.size() || line[m] != ' ') return false;
  const std::string_view t = line.substr(m + 1, 11);  // `[ \d]\d dd:dd:dd`
  return (t[0] == ' ' || is_digit(t[0])) && is_digit(t[1]) && t[2] == ' ' && is_digit(t[3]) && is_digit(t[4]) && t[5] == ':' &&
         is_digit(t[6]) && is_digit(t[7]) && t[8] == ':' && is_digit(t[9]) && is_digit(t[10]);
}

/// dmesg -x's facility and level, `\w+\s*:\s*\w+\s*: \[` at the start (`kern  :warn  : [`): read
/// byte by byte as the regex reads it, so a line is never scanned past its first words.
bool facility_level_stamp(std::string_view line) {
  std::size_t i = 0;
  const auto word = [&] {
    const std::size_t from = i;
    i = kRegexWord.span(line, i);
    return i > from;
  };
  const auto blanks = [&] { i = kRegexSpace.span(line, i); };
  if (!word()) return false;
  blanks();
  if (i == line.size() || line[i] != ':') return false;
  ++i;
  blanks();
  if (!word()) return false;
  blanks();
  return i + 2 < line.size() && line[i] == ':' && line[i + 1] == ' ' && line[i + 2] == '[';
}

}  // namespace

bool may_be_kernel_stamp(std::string_view line) {
  if (line.empty()) return false;
  const char c = line[0];
  // By the byte each alternative of the two regexes starts with.
  if (c == '[') return may_be_bracket_stamp(line, 0);
  if (c == '<') {  // `<6>[ 42.1]`
    std::size_t k = 1;
    while (k < line.size() && is_digit(line[k])) ++k;
    return k > 1 && k + 1 < line.size() && line[k] == '>' && line[k + 1] == '[' && may_be_bracket_stamp(line, k + 1);
  }
  // Each check below reads the line's first bytes only.
  if (is_digit(c)) {
    // An ISO stamp `2024-04-09T…` (syslog, journal, dmesg --time-format iso), a kmsg record
    // `6,1234,5678,-;`, or dmesg -x's facility and level.
    if (line.size() > 10 && line[4] == '-' && line[10] == 'T') return true;
    // (A byte table, not find_first_not_of, which calls memchr on its set once a byte: ~20
    // instructions a byte on every line of a log that opens with its date.)
    const std::size_t after = text::kDigits.span(line, 0);
    return (after < line.size() && line[after] == ',') || facility_level_stamp(line);
  }
  if (c >= 'A' && c <= 'Z') return month_stamp(line) || facility_level_stamp(line);
  if ((c >= 'a' && c <= 'z') || c == '_') return starts_with(line, "kern") || facility_level_stamp(line);
  return false;
}

/// False where a line opening with an ISO stamp (`2026-04-09T…`: a container runtime's, a
/// `docker logs -t` line) can match none of kernel_stamp_regex's alternatives, by their bytes:
/// an ISO line matches only the `kernel: ` tag, dmesg's `,dddddd` microseconds at byte 19, or a
/// syslog header (stamp, host, then a tag of no blank, `:` or `[` that ends in `:` or `[pid]:`).
/// True for every other line (the regexes decide).
bool iso_stamp_may_match(std::string_view line) {
  if (!(line.size() > 10 && is_digit(line[0]) && line[4] == '-' && line[10] == 'T')) return true;
  if (line.size() > 19 && line[19] == ',') return true;
  const std::size_t stamp_end = line.find(' ');
  if (stamp_end == std::string_view::npos) return false;
  const std::size_t host_end = line.find(' ', stamp_end + 1);
  if (host_end == std::string_view::npos) return false;
  // The `kernel: ` tag right after the host (the regex's `\S* \S+ kernel: `: neither token holds
  // a blank), not anywhere in the line: a container log's lines are turned away without a search.
  if (line.compare(host_end, 9, " kernel: ") == 0) return true;
  std::size_t k = host_end + 1;
  while (k < line.size() && !regex_space(line[k]) && line[k] != ':' && line[k] != '[') ++k;
  return k > host_end + 1 && k < line.size() && (line[k] == ':' || line[k] == '[');
}

namespace {
/// Whether `line` opens with the syslog / journalctl short header kernel_stamp_regex's `syslog`
/// pattern reads (`Apr  9 00:47:22 node-00 tag[pid]: `, `2026-04-09T00:47:22+0000 host tag: `),
/// in bytes, for the common forms only (an English month of three letters, ASCII): true only
/// where the pattern matches as well (false: the regexes decide). Every line of a kern.log or a
/// `messages` file is asked: the two regexes were a sixth of such a scan.
bool syslog_header_fast(std::string_view s) {
  using text::kDigits;
  static constexpr text::ByteSet kTagByte([](char c) { return c > ' ' && c < 0x7f && c != ':' && c != '['; });
  // The shortest header is `Mmm dd hh:mm:ss h t: ` (21 bytes): every fixed place below is inside.
  const std::size_t n = s.size();
  if (n < 21) return false;
  const char* p = s.data();
  const auto d = [p](std::size_t k) { return is_digit(p[k]); };
  const auto lower = [p](std::size_t k) { return p[k] >= 'a' && p[k] <= 'z'; };
  const auto hms = [&](std::size_t k) {
    return d(k) && d(k + 1) && p[k + 2] == ':' && d(k + 3) && d(k + 4) && p[k + 5] == ':' && d(k + 6) && d(k + 7);
  };
  std::size_t i = 0;
  if (p[0] >= 'A' && p[0] <= 'Z' && lower(1) && lower(2) && p[3] == ' ') {
    if (!(p[4] == ' ' || d(4)) || !d(5) || p[6] != ' ' || !hms(7)) return false;
    i = 15;
    if (p[i] == '.' && d(i + 1)) i = kDigits.span(s, i + 1);
  } else if (d(0) && d(1) && d(2) && d(3) && p[4] == '-' && d(5) && d(6) && p[7] == '-' && d(8) && d(9) && p[10] == 'T' &&
             hms(11)) {
    i = 19;
    if ((p[i] == '.' || p[i] == ',') && d(i + 1)) i = kDigits.span(s, i + 1);
    if (i < n && p[i] == 'Z') {
      ++i;
    } else if (i + 2 < n && (p[i] == '+' || p[i] == '-') && d(i + 1) && d(i + 2)) {
      i += 3;
      if (i < n && p[i] == ':') ++i;
      if (i + 1 >= n || !d(i) || !d(i + 1)) return false;
      i += 2;
    } else {
      return false;
    }
  } else {
    return false;
  }
  if (i >= n || p[i] != ' ') return false;
  const std::size_t host = ++i;
  i = text::kHostChars.span(s, i);
  if (i == host || i >= n || p[i] != ' ') return false;
  const std::size_t tag = ++i;
  i = kTagByte.span(s, i);
  if (i == tag) return false;
  if (i < n && p[i] == '[') {
    const std::size_t pid = ++i;
    i = kDigits.span(s, i);
    if (i == pid || i >= n || p[i] != ']') return false;
    ++i;
  }
  return i + 1 < n && p[i] == ':' && p[i + 1] == ' ';
}
}  // namespace

bool kernel_stamp_regex(std::string_view line) {
  // One alternation: raw dmesg, dmesg -T, syslog / journal with a `kernel:` tag, dmesg iso
  // (optionally -x decoded), kmsg records, -x decoded raw stamps.
  static const text::Pattern re(
      R"(^(?:(?:<\d+>)?\[\s*\d+\.\d+\])"
      R"(|\[(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4}\])"
      R"(|\[[^\]\d]{2,12}[^\]]{2,14} \d\d:\d\d:\d\d \d{4}\])"  // dmesg -T in another locale
      R"(|(?:[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)?|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\S*) \S+ kernel: )"
      R"(|(?:kern\s*:\s*\w+\s*: )?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d,\d{6}[+-]\d\d:\d\d )"
      R"(|\d+,\d+,\d+,[-c+][^;]*;)"
      R"(|\w+\s*:\s*\w+\s*: \[))");
  // Any syslog / journalctl short header (`Apr 09 00:46:51 ws-4090 systemd-oomd[734]: `): the
  // kernel-log parser reads every tag of such files (earlyoom, systemd, kubelet, slurmd), with
  // the line's own host, stamp and pid.
  static const text::Pattern syslog(
      R"(^(?:[A-Z][^\s\d]{2,7} [ \d]\d \d\d:\d\d:\d\d(?:\.\d+)?|\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)))"
      R"( [A-Za-z0-9_.-]+ [^\s:\[]+(?:\[\d+\])?: )");
  // An ISO-stamped line no alternative can match is turned away first: every line of a
  // container runtime's log opens with such a stamp, and syslog_header_fast would read it to
  // its tag again. (Where syslog_header_fast matches, iso_stamp_may_match does too.)
  if (!iso_stamp_may_match(line)) return false;
  if (syslog_header_fast(line) || kernel::starts_with_ctime_stamp(line)) return true;
  return re.matches(line) || syslog.matches(line);
}

bool kernel_line(std::string_view line) {
  return is_kernel_line(line) || is_kernel_content(line) || is_prefixed_kernel_content(line);
}

bool json_shape(std::string_view line) { return starts_json_value(line); }
bool json_first(char c) { return c == '{' || c == '[' || c == '\x1e'; }

bool smi_row_shape(std::string_view line) {
  const std::string_view t = text::trim_left(line);
  return !t.empty() && smi_row_first(t[0]) && (smi_rows::is_process_row(t) || smi_rows::is_gpu_row(t));
}
bool smi_row_first(char c) { return c == '|'; }

bool smi_xml_shape(std::string_view line) {
  if (line.empty() || !(line[0] == '<' || text::is_space(line[0]))) return false;  // most lines, by one byte
  return starts_with(trim(line), "<");
}
bool smi_xml_first(char c) { return c == '<'; }

bool smi_csv_shape(std::string_view line) {
  // A PCI bus id cell `00000000:3B:00.0`, `:` at its 8th and 11th byte and `.` at its 14th,
  // among `, `-separated cells. The sniffer asks this only at lines its section pass found the
  // bus id's shape in (FormatSpec::unanchored_pattern). A line opening with a colour code or a
  // kernel stamp is a log line (smi_csv_first, ShapedRows::at). A line holding no anchor (the
  // only kind asked) is a row only by such a cell (every other strong cell, and a header, holds
  // an anchor: is_smi_csv_row, is_smi_csv_header), so the cell's place is asked for first.
  if (line.size() > 2000 || !may_hold_bus_id_cell(line) || !contains(line, ", ")) return false;
  const std::string_view t = text::trim_left(line);  // not empty: it holds the `,`
  return smi_csv_first(t[0]) && !kernel::starts_with_boot_stamp(t);
}
bool smi_csv_first(char c) { return c != '\x1b'; }

bool gpustat_shape(std::string_view line) {
  if (!gpustat::may_be_gpu_line(line)) return false;
  return gpustat::parse_gpu_line(text::strip_ansi(line)).has_value();
}
bool gpustat_first(char c) { return c == '['; }

bool ps_shape(std::string_view line) {
  // ps_block's two ways in: a header (parse_header's first tokens, then the `PID` in it; the
  // cheap test first), or a row whose header grep ate. Each turns a line away by its first byte
  // (ps_first), which the sniffer asks before this.
  // Both start with two tokens that may_open_listing reads first: a log line fails there.
  if (!ps::may_open_listing(line)) return false;
  const std::string_view t = trim(line);
  return (ps::may_be_header(t) && contains(line, "PID")) || ps::headerless_layout(t) != nullptr;
}
bool ps_first(char c) { return ps::may_start_listing(c); }

namespace {
/// kernel_shape, told what a pass knows of the line's boot stamp.
bool kernel_shape(std::string_view line, BootStamp stamp) {
  // A line opening otherwise (a colour code, a worker's `(…)` prefix) is no kernel text,
  // whatever it holds: kernel_line claims none. An indented one may be (a task row behind a
  // priority, peeled by the kernel parser).
  if (line.empty() || !(may_open_kernel_line(line[0]) || line[0] == ' ' || line[0] == '\t')) return false;
  if (is_kernel_line(line, stamp)) return true;
  // A task row `[  1234]     0  1234 …`, here or behind a prefix the kernel parser peels: read
  // by kernel::is_task_row itself at each `[` (a glog or TensorFlow line's `cc:674] 2 Chunks`
  // is none; a vLLM line's `[file.py:84]` fails at its first byte).
  for (size_t p = line.find('['); p != std::string_view::npos; p = line.find('[', p + 1))
    if (kernel::is_task_row(line.substr(p))) return true;
  return false;
}

/// kernel_line at line i, asked only where the line may hold one of the kernel row's anchors
/// (Scan::anchored, kKernelAnchorBit): a line with none is kernel text only by its shape.
bool kernel_at(const Scan& scan, size_t i) {
  return scan.may_anchor(i, kKernelAnchorBit) ? kernel_line(scan.lines[i])
                                              : kernel_shape(scan.lines[i], scan.boot_stamp(i));
}
}  // namespace

bool kernel_shape(std::string_view line) { return kernel_shape(line, BootStamp::unknown); }

Detection kernel_run(Scan& scan, size_t i) {
  const auto& lines = scan.lines;
  const size_t e = scan.end;
  if (!kernel_at(scan, i)) return {};
  // A memory.stat record's key/value lines follow its opener, which holds the anchor
  // `Memory cgroup `: a line without an anchor opens none.
  const auto opens_stats = [&scan](size_t k) { return scan.may_anchor(k, kKernelAnchorBit) && opens_memcg_stats(scan.lines[k]); };
  bool in_stats = opens_stats(i);
  size_t j = i + 1;
  while (j < e) {
    if (in_stats && is_memcg_stat_line(lines[j])) { ++j; continue; }
    in_stats = false;
    if (kernel_at(scan, j)) {
      in_stats = opens_stats(j);
      ++j;
      continue;
    }
    // Unstamped lines inside a kernel run stay in it: lines indented under the message are
    // the continuation of a multi-line record (dmesg prints memory.stat, Mem-Info and the
    // NVRM crash-dump notice so), and others (wrapped rows) when the run resumes within a
    // few lines.
    if (lines[j].size() > 2 && lines[j][0] == ' ' && lines[j][1] == ' ') {
      ++j;
      continue;
    }
    size_t look = j;
    while (look < e && look < j + 8 && !kernel_at(scan, look)) ++look;
    if (look < e && look < j + 8) { j = look; continue; }
    break;
  }
  return {i, j};
}

Detection smi_table(Scan& scan, size_t i) {
  const auto& lines = scan.lines;
  const size_t b = scan.begin, e = scan.end;
  const std::string_view line = lines[i];
  if (!(is_smi_banner(line) || (is_smi_processes(line) && i + 1 < e) || smi_row_shape(line))) return {};
  size_t start = i;
  while (start > b && is_table_line(lines[start - 1])) --start;
  // A paste cut inside the header keeps the header's tail, which no longer opens with `|`
  // (`Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |`).
  if (start > b && is_smi_header_fragment(lines[start - 1])) --start;
  if (start > b && is_ctime_line(lines[start - 1])) --start;
  if (start > b && is_ctime_line(lines[start - 1])) --start;  // watch header above a timestamp
  // `watch` prints its header, then a blank line, then the command's output.
  for (size_t up = start; up > b && up + 3 > start; --up) {
    if (!trim(lines[up - 1]).empty()) {
      if (up < start && starts_with(lines[up - 1], "Every ") && is_ctime_line(lines[up - 1])) start = up - 1;
      break;
    }
  }
  size_t end = i + 1;
  while (end < e) {
    if (is_table_line(lines[end])) { ++end; continue; }
    // A blank line separates the GPU box from the Processes box.
    if (trim(lines[end]).empty() && end + 1 < e && is_table_line(lines[end + 1])) { ++end; continue; }
    break;
  }
  return {start, end};
}

Detection gpustat_block(Scan& scan, size_t i) {
  const auto& lines = scan.lines;
  const size_t b = scan.begin, e = scan.end;
  if (!gpustat_shape(lines[i])) return {};
  const auto header = [&lines](size_t k) { return gpustat::parse_header(text::strip_ansi(lines[k])).has_value(); };
  const size_t start = i > b && header(i - 1) ? i - 1 : i;
  // GPU lines, --show-full-cmd lines under them, and the next header of a `gpustat -i` loop
  // (blank lines between samples too, where a sample follows).
  size_t end = i + 1;
  while (end < e) {
    if (gpustat_shape(lines[end]) || gpustat::is_full_cmd_line(lines[end])) { ++end; continue; }
    size_t k = end;
    while (k < e && k < end + 3 && trim(lines[k]).empty()) ++k;
    if (k + 1 < e && header(k) && gpustat_shape(lines[k + 1])) { end = k + 2; continue; }
    if (k > end && k < e && gpustat_shape(lines[k])) { end = k + 1; continue; }
    break;
  }
  return {start, end};
}

Detection free_block(Scan& scan, size_t i) {
  const auto& lines = scan.lines;
  const size_t e = scan.end;
  if (!is_free_header(lines[i])) return {};
  size_t end = i + 1;
  while (end < e && (is_free_row(lines[end]) || (trim(lines[end]).empty() && end + 1 < e &&
                                                  (is_free_header(lines[end + 1]) || is_free_row(lines[end + 1])))))
    ++end;
  while (end < e && is_free_header(lines[end])) {  // free -s repeats
    ++end;
    while (end < e && (is_free_row(lines[end]) || trim(lines[end]).empty())) ++end;
  }
  return {i, end};
}

namespace {
/// The block starts one line higher when that line is a sample stamp (sample_stamp.hpp).
size_t with_stamp_above(const Scan& scan, size_t i) {
  return i > scan.begin && sample_stamp::parse(scan.lines[i - 1]) ? i - 1 : i;
}
}  // namespace

Detection meminfo_block(Scan& scan, size_t i) {
  const auto& lines = scan.lines;
  if (!meminfo::is_anchor(lines[i])) return {};
  size_t end = i + 1;
  while (end < scan.end && !meminfo::is_anchor(lines[end]) && meminfo::parse_line(lines[end])) ++end;
  return {with_stamp_above(scan, i), end};
}

Detection cgroup_memory_block(Scan& scan, size_t i) {
  const auto& lines = scan.lines;
  const size_t e = scan.end;
  if (!cgroup_memory::is_memory_header(lines[i])) return {};
  // Headers and their content; `head` puts a blank line before each header after the first.
  size_t end = i + 1;
  while (end < e) {
    if (cgroup_memory::is_listing_header(lines[end]) || cgroup_memory::is_body_line(lines[end])) {
      ++end;
      continue;
    }
    if (trim(lines[end]).empty() && end + 1 < e && cgroup_memory::is_listing_header(lines[end + 1])) {
      ++end;
      continue;
    }
    break;
  }
  return {with_stamp_above(scan, i), end};
}

Detection journal_json(Scan& scan, size_t i) { return json_block(scan, i, format::kJournalJson); }
Detection docker_inspect(Scan& scan, size_t i) { return json_block(scan, i, format::kDockerInspect); }
Detection torchelastic_error(Scan& scan, size_t i) { return json_block(scan, i, format::kTorchelasticError); }
Detection torch_memory_snapshot(Scan& scan, size_t i) { return json_block(scan, i, format::kTorchMemorySnapshot); }

Detection kubectl_describe(Scan& scan, size_t i) {
  const auto& lines = scan.lines;
  const size_t e = scan.end;
  if (!starts_kubectl_describe(lines, i, e)) return {};
  size_t end = i + 1;
  while (end < e && (trim(lines[end]).empty() || lines[end][0] == ' ' || lines[end][0] == '\t' ||
                     is_describe_key(lines[end])))
    ++end;
  while (end > i + 1 && trim(lines[end - 1]).empty()) --end;
  return {i, end};
}

Detection smi_q(Scan& scan, size_t i) {
  const auto& lines = scan.lines;
  const size_t e = scan.end;
  if (!is_nvsmi_log(lines[i])) return {};
  size_t end = i + 1;
  while (end < e && continues_nvsmi_log(lines[end])) ++end;
  while (end > i + 1 && trim(lines[end - 1]).empty()) --end;
  return {i, end};
}

Detection smi_xml(Scan& scan, size_t i) {
  const auto& lines = scan.lines;
  const size_t e = scan.end;
  if (!(starts_with(trim(lines[i]), "<") && opens_smi_xml(lines, i, e))) return {};
  size_t end = i + 1;
  while (end < e) {
    const std::string_view l = lines[end];
    if (contains(l, "</nvidia_smi_log>")) { ++end; break; }
    if (!l.empty() && l[0] != ' ' && l[0] != '\t' && l[0] != '<') break;  // cut: other text follows
    ++end;
  }
  while (end > i + 1 && trim(lines[end - 1]).empty()) --end;
  return {i, end};
}

Detection smi_csv(Scan& scan, size_t i) {
  const auto& lines = scan.lines;
  const size_t e = scan.end;
  const std::string_view line = lines[i];
  const bool header = is_smi_csv_header(line);
  if (!header && !is_smi_csv_row(line)) return {};
  size_t end = i + 1;
  while (end < e && (is_smi_csv_row(lines[end]) || is_smi_csv_header(lines[end]) ||
                     (header && contains(lines[end], ", ") && !contains(lines[end], "  "))))
    ++end;
  return {i, end};
}

namespace {
/// A ps row without its header (`ps aux | grep X`): ps_columns.hpp's shape check decides (it
/// turns a log line away at its first three tokens).
const ps::Header* headerless_ps_row(std::string_view line) { return ps::headerless_layout(trim(line)); }
}  // namespace

Detection ps_block(Scan& scan, size_t i) {
  const auto& lines = scan.lines;
  const size_t e = scan.end;
  if (headerless_ps_row(lines[i])) {
    // Rows whose header grep ate: as long as rows of either layout follow.
    size_t end = i + 1;
    while (end < e && headerless_ps_row(lines[end])) ++end;
    return {i, end};
  }
  if (!contains(lines[i], "PID")) return {};
  const auto header = ps::parse_header(trim(lines[i]));
  if (!header) return {};
  // A ps listing: its rows until a blank line or a line that does not fit the header.
  size_t end = i + 1;
  while (end < e && !trim(lines[end]).empty() && ps::split_row(trim(lines[end]), *header).ok) ++end;
  if (end == i + 1) return {};
  return {i, end};
}

Detection proc_stack(Scan& scan, size_t i) {
  const auto& lines = scan.lines;
  const size_t e = scan.end;
  // The command that names the pid, then at least one frame; the frames run to the first other line.
  if (!contains(lines[i], "/stack") || !proc_stack::stack_command_pid(lines[i])) return {};
  size_t end = i + 1;
  while (end < e && proc_stack::parse_frame(lines[end])) ++end;
  if (end == i + 1) return {};
  return {i, end};
}

Detection proc_status_block(Scan& scan, size_t i) {
  const auto& lines = scan.lines;
  const size_t e = scan.end;
  if (!proc_status::is_header(lines[i])) return {};
  size_t end = i + 1;
  while (end < e && (proc_status::is_header(lines[end]) || proc_status::is_body_line(lines[end]))) ++end;
  return {i, end};
}

Detection docker_ps(Scan& scan, size_t i) {
  const auto& lines = scan.lines;
  const size_t e = scan.end;
  if (!is_docker_header(lines[i])) return {};
  // Its rows until a blank line (a scan section never holds a prompt line: prompts end it).
  size_t end = i + 1;
  while (end < e && !trim(lines[end]).empty()) ++end;
  return {i, end};
}

// `nvidia-smi --query-gpu=… --format=csv,noheader,nounits` prints bare numbers no anchor tells.
bool announces_smi_csv(std::string_view cmd) {
  return contains(cmd, "nvidia-smi") && (contains(cmd, "--query-gpu") || contains(cmd, "--query-compute-apps"));
}

bool continues_smi_csv(std::string_view line) { return trim(line).empty() || looks_like_csv_output(line); }

// `nvidia-smi -q | grep -A5 "FB Memory"` prints -q lines without the NVSMI LOG banner.
bool announces_smi_q(std::string_view cmd) {
  if (!contains(cmd, "nvidia-smi") || announces_smi_csv(cmd)) return false;
  const bool xml = contains(cmd, " -x") || contains(cmd, "--xml-format") || contains(cmd, " -qx");
  return !xml && (contains(cmd, " -q") || contains(cmd, "--query"));
}

bool continues_smi_q(std::string_view line) {  // `--` separates grep -A groups
  return trim(line) == "--" || (continues_nvsmi_log(line) && !starts_with(trim(line), "<"));
}

bool announces_proc_stack(std::string_view cmd) {
  return contains(cmd, "/stack") && proc_stack::stack_command_pid(cmd).has_value();
}

bool continues_proc_stack(std::string_view line) { return proc_stack::parse_frame(line).has_value(); }

}  // namespace culprit::ingest::detect
