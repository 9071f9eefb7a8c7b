// `culprit run [options] -- CMD [ARGS...]`: runs the job as a child in its own process group,
// passes its output through unchanged while recording each line with its arrival time, forwards
// the signals culprit is sent (forwarded_signals: Slurm's USR1 warning too), samples GPU / host /
// cgroup memory while it runs, and when it fails snapshots the node (snapshot.hpp), diagnoses
// the incident folder and prints the report on stderr. Exits with the job's status (128 + N
// for a signal, as a shell does).
#include <fcntl.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <mutex>
#include <thread>
#include <vector>

#include "cli/child_process.hpp"
#include "cli/commands.hpp"
#include "culprit/culprit.hpp"
#include "culprit/core/job_output.hpp"
#include "cli/snapshot.hpp"
#include "culprit/api/snapshot_manifest.hpp"
#include "cli/snapshot_archive.hpp"
#include "cli/termination_log.hpp"

namespace culprit::cli {
using api::JobRecord;
using api::Manifest;
using api::kManifestName;
using api::manifest_json;
namespace po = boost::program_options;
namespace fs = std::filesystem;
namespace {

constexpr const char* kRunHelpHeader = R"(Usage: culprit run [options] -- CMD [ARGS...]

Runs CMD (a torchrun, `vllm serve`, `python train.py`, a shell script) in its own process group.
Its output passes through unchanged and is recorded, line by line with arrival times, in the
incident folder; signals sent to culprit (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2,
SIGALRM, the real-time ones: Slurm's --signal) are forwarded to it. While it runs, GPU memory
(nvidia-smi --query-gpu / --query-compute-apps), /proc/meminfo and the cgroup's memory files are
sampled. When it fails (non-zero exit or a signal) the node is snapshotted at once (nvidia-smi,
ps, /proc/meminfo, free, dmesg or journalctl -k since the start, docker ps / inspect, the cgroup's
files, the CUDA / NCCL / Slurm / torchrun environment) and the incident is diagnosed; the report
goes to stderr. A job that succeeds leaves nothing unless --keep.

Where the job does not set TORCHELASTIC_ERROR_FILE, it is set to DIR/<host>/torchelastic-error.json,
so that torchrun (and any `@record`-decorated entry point) writes its root-cause record there;
where it does not set CULPRIT_MEMORY_SNAPSHOT_DIR, that is DIR/<host>, where the Python module's
hook writes PyTorch's allocator snapshot at a CUDA OOM when asked (memory_history).

Exit code: the job's (128 + N when signal N ended it); 127 when CMD cannot be started.

)";

std::atomic<int> g_signal_pipe{-1};

extern "C" void forward_signal(int sig) {
  const int fd = g_signal_pipe.load();
  const unsigned char b = static_cast<unsigned char>(sig);
  if (fd < 0) return;
  [[maybe_unused]] const auto n = ::write(fd, &b, 1);
}

std::string user_name() {
  if (const passwd* pw = ::getpwuid(::getuid())) return pw->pw_name;
  return std::to_string(::getuid());
}

/// The bounds of the record of the job's output (per stream): its first kRecordHeadBytes and
/// its last kRecordTailBytes / 2 to kRecordTailBytes are kept, with a line between them saying
/// what was left out (1 GB of output was a 1.6 GB record, of which diagnose reads the last
/// 1 GiB). A line longer than kRecordLineBytes is recorded in parts. CULPRIT_RUN_RECORD_BYTES
/// (the head's size; the tail gets the same) lowers the bounds for tests.
constexpr std::uint64_t kRecordHeadBytes = std::uint64_t{64} << 20;
constexpr std::uint64_t kRecordTailBytes = std::uint64_t{64} << 20;
constexpr std::size_t kRecordLineBytes = std::size_t{1} << 20;

/// One output stream of the job: passed through to `to_fd`, recorded line by line with the
/// arrival time of each line's first byte (`2026-04-09T00:47:19.123456Z line`). Past the head,
/// lines go to two tail files in turn (`PATH.tail-0`, `.tail-1`), each emptied when it is
/// written again, and are joined after the head at the end.
struct Stream {
  int fd = -1;
  int to_fd = -1;
  std::string path;  ///< the record's file
  std::ofstream record;
  bool failed = false;  ///< a write to the record failed (the first error is said at the end)
  std::string error;
  std::string partial;
  double partial_ts = 0;
  std::uint64_t head_bytes = kRecordHeadBytes, tail_bytes = kRecordTailBytes;
  std::uint64_t written = 0;  ///< into the head, then into the current tail file
  int tail = -1;              ///< the tail file written now (-1: still the head)
  std::uint64_t dropped_lines = 0, dropped_bytes = 0, tail_lines[2] = {0, 0}, tail_size[2] = {0, 0};
  double first_dropped = 0, tail_first_ts[2] = {0, 0};
  std::ofstream tail_file;

