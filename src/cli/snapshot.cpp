// The snapshot table and its two runners (here, over ssh). The formats: nvidia-smi's default
// table, `-q -x` XML and `--query-*` CSV with headers; `ps -o` with a header and lstart (exact
// start times, UTC); `free` (KiB); `dmesg --time-format iso` (absolute stamps), else
// `journalctl -k -o short-iso`; `docker ps -a` with its header and `docker inspect` JSON;
// /proc/meminfo and the cgroup's memory files (`==> PATH <==` per file) under a stamp line of
// the time they were read (kStampShell) — each read by culprit's own parsers. The environment is
// kept for people.
#include "cli/snapshot.hpp"

#include <fmt/format.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <set>

#include "cli/commands.hpp"

namespace culprit::cli {
namespace {

// The time the next files are read, on the node's clock: /proc/meminfo and the cgroup files
// carry none, and a sample without one could not be placed on the memory chart. Its shape is
// ingest's sample stamp (src/ingest/formats/sample_stamp.hpp).
#define CULPRIT_STAMP_SHELL "date -u +%Y-%m-%dT%H:%M:%S.%NZ; "
constexpr std::string_view kMeminfoShell = CULPRIT_STAMP_SHELL "cat /proc/meminfo";

// The cgroup of the shell that runs it (for `culprit run`: the job's, which it inherits), v2 or v1.
constexpr std::string_view kCgroupShell =
    CULPRIT_STAMP_SHELL
    "p=$(sed -n 's/^0:://p' /proc/self/cgroup); "
    "if [ -n \"$p\" ] && [ -r \"/sys/fs/cgroup${p%/}/memory.current\" ]; then d=\"/sys/fs/cgroup${p%/}\"; "
    "for f in memory.current memory.max memory.high memory.peak memory.swap.current memory.swap.max "
    "memory.events memory.stat; do [ -r \"$d/$f\" ] && { echo \"==> $d/$f <==\"; cat \"$d/$f\"; }; done; "
    "else p=$(sed -n 's/^[0-9]*:[^:]*memory[^:]*://p' /proc/self/cgroup); d=\"/sys/fs/cgroup/memory$p\"; "
    "for f in memory.usage_in_bytes memory.limit_in_bytes memory.max_usage_in_bytes memory.failcnt "
    "memory.oom_control memory.stat; do [ -r \"$d/$f\" ] && { echo \"==> $d/$f <==\"; cat \"$d/$f\"; }; done; fi; "
    "echo \"==> /proc/self/cgroup <==\"; cat /proc/self/cgroup";
#undef CULPRIT_STAMP_SHELL

constexpr std::string_view kEnvShell =
    "env | grep -E '^(CUDA_VISIBLE_DEVICES|NVIDIA_VISIBLE_DEVICES|CUDA_DEVICE_ORDER|CUDA_LAUNCH_BLOCKING|"
    "PYTORCH_CUDA_ALLOC_CONF|PYTORCH_[A-Z_]+|NCCL_[A-Z_]+|SLURM_[A-Z_]+|RANK|LOCAL_RANK|WORLD_SIZE|"
    "LOCAL_WORLD_SIZE|GROUP_RANK|ROLE_RANK|MASTER_ADDR|MASTER_PORT|TORCHELASTIC_[A-Z_]+|OMP_NUM_THREADS|"
    "VLLM_[A-Z_]+|SGLANG_[A-Z_]+|XLA_[A-Z_]+|KUBERNETES_SERVICE_HOST|HOSTNAME)=' | sort || true";

constexpr std::string_view kGpuQueryShell =
    "nvidia-smi --query-gpu=timestamp,index,name,pci.bus_id,uuid,memory.total,memory.used,memory.free,"
    "utilization.gpu --format=csv && "
    "nvidia-smi --query-compute-apps=gpu_uuid,pid,process_name,used_gpu_memory --format=csv";

// The process facts of each GPU holder nvidia-smi lists and of the job's own pid
// (CULPRIT_JOB_PID, `culprit run`): /proc/PID/status and /proc/PID/cgroup under `==> PATH <==`
// headers, after the pid namespace they were read from (the initial one's link proves a missing
// pid is gone, not out of sight); `(no such process)` where /proc has none. Each file is read
// before its header is printed: a process gone between the check and the read is `(no such
// process)`, not a header with nothing under it, and a cgroup file it no longer has is left out.
// Only lines that are a pid alone are read as one (`No running processes found` is none). At
// most 256 pids. Read by src/ingest/formats/proc_status.cpp.
constexpr std::string_view kProcStatusShell =
    "echo '==> /proc/self/ns/pid <=='; readlink /proc/self/ns/pid; "
    "{ [ -n \"$(command -v nvidia-smi)\" ] && nvidia-smi --query-compute-apps=pid --format=csv,noheader; "
    "echo \"${CULPRIT_JOB_PID:-}\"; } | sed -n 's/^ *\\([1-9][0-9]\\{0,9\\}\\) *$/\\1/p' | sort -un | head -n 256 | "
    "while read -r p; do echo \"==> /proc/$p/status <==\"; "
    "if s=$(cat \"/proc/$p/status\" 2>/dev/null) && [ -n \"$s\" ]; then printf '%s\\n' \"$s\"; "
    "c=$(cat \"/proc/$p/cgroup\" 2>/dev/null); [ -z \"$c\" ] || printf '==> /proc/%s/cgroup <==\\n%s\\n' \"$p\" \"$c\"; "
    "else echo '(no such process)'; fi; done";

// The job's own resource limits (/proc/PID/limits of CULPRIT_JOB_PID) under the same header as
// proc-status.txt: an address-space or data ceiling (ulimit -v / -d, a scheduler's) refuses an
// allocation long before the host runs out, and only the job's own limits show it. Read in every
// sample: the job may set them just after it starts (prlimit, a wrapper's ulimit), and a sample
// at once would miss them. Nothing when the job has no pid or is gone, even gone between the
// check and the read: the file is read first and its header printed only with what was read.
constexpr std::string_view kLimitsShell =
    "p=\"${CULPRIT_JOB_PID:-}\"; if [ -n \"$p\" ] && l=$(cat \"/proc/$p/limits\" 2>/dev/null) && [ -n \"$l\" ]; then "
    "echo \"==> /proc/$p/limits <==\"; printf '%s\\n' \"$l\"; fi";

constexpr std::string_view kJournalShell =
    "if [ -n \"${CULPRIT_SINCE:-}\" ]; then journalctl -k --no-pager -o short-iso --since \"@$CULPRIT_SINCE\"; "
    "else journalctl -k -b --no-pager -o short-iso; fi";

const SnapshotItem kPs{"ps.txt", "ps", "ps -e -ww -o user:32,pid,ppid,state,lstart,rss,cgroup,cmd", 15, ""};
const SnapshotItem kProcStatus{"proc-status.txt", "", kProcStatusShell, 10, ""};
const SnapshotItem kLimits{"limits.txt", "", kLimitsShell, 5, ""};

std::string first_line(std::string_view s) {
  while (!s.empty() && (s.front() == '\n' || s.front() == ' ')) s.remove_prefix(1);
  const auto nl = s.find('\n');
  std::string out(s.substr(0, nl));
  if (out.size() > 200) out.replace(200, std::string::npos, "…");
  return out;
}

bool mentions_refusal(std::string_view err) {
  for (std::string_view k : {"Operation not permitted", "Permission denied", "permission denied", "not permitted",
                             "insufficient permissions", "must be root", "requires root"})
    if (err.find(k) != std::string_view::npos) return true;
  return false;
}

/// The output worth keeping: journalctl's `-- No entries --` is none.
bool empty_output(std::string_view out) {
  for (char c : out)
    if (c != ' ' && c != '\n' && c != '\t' && c != '\r') return out.find("-- No entries --") != std::string_view::npos &&
                                                                 out.size() < 40;
  return true;
}

std::string shell_quote(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += "'\\''";
    else out += c;
  }
  return out + "'";
}

/// Items that only read files: no output is an answer, not a missing tool.
bool reads_files(const SnapshotItem& item) { return item.tool.empty(); }

/// The item's command with the check that its tool exists (exit 127, as a shell says).
std::string guarded(const SnapshotItem& item) {
  if (item.tool.empty()) return std::string(item.shell);
  // `$(command -v …)`, not `command -v … >/dev/null`: /dev/null may be closed to the user.
  return fmt::format("[ -n \"$(command -v {})\" ] || exit 127; {}", item.tool, item.shell);
}

bool name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-'; }

/// Whether a variable or option name (`VLLM_API_KEY`, `api-key`, `hf_token`) names a secret: one
/// of its words (split at `_` and `-`) is a secret's word.
bool secret_name(std::string_view name) {
  static constexpr std::string_view kWords[] = {"key",        "token",       "secret", "password", "passwd",
                                                "credential", "credentials", "apikey", "secretkey"};
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t end = name.find_first_of("_-", start);
    if (end == std::string_view::npos) end = name.size();
    std::string word(name.substr(start, end - start));
    for (char& c : word) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const std::string_view w : kWords)
      if (word == w) return true;
    start = end + 1;
  }
  return false;
}

