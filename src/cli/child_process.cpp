// posix_spawn with pipes, poll and a deadline. Callers ignore SIGPIPE (a child that exits before
// reading its standard input must not kill culprit); children get the default dispositions back.
#include "cli/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>

extern char** environ;

namespace culprit::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct Pipe {
  int read = -1, write = -1;
  bool open() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return false;
    read = fds[0];
    write = fds[1];
    return true;
  }
  void close_read() {
    if (read >= 0) ::close(read);
    read = -1;
  }
  void close_write() {
    if (write >= 0) ::close(write);
    write = -1;
  }
};

/// argv / envp as the C arrays posix_spawn wants; the strings stay owned by the vectors.
std::vector<char*> c_array(std::vector<std::string>& strings) {
  std::vector<char*> out;
  out.reserve(strings.size() + 1);
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

/// Spawns `argv` with fds 0, 1, 2 taken from `in` (-2: inherited), `out`, `err`.
pid_t spawn(const std::vector<std::string>& argv, const std::vector<std::string>& env, int in, int out, int err,
            std::string& error) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  if (in >= 0) posix_spawn_file_actions_adddup2(&actions, in, 0);
  posix_spawn_file_actions_adddup2(&actions, out, 1);
  posix_spawn_file_actions_adddup2(&actions, err, 2);
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  // culprit ignores SIGPIPE; the children get it back. A signal culprit inherited as ignored
  // (nohup's SIGHUP, a background job's SIGINT) stays ignored for them, as for any wrapper.
  for (int sig : {SIGPIPE, SIGCHLD}) sigaddset(&defaults, sig);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setsigdefault(&attr, &defaults);
  posix_spawnattr_setpgroup(&attr, 0);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  std::vector<std::string> args = argv, envs = env;
  auto cargv = c_array(args);
  auto cenv = c_array(envs);
  pid_t pid = -1;
  const int rc = ::posix_spawnp(&pid, cargv[0], &actions, &attr, cargv.data(), cenv.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    error = rc == ENOENT ? "not found on PATH" : std::strerror(rc);
    return -1;
  }
  return pid;
}

double seconds_left(Clock::time_point deadline) {
  return std::chrono::duration<double>(deadline - Clock::now()).count();
}

void append_capped(std::string& to, const char* data, std::size_t n, std::size_t cap) {
  if (to.size() < cap) to.append(data, std::min(n, cap - to.size()));
}

}  // namespace

std::vector<std::string> environment_with(const std::vector<std::string>& extra) {
  std::map<std::string, std::string> env;
  std::vector<std::string> order;
  auto put = [&](const std::string& entry) {
    const auto eq = entry.find('=');
    if (eq == std::string::npos) return;
    const std::string key = entry.substr(0, eq);
    if (!env.count(key)) order.push_back(key);
    env[key] = entry;
  };
  for (char** e = environ; e && *e; ++e) put(*e);
  for (const auto& e : extra) put(e);
  std::vector<std::string> out;
  out.reserve(order.size());
  for (const auto& k : order) out.push_back(env[k]);
  return out;
}

CommandResult run_capture(const std::vector<std::string>& argv, const CaptureOptions& options) {
  CommandResult r;
  if (argv.empty()) {
    r.error = "no command";
    return r;
  }
  Pipe in, out, err;
  // Standard input is always a pipe: with no text its write end closes at once and the child
  // reads end-of-file. Not /dev/null: a sandbox or a chroot may refuse it to an unprivileged
  // user (the child would not start at all).
  if (!out.open() || !err.open() || !in.open()) {
    r.error = std::strerror(errno);
    out.close_read(); out.close_write(); err.close_read(); err.close_write(); in.close_read(); in.close_write();
    return r;
  }
  const pid_t pid = spawn(argv, environment_with(options.extra_env), in.read, out.write, err.write, r.error);
  in.close_read();
  if (options.stdin_text.empty()) in.close_write();
  out.close_write();
  err.close_write();
  if (pid < 0) {
    in.close_write(); out.close_read(); err.close_read();
    return r;
  }
  r.started = true;
  if (in.write >= 0) ::fcntl(in.write, F_SETFL, O_NONBLOCK);
  const auto deadline = Clock::now() + std::chrono::milliseconds(static_cast<long>(options.timeout_s * 1000));
  std::size_t written = 0;
  char buf[65536];
  while (out.read >= 0 || err.read >= 0 || in.write >= 0) {
    const double left = seconds_left(deadline);
    if (left <= 0) {
      r.timed_out = true;
      break;
    }
    pollfd fds[3];
    nfds_t n = 0;
    if (out.read >= 0) fds[n++] = {out.read, POLLIN, 0};
    if (err.read >= 0) fds[n++] = {err.read, POLLIN, 0};
    if (in.write >= 0) fds[n++] = {in.write, POLLOUT, 0};
    const int ready = ::poll(fds, n, static_cast<int>(left * 1000) + 1);
    if (ready < 0 && errno != EINTR) break;
    for (nfds_t i = 0; ready > 0 && i < n; ++i) {
      if (fds[i].revents == 0) continue;
      if (fds[i].fd == in.write) {
        const ssize_t w = ::write(in.write, options.stdin_text.data() + written, options.stdin_text.size() - written);
        if (w > 0) written += static_cast<std::size_t>(w);
        if (w < 0 && errno != EAGAIN && errno != EINTR) in.close_write();
        if (written >= options.stdin_text.size()) in.close_write();
        continue;
      }
      const ssize_t got = ::read(fds[i].fd, buf, sizeof buf);
      if (got > 0) {
        const bool is_out = fds[i].fd == out.read;
        append_capped(is_out ? r.out : r.err, buf, static_cast<std::size_t>(got),
                      is_out ? options.max_bytes : options.max_err_bytes);
      } else if (got == 0 || (errno != EAGAIN && errno != EINTR)) {
        if (fds[i].fd == out.read) out.close_read();
        else err.close_read();
      }
    }
  }
  in.close_write();
  out.close_read();
  err.close_read();
  int status = 0;
  // The pipes closed (or time ran out): wait for the exit within what is left of the time.
  while (!r.timed_out) {
    const pid_t w = ::waitpid(pid, &status, WNOHANG);
    if (w == pid) break;
    if (w < 0 && errno != EINTR) {
      r.error = std::strerror(errno);
      return r;
    }
    if (seconds_left(deadline) <= 0) {
      r.timed_out = true;
      break;
    }
    ::usleep(5000);
  }
  if (r.timed_out) {
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
  if (r.timed_out) r.exit_code = -1;
  return r;
}

SpawnedChild spawn_with_pipes(const std::vector<std::string>& argv) {
  SpawnedChild c;
  Pipe out, err;
  if (argv.empty() || !out.open() || !err.open()) {
    c.error = argv.empty() ? "no command" : std::strerror(errno);
    out.close_read(); out.close_write(); err.close_read(); err.close_write();
    return c;
  }
  c.pid = spawn(argv, environment_with({}), -2, out.write, err.write, c.error);
  out.close_write();
  err.close_write();
  if (c.pid < 0) {
    out.close_read();
    err.close_read();
    return c;
  }
  ::fcntl(out.read, F_SETFL, O_NONBLOCK);
  ::fcntl(err.read, F_SETFL, O_NONBLOCK);
  c.out_fd = out.read;
  c.err_fd = err.read;
  return c;
}

}  // namespace culprit::cli