  std::string tail_path(int which) const { return fmt::format("{}.tail-{}", path, which); }
  std::ofstream& out() { return tail < 0 ? record : tail_file; }

  void take(const char* data, std::size_t n) {
    std::size_t off = 0;
    while (off < n) {  // the user sees what they always saw, even when the terminal is slow
      const ssize_t w = ::write(to_fd, data + off, n - off);
      if (w <= 0) break;
      off += static_cast<std::size_t>(w);
    }
    const double ts = now_utc();
    for (std::size_t i = 0; i < n; ++i) {
      if (partial.empty()) partial_ts = ts;
      if (data[i] == '\n') {
        flush_line();
      } else {
        partial += data[i];
        if (partial.size() >= kRecordLineBytes) flush_line();
      }
    }
    out().flush();
    note_failure();
  }
  void note_failure() {
    if (out().fail() && !failed) {
      failed = true;
      error = std::strerror(errno != 0 ? errno : EIO);
    }
  }
  /// Moves on to the next tail file, emptying it: what it held is dropped (counted).
  void next_tail() {
    if (tail >= 0) tail_file.close();
    tail = tail < 0 ? 0 : 1 - tail;
    if (tail_lines[tail] > 0 && dropped_lines == 0) first_dropped = tail_first_ts[tail];
    dropped_lines += tail_lines[tail];
    dropped_bytes += tail_size[tail];
    tail_lines[tail] = 0;
    tail_size[tail] = 0;
    write_private_file(tail_path(tail), "");
    tail_file.open(tail_path(tail), std::ios::binary | std::ios::trunc);
    written = 0;
  }
  void flush_line() {
    const std::string line = fmt::format("{} {}\n", iso_utc(partial_ts, true), partial);
    partial.clear();
    if (tail < 0 ? written + line.size() > head_bytes : written + line.size() > tail_bytes / 2) next_tail();
    if (tail >= 0) {
      if (tail_lines[tail] == 0) tail_first_ts[tail] = partial_ts;
      ++tail_lines[tail];
      tail_size[tail] += line.size();
    }
    out() << line;
    written += line.size();
  }
  void finish() {
    if (!partial.empty()) flush_line();
    out().flush();
    note_failure();
    if (tail < 0) return;
    tail_file.close();
    // The head, a line saying what is not recorded, then the older tail file and the newer one.
    if (dropped_lines > 0)
      record << fmt::format("{} [culprit run: {} lines ({} bytes) of output not recorded here; the record keeps the "
                            "first {} MiB and the last {} MiB]\n",
                            iso_utc(first_dropped, true), dropped_lines, dropped_bytes, head_bytes >> 20,
                            tail_bytes >> 20);
    for (const int which : {1 - tail, tail}) {
      std::ifstream in(tail_path(which), std::ios::binary);
      if (in && in.peek() != std::char_traits<char>::eof()) record << in.rdbuf();
      std::error_code ec;
      std::filesystem::remove(tail_path(which), ec);
    }
    record.flush();
    if (record.fail() && !failed) {
      failed = true;
      error = std::strerror(errno != 0 ? errno : EIO);
    }
  }
};

/// The sampler: every `interval` seconds (the first at once) the sample items, into files
/// `sample-NNNN-*`; the first sample also lists the processes (`sample-0000-ps.txt`) and records
/// the job's own /proc facts (`sample-0000-proc-status.txt`: its cgroup, container, pid inside). It runs on
/// a thread of its own, so a slow nvidia-smi never holds up the job's output.
class Sampler {
 public:
  static constexpr int kKeepSamples = 360;