/// Where a masked value ends: blanks, quotes, a backslash (a JSON escape) or a comma.
bool value_end(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '"' || c == '\'' || c == '\\' || c == ',';
}

/// Writes what `r` produced for `item` and returns its status: the shared end of both runners.
/// `failed` names the files whose item failed, for fallbacks.
std::optional<ToolStatus> finish_item(const std::filesystem::path& dir, const std::string& prefix,
                                      const SnapshotItem& item, CommandResult r, const SnapshotOptions& options,
                                      std::set<std::string>& missing_tools, std::set<std::string>& failed_files) {
  if (!item.fallback_for.empty() && !failed_files.count(std::string(item.fallback_for))) return std::nullopt;
  ToolStatus s = classify(item, r);
  if (options.since && item.file == "dmesg.txt" && s.status == "ok") {
    r.out = kernel_lines_since(r.out, *options.since);
    if (empty_output(r.out)) s.detail = "no kernel lines since the job started";
  }
  // A tool that is missing, refused or hung is not asked again (one entry, no second wait).
  if (s.status == "missing" || s.status == "refused" || s.status == "timed out") missing_tools.insert(s.tool);
  if (s.status != "ok") failed_files.insert(std::string(item.file));
  if (!r.out.empty() && !empty_output(r.out) && !r.timed_out) {
    s.file = prefix + std::string(item.file);
    if (auto why = write_private_file((dir / s.file).string(), mask_secrets(r.out)); !why.empty()) {
      s.status = "failed";
      s.detail = fmt::format("cannot write {}: {}", (dir / s.file).string(), why);
      s.file.clear();
    }
  }
  return s;
}

}  // namespace