  Sampler(std::string dir, double interval, long job_pid)
      : dir_(std::move(dir)), interval_(interval), job_pid_(job_pid) {
    if (interval_ > 0) thread_ = std::thread([this] { loop(); });
  }
  ~Sampler() { stop(); }
  Sampler(const Sampler&) = delete;
  Sampler& operator=(const Sampler&) = delete;

  void stop() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
  }
  /// The first sample's statuses (what answered while the job ran).
  std::vector<ToolStatus> first_statuses() {
    const std::lock_guard<std::mutex> lock(mutex_);
    return first_;
  }

 private:
  void loop() {
    for (int n = 0;; ++n) {
      SnapshotOptions o;
      o.prefix = fmt::format("sample-{:04d}-", n);
      std::vector<SnapshotItem> items = sample_items();
      items.push_back(limits_item());  // the job's own limits, in every sample (see kLimitsShell)
      o.job_pid = job_pid_;
      if (n == 0) {
        items.push_back(ps_item());
        items.push_back(proc_status_item());  // the job's own place, while its pid is alive
      }
      auto statuses = take_snapshot(dir_, items, o);
      // A long job keeps its first sample and the last kKeepSamples (an hour at the default).
      if (const int old = n - kKeepSamples; old > 0) {
        std::error_code ec;
        for (const auto& item : items)
          fs::remove(fs::path(dir_) / fmt::format("sample-{:04d}-{}", old, item.file), ec);
      }
      std::unique_lock<std::mutex> lock(mutex_);
      if (n == 0) first_ = std::move(statuses);
      if (cv_.wait_for(lock, std::chrono::duration<double>(interval_), [this] { return stopping_; })) return;
    }
  }

  std::string dir_;
  double interval_;
  long job_pid_;
  std::mutex mutex_;
  std::condition_variable cv_;
  bool stopping_ = false;
  std::vector<ToolStatus> first_;
  std::thread thread_;
};

struct RunOptions {
  std::string output, format = "text", termination_log;
  double sample_interval = 10;
  bool archive = false, keep = false;
};

/// Splits `args` at the first `--`: culprit's options before it, the job's command after.
bool split_command(const std::vector<std::string>& args, std::vector<std::string>& mine,
                   std::vector<std::string>& command) {
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--") {
      command.assign(args.begin() + static_cast<long>(i) + 1, args.end());
      return true;
    }
    mine.push_back(args[i]);
  }
  return false;
}

/// Every signal whose default would end or stop culprit and that comes from outside (a user, a
/// scheduler: Slurm's `--signal=USR1@T` warns a job before its time limit), as `timeout(1)` and
/// tini forward them: each reaches the job's process group and none ends culprit, so the job's
/// output keeps flowing and its end is still recorded. SIGWINCH and SIGCONT go on too. Not here:
/// the faults of culprit's own code (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGABRT, SIGSYS),
/// job control from the terminal (SIGTSTP, SIGTTIN, SIGTTOU: `relay` follows the job's stops),
/// SIGCHLD and SIGPIPE (ignored), SIGKILL and SIGSTOP (not catchable).
std::vector<int> forwarded_signals() {
  std::vector<int> sigs = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGWINCH, SIGCONT,
                           SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGIO, SIGPWR, SIGURG};
#ifdef SIGSTKFLT
  sigs.push_back(SIGSTKFLT);
#endif
  for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) sigs.push_back(sig);
  return sigs;
}