const std::vector<SnapshotItem>& snapshot_items() {
  static const std::vector<SnapshotItem> items = {
      {"nvidia-smi.txt", "nvidia-smi", "nvidia-smi", 30, ""},
      {"nvidia-smi-query.csv", "nvidia-smi", kGpuQueryShell, 30, ""},
      {"nvidia-smi-q.xml", "nvidia-smi", "nvidia-smi -q -x", 30, ""},
      kPs,
      {"meminfo.txt", "", kMeminfoShell, 5, ""},
      {"free.txt", "free", "free", 5, ""},
      {"dmesg.txt", "dmesg", "dmesg --time-format iso", 15, "", true},
      {"journalctl-k.txt", "journalctl", kJournalShell, 20, "dmesg.txt", true},
      {"docker-ps.txt", "docker", "docker ps -a", 15, ""},
      {"docker-inspect.json", "docker", "ids=$(docker ps -q) || exit $?; [ -z \"$ids\" ] || docker inspect $ids", 20, ""},
      {"podman-ps.txt", "podman", "podman ps -a", 15, ""},
      {"crictl-ps.txt", "crictl", "crictl ps -a", 15, ""},
      kProcStatus,
      {"cgroup.txt", "", kCgroupShell, 5, ""},
      {"env.txt", "", kEnvShell, 5, ""},
  };
  return items;
}