void install_forwarding(int write_fd) {
  g_signal_pipe.store(write_fd);
  struct sigaction sa {};
  sa.sa_handler = forward_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_RESTART;
  for (int sig : forwarded_signals()) {
    struct sigaction old {};
    // An ignored signal stays ignored (nohup, a shell's background job): the job inherits that.
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    ::sigaction(sig, &sa, nullptr);
  }
  ::signal(SIGPIPE, SIG_IGN);
}

/// The terminal's foreground process group, when culprit runs in the foreground of one: the job
/// gets it (it may read the terminal, and Ctrl-C / Ctrl-Z reach it as they would without culprit);
/// culprit takes it back when the job stops or ends.
struct Terminal {
  bool ours = ::isatty(STDIN_FILENO) != 0 && ::tcgetpgrp(STDIN_FILENO) == ::getpgrp();

  void give(pid_t pgid) const {
    if (ours) set(pgid);
  }
  void take_back() const {
    if (ours) set(::getpgrp());
  }

 private:
  static void set(pid_t pgid) {
    // From a background group tcsetpgrp raises SIGTTOU: ignored for the call.
    struct sigaction ignore {}, old {};
    ignore.sa_handler = SIG_IGN;
    sigemptyset(&ignore.sa_mask);
    ::sigaction(SIGTTOU, &ignore, &old);
    ::tcsetpgrp(STDIN_FILENO, pgid);
    ::sigaction(SIGTTOU, &old, nullptr);
  }
};

/// Waits for the job: relays its output until both pipes close and it has exited, forwarding
/// signals meanwhile. A job stopped from the terminal (Ctrl-Z) stops culprit too, so the shell
/// gets its prompt back; `fg` continues both. Returns the wait status.
int relay(const SpawnedChild& child, Stream& out, Stream& err, int signal_fd, const Terminal& terminal) {
  int status = 0;
  bool exited = false;
  std::optional<std::chrono::steady_clock::time_point> drain_until;
  char buf[65536];
  while (true) {
    if (!exited) {
      const pid_t w = ::waitpid(child.pid, &status, WNOHANG | (terminal.ours ? WUNTRACED : 0));
      if (w == child.pid && WIFSTOPPED(status)) {
        const int why = WSTOPSIG(status);
        if (why == SIGTSTP || why == SIGSTOP) {
          terminal.take_back();
          ::raise(SIGSTOP);  // until the shell's `fg` continues culprit
        }
        terminal.give(child.pid);  // SIGTTIN / SIGTTOU: it touched the terminal before it was given
        ::kill(-child.pid, SIGCONT);
        continue;
      }
      if (w == child.pid) {
        exited = true;
        // What it wrote before exiting is read; a descendant that keeps the pipes open is not waited for.
        drain_until = std::chrono::steady_clock::now() + std::chrono::seconds(1);
      }
    }
    if (exited && ((out.fd < 0 && err.fd < 0) || std::chrono::steady_clock::now() > *drain_until)) break;
    pollfd fds[3];
    nfds_t n = 0;
    fds[n++] = {signal_fd, POLLIN, 0};
    if (out.fd >= 0) fds[n++] = {out.fd, POLLIN, 0};
    if (err.fd >= 0) fds[n++] = {err.fd, POLLIN, 0};
    if (::poll(fds, n, 100) <= 0) continue;
    for (nfds_t i = 0; i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == signal_fd) {
        unsigned char sig = 0;
        while (::read(signal_fd, &sig, 1) == 1)
          if (!exited) ::kill(-child.pid, sig);
        continue;
      }
      Stream& s = fds[i].fd == out.fd ? out : err;
      const ssize_t got = ::read(s.fd, buf, sizeof buf);
      if (got > 0) {
        s.take(buf, static_cast<std::size_t>(got));
      } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
        ::close(s.fd);
        s.fd = -1;
      }
    }
  }
  for (Stream* s : {&out, &err}) {
    if (s->fd >= 0) ::close(s->fd);
    s->fd = -1;
    s->finish();
  }
  return status;
}