const std::vector<SnapshotItem>& sample_items() {
  static const std::vector<SnapshotItem> items = {
      {"nvidia-smi-query.csv", "nvidia-smi", kGpuQueryShell, 20, ""},
      {"meminfo.txt", "", kMeminfoShell, 5, ""},
      {"cgroup.txt", "", kCgroupShell, 5, ""},
  };
  return items;
}

const SnapshotItem& ps_item() { return kPs; }
const SnapshotItem& proc_status_item() { return kProcStatus; }
const SnapshotItem& limits_item() { return kLimits; }

std::string kernel_log_status(const std::vector<ToolStatus>& statuses) {
  std::string first;
  for (const auto& s : statuses) {
    const bool reads_kernel_log =
        std::any_of(snapshot_items().begin(), snapshot_items().end(),
                    [&](const SnapshotItem& item) { return item.kernel_log && item.tool == s.tool; });
    if (!reads_kernel_log) continue;
    if (s.status == "ok") return s.status;
    if (first.empty()) first = s.status;
  }
  return first;
}

ToolStatus classify(const SnapshotItem& item, const CommandResult& r) {
  ToolStatus s;
  s.tool = std::string(item.tool.empty() ? item.file : item.tool);
  if (!r.started) {
    s.status = "failed";
    s.detail = "sh: " + r.error;
  } else if (r.timed_out) {
    s.status = "timed out";
    s.detail = fmt::format("no answer within {:g} s; killed", item.timeout_s);
  } else if (r.exit_code == 127 && !item.tool.empty()) {
    s.status = "missing";
    s.detail = "not found on PATH";
  } else if (r.signal != 0) {
    s.status = "failed";
    s.detail = fmt::format("killed by signal {}", r.signal);
  } else if (r.exit_code != 0) {
    s.status = mentions_refusal(r.err) ? "refused" : "failed";
    s.detail = fmt::format("exit {}", r.exit_code);
    if (const auto why = first_line(r.err); !why.empty()) s.detail += ": " + why;
  } else if (empty_output(r.out) && !reads_files(item)) {
    s.status = mentions_refusal(r.err) ? "refused" : "empty";
    s.detail = first_line(r.err);
    if (s.detail.empty()) s.detail = "no output";
  } else {
    s.status = "ok";
  }
  return s;
}

std::vector<ToolStatus> take_snapshot(const std::string& dir, const std::vector<SnapshotItem>& items,
                                      const SnapshotOptions& options) {
  std::vector<ToolStatus> out;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);  // private, as its files
  std::set<std::string> missing, failed;
  std::vector<std::string> env = {"LC_ALL=C", "TZ=UTC"};
  if (options.since) env.push_back(fmt::format("CULPRIT_SINCE={}", static_cast<long long>(std::floor(*options.since))));
  if (options.job_pid > 0) env.push_back(fmt::format("CULPRIT_JOB_PID={}", options.job_pid));
  for (const auto& item : items) {
    if (!item.fallback_for.empty() && !failed.count(std::string(item.fallback_for))) continue;
    if (!item.tool.empty() && missing.count(std::string(item.tool))) continue;
    CaptureOptions capture;
    capture.timeout_s = item.timeout_s;
    capture.extra_env = env;
    CommandResult r = run_capture({"sh", "-c", guarded(item)}, capture);
    if (auto s = finish_item(dir, options.prefix, item, std::move(r), options, missing, failed)) out.push_back(*s);
  }
  return out;
}

std::string remote_snapshot_script(const std::vector<SnapshotItem>& items) {
  // Each command's result is framed as `@@culprit <index> <rc> <out bytes> <err bytes>` followed by
  // exactly that many bytes of output and error output: no output can be mistaken for a frame.
  std::string s =
      "LC_ALL=C; TZ=UTC; export LC_ALL TZ\n"
      "t=''; command -v timeout >/dev/null 2>&1 && t=timeout\n"
      "o=$(mktemp) && e=$(mktemp) || exit 1\n"
      "trap 'rm -f \"$o\" \"$e\"' EXIT\n"
      "run() { i=$1; s=$2; shift 2\n"
      "  if [ -n \"$t\" ]; then timeout -s KILL \"$s\" sh -c \"$1\" </dev/null >\"$o\" 2>\"$e\"; else sh -c \"$1\" </dev/null >\"$o\" 2>\"$e\"; fi\n"
      "  rc=$?; [ \"$rc\" = 137 ] && [ -n \"$t\" ] && rc=timeout\n"
      "  printf '@@culprit %s %s %s %s\\n' \"$i\" \"$rc\" \"$(wc -c <\"$o\" | tr -d ' ')\" \"$(wc -c <\"$e\" | tr -d ' ')\"\n"
      "  cat \"$o\" \"$e\"; }\n";
  for (std::size_t i = 0; i < items.size(); ++i)
    s += fmt::format("run {} {} {}\n", i, static_cast<int>(items[i].timeout_s), shell_quote(guarded(items[i])));
  return s;
}

std::vector<ToolStatus> write_remote_snapshot(const std::string& dir, const std::vector<SnapshotItem>& items,
                                              std::string_view output) {
  std::vector<CommandResult> results(items.size());
  std::size_t at = 0;
  while (true) {
    at = output.find("@@culprit ", at);
    if (at == std::string_view::npos) break;
    const std::size_t eol = output.find('\n', at);
    if (eol == std::string_view::npos) break;
    std::string_view header = output.substr(at + 10, eol - at - 10);
    std::vector<std::string_view> f;
    while (!header.empty()) {
      const auto sp = header.find(' ');
      f.push_back(header.substr(0, sp));
      if (sp == std::string_view::npos) break;
      header.remove_prefix(sp + 1);
    }
    std::size_t index = 0, nout = 0, nerr = 0;
    auto num = [](std::string_view v, std::size_t& to) {
      return std::from_chars(v.data(), v.data() + v.size(), to).ec == std::errc();
    };
    if (f.size() != 4 || !num(f[0], index) || !num(f[2], nout) || !num(f[3], nerr) || index >= items.size() ||
        eol + 1 + nout + nerr > output.size()) {
      at = eol;
      continue;
    }
    CommandResult& r = results[index];
    r.started = true;
    if (f[1] == "timeout") {
      r.timed_out = true;
    } else {
      int rc = 0;
      std::from_chars(f[1].data(), f[1].data() + f[1].size(), rc);
      r.exit_code = rc;
    }
    r.out = std::string(output.substr(eol + 1, nout));
    r.err = std::string(output.substr(eol + 1 + nout, nerr));
    at = eol + 1 + nout + nerr;
  }
  std::vector<ToolStatus> out;
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);  // private, as its files
  std::set<std::string> missing, failed;
  const SnapshotOptions options;
  for (std::size_t i = 0; i < items.size(); ++i) {
    const auto& item = items[i];
    if (!item.fallback_for.empty() && !failed.count(std::string(item.fallback_for))) continue;
    if (!item.tool.empty() && missing.count(std::string(item.tool))) continue;
    CommandResult r = results[i];
    if (!r.started) r.error = "no result from the remote shell";
    if (auto s = finish_item(dir, "", item, std::move(r), options, missing, failed)) out.push_back(*s);
  }
  return out;
}