/// Diagnoses the incident folder (as `culprit DIR` would), writes the report to stderr and
/// returns the analysis (empty when none could be made).
culprit::Analysis print_report(const std::string& folder, const RunOptions& o) {
  culprit::Options options;
  options.empty_is_error = false;  // the report says so when no file of the folder was read
  auto analysis = culprit::analyze({culprit::Input::file(folder)}, options);
  const auto format = culprit::parse_format(o.format).value_or(culprit::Format::text);
  culprit::RenderOptions render_options;
  render_options.color = format == culprit::Format::text && ::isatty(STDERR_FILENO) != 0 && !std::getenv("NO_COLOR");
  culprit::Analysis result = analysis ? std::move(analysis).value() : culprit::Analysis{};
  const std::string text = culprit::render(result, format, render_options);
  std::fflush(stdout);
  std::fwrite(text.data(), 1, text.size(), stderr);
  return result;
}

/// The file torchrun's `@record`ed entry points write their root cause to (torch.distributed.
/// elastic.multiprocessing.errors: ErrorHandler reads TORCHELASTIC_ERROR_FILE), in the node's
/// folder of the incident.
constexpr const char* kTorchelasticErrorFile = "torchelastic-error.json";
/// The most of a job's own TORCHELASTIC_ERROR_FILE that is copied into the incident (one record
/// is a traceback: kilobytes).
constexpr std::uintmax_t kMaxErrorFileCopy = std::uintmax_t{8} << 20;

/// Points TORCHELASTIC_ERROR_FILE at the incident (the job inherits it) unless the job's
/// environment sets it; returns the job's own path then, else empty.
std::string route_torchelastic_error_file(const fs::path& node) {
  if (const char* own = std::getenv("TORCHELASTIC_ERROR_FILE"); own != nullptr && *own != '\0') return own;
  std::error_code ec;
  const fs::path file = fs::absolute(node / kTorchelasticErrorFile, ec);
  ::setenv("TORCHELASTIC_ERROR_FILE", (ec ? node / kTorchelasticErrorFile : file).c_str(), 1);
  return {};
}

/// Points CULPRIT_MEMORY_SNAPSHOT_DIR at the node's folder (the job inherits it) unless the job's
/// environment sets it: the Python hook, when asked for the allocator's history
/// (`culprit.install(memory_history=True)`), writes its snapshot at a CUDA OOM there, where the
/// diagnosis reads it.
void route_memory_snapshot_dir(const fs::path& node) {
  if (const char* own = std::getenv("CULPRIT_MEMORY_SNAPSHOT_DIR"); own != nullptr && *own != '\0') return;
  std::error_code ec;
  const fs::path dir = fs::absolute(node, ec);
  ::setenv("CULPRIT_MEMORY_SNAPSHOT_DIR", (ec ? node : dir).c_str(), 1);
}

/// A failed job's own error file (its environment named one) copied into the incident, so that
/// the diagnosis reads it: a regular file of at most kMaxErrorFileCopy bytes.
void copy_own_error_file(const std::string& own, const fs::path& node) {
  std::error_code ec;
  if (own.empty() || !fs::is_regular_file(own, ec) || fs::file_size(own, ec) > kMaxErrorFileCopy || ec) return;
  std::ifstream in(own, std::ios::binary);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (auto why = write_private_file((node / kTorchelasticErrorFile).string(), text); !why.empty())
    fmt::print(stderr, "culprit run: cannot copy {}: {}\n", own, why);
}

}  // namespace