std::string kernel_lines_since(std::string_view text, double since) {
  const std::string cut = iso_utc(since).substr(0, 19);  // `YYYY-MM-DDTHH:MM:SS`, as dmesg's iso stamps start
  std::string out;
  bool keep = false;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    const bool stamped = line.size() >= 19 && line[4] == '-' && line[10] == 'T' && line[13] == ':';
    if (stamped) keep = line.substr(0, 19) >= cut;
    if (keep) {
      out.append(line);
      out += '\n';
    }
    start = end + 1;
  }
  return out;
}

std::string mask_secrets(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  std::size_t i = 0;
  while (i < text.size()) {
    const char c = text[i];
    // NAME=value, --name=value: the name runs back from the '=' over name characters.
    if (c == '=') {
      std::size_t from = out.size();
      while (from > 0 && name_char(out[from - 1])) --from;
      std::string_view name(out.data() + from, out.size() - from);
      while (!name.empty() && name.front() == '-') name.remove_prefix(1);
      if (!name.empty() && secret_name(name)) {
        std::size_t end = i + 1;
        while (end < text.size() && !value_end(text[end])) ++end;
        out += end > i + 1 ? "=***" : "=";
        i = end;
        continue;
      }
    }
    // --name value (ps lists a command's arguments with blanks between): the value.
    if (c == '-' && (out.empty() || out.back() == ' ' || out.back() == '\n')) {
      std::size_t end = i;
      while (end < text.size() && text[end] == '-') ++end;
      const std::size_t name_from = end;
      while (end < text.size() && name_char(text[end])) ++end;
      if (end > name_from && end + 1 < text.size() && text[end] == ' ' &&
          text[end + 1] != '-' && !value_end(text[end + 1]) && secret_name(text.substr(name_from, end - name_from))) {
        out.append(text.substr(i, end - i + 1));
        std::size_t value = end + 1;
        while (value < text.size() && !value_end(text[value])) ++value;
        out += "***";
        i = value;
        continue;
      }
    }
    // scheme://user:password@host: the password.
    if (c == ':' && text.substr(i, 3) == "://") {
      const std::size_t auth = i + 3;
      std::size_t end = auth;
      while (end < text.size() && !value_end(text[end]) && text[end] != '/' && text[end] != '@') ++end;
      const std::size_t colon = text.substr(auth, end - auth).find(':');
      if (end < text.size() && text[end] == '@' && colon != std::string_view::npos) {
        out.append(text.substr(i, 3 + colon + 1));
        out += "***@";
        i = end + 1;
        continue;
      }
    }
    out += c;
    ++i;
  }
  return out;
}

std::vector<std::string> mask_command(const std::vector<std::string>& command) {
  std::vector<std::string> out;
  out.reserve(command.size());
  bool next_is_secret = false;
  for (const std::string& arg : command) {
    if (next_is_secret && !arg.empty()) {
      out.emplace_back("***");
      next_is_secret = false;
      continue;
    }
    next_is_secret = arg.size() > 1 && arg[0] == '-' && arg.find('=') == std::string::npos &&
                     secret_name(std::string_view(arg).substr(arg.find_first_not_of('-')));
    out.push_back(mask_secrets(arg));
  }
  return out;
}

std::string write_private_file(const std::string& path, std::string_view text) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) return std::strerror(errno);
  int err = write_all(fd, text);
  struct stat st {};
  const bool regular = ::fstat(fd, &st) == 0 && S_ISREG(st.st_mode);
  if (::close(fd) != 0 && err == 0) err = errno;
  if (err == 0) return {};
  if (regular) ::unlink(path.c_str());  // no empty or cut file that reads as an answer
  return std::strerror(err);
}

std::string local_host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0 || buf[0] == '\0') return "localhost";
  const std::string h(buf);
  return h.substr(0, h.find('.'));
}

double now_utc() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::string compact_utc(double seconds) {
  std::string out;
  for (char c : iso_utc(seconds))
    if (c != '-' && c != ':') out += c;
  return out;
}

}  // namespace culprit::cli