int run_run(const std::vector<std::string>& args) {
  std::vector<std::string> mine, command;
  const bool has_command = split_command(args, mine, command);
  RunOptions o;
  po::options_description opts("Options");
  opts.add_options()
      ("help,h", "show this help")
      ("output,o", po::value(&o.output)->value_name("DIR"), "the incident folder (default: culprit-incident-<UTC time>/); "
                                         "the node's files go in DIR/<host>/")
      ("sample-interval", po::value(&o.sample_interval)->default_value(10)->value_name("SECONDS"),
       "seconds between memory samples while the job runs (0: none)")
      ("archive", po::bool_switch(&o.archive), "write the incident as DIR.tar.zst instead of a folder")
      ("keep", po::bool_switch(&o.keep), "keep the incident folder also when the job succeeds")
      ("termination-log", po::value(&o.termination_log)->value_name("PATH"),
       "when the job fails, write the report's headline and the culprit to PATH in at most 4096 bytes "
       "(Kubernetes: /dev/termination-log)")
      ("format,f", po::value(&o.format)->default_value("text")->value_name("FORMAT"), "report format: text | markdown | json | html");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(mine).options(opts).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "culprit run: {}\nRun `culprit run --help` for the options.\n", e.what());
    return kExitError;
  }
  if (vm.count("help")) {
    std::cout << kRunHelpHeader << opts;
    return 0;
  }
  if (!has_command || command.empty()) {
    fmt::print(stderr, "culprit run: no command given: culprit run [options] -- CMD [ARGS...]\n");
    return kExitError;
  }
  if (!culprit::parse_format(o.format)) {
    fmt::print(stderr, "culprit run: unknown --format '{}' (text, markdown, json or html)\n", o.format);
    return kExitError;
  }
  const double started = now_utc();
  std::string folder =
      o.output.empty() ? fmt::format("culprit-incident-{}", compact_utc(started)) : o.output;
  while (folder.size() > 1 && folder.back() == '/') folder.pop_back();  // `-o out/`: out.tar.zst beside it
  // Ranks wrapped one by one (`srun culprit run -- …`) start in the same second: a default
  // name that exists gets the pid, so a wrapper never keeps a job from starting.
  bool made_here = false;
  if (std::error_code made; o.output.empty()) {
    made_here = fs::create_directory(folder, made);
    if (!made_here) folder += fmt::format("-{}", ::getpid());
  }
  const std::string host = local_host_name();
  const fs::path node = fs::path(folder) / host;
  std::error_code ec;
  const bool existed = !made_here && fs::exists(folder, ec);
  if (existed && !fs::is_empty(folder, ec)) {
    fmt::print(stderr, "culprit run: {} exists and is not empty; choose another -o\n", folder);
    return kExitError;
  }
  fs::create_directories(node, ec);
  if (ec) {
    fmt::print(stderr, "culprit run: cannot create {}: {}\n", node.string(), ec.message());
    return kExitError;
  }
  // The incident holds what the job's processes and environment show: the folders are private
  // (0700), as are the files (write_private_file); secrets in them are masked (mask_secrets).
  if (!existed) fs::permissions(folder, fs::perms::owner_all, ec);
  fs::permissions(node, fs::perms::owner_all, ec);
  auto remove_folder = [&] {
    std::error_code rm;
    if (existed) {
      fs::remove_all(node, rm);
    } else {
      fs::remove_all(folder, rm);
    }
  };

  int sig_pipe[2];
  if (::pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK) != 0) {
    fmt::print(stderr, "culprit run: pipe: {}\n", std::strerror(errno));
    return kExitError;
  }
  install_forwarding(sig_pipe[1]);

  Stream out, err;
  out.to_fd = STDOUT_FILENO;
  err.to_fd = STDERR_FILENO;
  for (Stream* s : {&out, &err}) {
    s->path = (node / std::string(s == &out ? core::job_output::kStdout : core::job_output::kStderr)).string();
    if (auto why = write_private_file(s->path, ""); !why.empty())  // created 0600, then appended to
      fmt::print(stderr, "culprit run: cannot record the job's output in {}: {}\n", s->path, why);
    s->record.open(s->path, std::ios::binary | std::ios::app);
    if (const char* cap = std::getenv("CULPRIT_RUN_RECORD_BYTES"); cap && std::atoll(cap) > 0)
      s->head_bytes = s->tail_bytes = static_cast<std::uint64_t>(std::atoll(cap));
  }
  const std::string own_error_file = route_torchelastic_error_file(node);
  route_memory_snapshot_dir(node);
  const Terminal terminal;
  const SpawnedChild child = spawn_with_pipes(command);
  if (child.pid < 0) {
    fmt::print(stderr, "culprit run: {}: {}\n", command[0], child.error);
    remove_folder();
    return 127;
  }
  out.fd = child.out_fd;
  err.fd = child.err_fd;
  int status = 0;
  double ended = 0;
  std::vector<ToolStatus> sample_statuses;
  {
    Sampler sampler(node.string(), o.sample_interval, child.pid);
    terminal.give(child.pid);
    status = relay(child, out, err, sig_pipe[0], terminal);
    ended = now_utc();
    terminal.take_back();
    sampler.stop();
    sample_statuses = sampler.first_statuses();
  }
  for (Stream* s : {&out, &err}) {
    s->record.close();
    if (s->record.fail() || s->failed)
      fmt::print(stderr, "culprit run: the job's output is not all recorded in {}: {}\n", s->path,
                 s->error.empty() ? "write failed" : s->error);
  }
  for (const auto f : {core::job_output::kStdout, core::job_output::kStderr}) {  // a stream that said nothing is no source
    const fs::path path = node / std::string(f);
    if (fs::file_size(path, ec) == 0 && !ec) fs::remove(path, ec);
  }
  const int code = WIFSIGNALED(status) ? 128 + WTERMSIG(status) : WIFEXITED(status) ? WEXITSTATUS(status) : 1;
  const bool failed = code != 0;

  if (!failed && !o.keep) {
    remove_folder();
    return 0;
  }
  Manifest m;
  m.made_by = "culprit run";
  m.host = host;
  JobRecord job;
  job.pid = child.pid;
  job.user = user_name();
  job.started = started;
  job.ended = ended;
  job.command = mask_command(command);
  if (WIFEXITED(status)) job.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) job.signal = WTERMSIG(status);
  m.job = job;
  if (failed) {
    copy_own_error_file(own_error_file, node);
    SnapshotOptions snap;
    snap.since = started - 5;  // kernel lines of the job's start
    m.tools = take_snapshot(node.string(), snapshot_items(), snap);
    m.kernel_log = kernel_log_status(m.tools);
  } else {
    m.tools = sample_statuses;
  }
  m.taken = now_utc();
  for (const auto& t : m.tools)  // a full disk is said here, not only in the manifest
    if (t.status == "failed" && t.detail.rfind("cannot write", 0) == 0) fmt::print(stderr, "culprit run: {}\n", t.detail);
  if (auto why = write_private_file((node / std::string(kManifestName)).string(), manifest_json(m)); !why.empty())
    fmt::print(stderr, "culprit run: cannot write {}: {}\n", (node / std::string(kManifestName)).string(), why);
  const std::string job_end = fmt::format("{} {}", command[0], job.signal ? fmt::format("was killed by signal {}", job.signal)
                                                                         : fmt::format("exited with {}", code));
  culprit::Analysis analysis;
  if (failed) {
    fmt::print(stderr, "\nculprit run: {} — diagnosing {}\n", job_end, folder);
    analysis = print_report(folder, o);
  }
  std::string kept = folder;
  if (o.archive) {
    const std::string archive = folder + ".tar.zst";
    if (auto e = write_tar_zst(folder, archive); !e.empty()) {
      fmt::print(stderr, "culprit run: {}; the folder {} is kept\n", e, folder);
    } else {
      remove_folder();
      kept = archive;
    }
  }
  if (failed && !o.termination_log.empty()) {
    const std::string message = termination_message(analysis, "job: " + job_end, kept);
    if (auto why = write_termination_log(o.termination_log, message); !why.empty())
      fmt::print(stderr, "culprit run: --termination-log: {}\n", why);
  }
  fmt::print(stderr, "culprit run: the incident is in {} (`culprit {}` diagnoses it again)\n", kept, kept);
  return code;
}

}  // namespace culprit::cli
