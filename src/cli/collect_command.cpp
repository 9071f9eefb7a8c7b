// `culprit collect [--ssh [USER@]HOST]... [--ssh-jump HOST] [--ssh-option OPT]... [-o DIR]`: the
// snapshot of `culprit run` taken now, of this node or of each HOST over ssh (the same table of
// commands sent as one `sh -s` script), each node a subfolder DIR/<host>/ ready for `culprit DIR`.
// Hosts run in parallel; a host that cannot be reached is named and the others are kept.
#include <signal.h>

#include <boost/program_options.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <atomic>
#include <thread>

#include "cli/child_process.hpp"
#include "cli/commands.hpp"
#include "cli/snapshot.hpp"
#include "cli/snapshot_archive.hpp"
#include "culprit/api/snapshot_manifest.hpp"
#include "culprit/core/utf8.hpp"

namespace culprit::cli {
using api::Manifest;
using api::kManifestName;
using api::manifest_json;
namespace po = boost::program_options;
namespace fs = std::filesystem;
namespace {

constexpr const char* kCollectHelpHeader = R"(Usage: culprit collect [options]

Takes the node snapshot `culprit run` takes when a job fails — nvidia-smi (table, -q -x, --query
CSV), ps, /proc/meminfo, free, dmesg (else journalctl -k), docker ps / inspect, the cgroup's
memory files, the CUDA / NCCL / Slurm / torchrun environment — of this machine, or of each --ssh
HOST (in parallel, over `ssh HOST sh -s`; your ssh config, keys and agent apply; BatchMode, so a
host that asks for a password is reported, not waited for). Each node is a subfolder DIR/<host>/;
diagnose them with `culprit DIR`.

Exit codes: 0 every node collected, 1 some host could not be reached (the others are kept),
2 nothing collected.

)";

/// The bounds of `collect --ssh`: a host's snapshot output is held whole until it is split into
/// files, so each host may send at most kHostOutputBytes (a node's snapshot is a few MiB: the
/// kernel log since boot is the largest part; more is read and dropped) and kHostErrorBytes of
/// errors, and at most kParallelHosts are collected at once: 12 flooding hosts held 2.6 GB.
constexpr std::size_t kHostOutputBytes = std::size_t{8} << 20;
constexpr std::size_t kHostErrorBytes = std::size_t{1} << 20;
constexpr std::size_t kParallelHosts = 8;

struct CollectOptions {
  std::vector<std::string> hosts, ssh_options;
  std::string jump, output;
  double timeout = 120;
  bool archive = false;
};

/// `alice@node-17` → `node-17`: the folder (and host) name of a node.
std::string folder_name(const std::string& host) {
  std::string h = host.substr(host.find('@') == std::string::npos ? 0 : host.find('@') + 1);
  for (char& c : h)
    if (c == '/' || c == '\\' || c == ' ' || c == ':') c = '_';
  return h.empty() || h == "." || h == ".." ? "host" : h;
}

struct HostResult {
  std::string host, folder;
  bool reached = false;
  std::string why;  ///< why it could not be reached
  std::vector<ToolStatus> tools;
};

void write_manifest(const fs::path& dir, const std::string& host, const std::vector<ToolStatus>& tools) {
  Manifest m;
  m.made_by = "culprit collect";
  m.host = host;
  m.taken = now_utc();
  m.tools = tools;
  m.kernel_log = kernel_log_status(tools);
  if (auto why = write_private_file((dir / std::string(kManifestName)).string(), manifest_json(m)); !why.empty())
    fmt::print(stderr, "culprit collect: cannot write {}: {}\n", (dir / std::string(kManifestName)).string(), why);
}

HostResult collect_remote(const std::string& host, const CollectOptions& o, const fs::path& root) {
  HostResult r;
  r.host = host;
  r.folder = folder_name(host);
  std::vector<std::string> argv = {"ssh", "-o", "BatchMode=yes", "-o", "ConnectTimeout=10"};
  if (!o.jump.empty()) {
    argv.push_back("-J");
    argv.push_back(o.jump);
  }
  for (const auto& opt : o.ssh_options) {
    argv.push_back("-o");
    argv.push_back(opt);
  }
  argv.push_back(host);
  argv.push_back("sh -s");
  CaptureOptions capture;
  capture.timeout_s = o.timeout;
  capture.stdin_text = remote_snapshot_script(snapshot_items());
  capture.max_bytes = kHostOutputBytes;
  capture.max_err_bytes = kHostErrorBytes;
  const CommandResult c = run_capture(argv, capture);
  if (!c.started || c.timed_out || c.exit_code == 255 || c.out.find("@@culprit ") == std::string::npos) {
    std::string why = !c.started ? "ssh: " + c.error : c.timed_out ? fmt::format("no answer within {:g} s", o.timeout) : "";
    if (why.empty()) {
      std::string_view err = c.err;
      while (!err.empty() && (err.back() == '\n' || err.back() == '\r')) err.remove_suffix(1);
      const auto nl = err.rfind('\n');
      why = std::string(nl == std::string_view::npos ? err : err.substr(nl + 1));
      if (why.empty()) why = fmt::format("ssh exited with {}", c.exit_code);
    }
    r.why = why;
    return r;
  }
  r.reached = true;
  const fs::path dir = root / r.folder;
  r.tools = write_remote_snapshot(dir.string(), snapshot_items(), c.out);
  write_manifest(dir, r.folder, r.tools);
  return r;
}

}  // namespace

int run_collect(const std::vector<std::string>& args) {
  CollectOptions o;
  po::options_description opts("Options");
  opts.add_options()
      ("help,h", "show this help")
      ("ssh", po::value(&o.hosts)->composing()->value_name("HOST"), "[USER@]HOST to collect from over ssh (repeatable; default: this machine)")
      ("ssh-jump", po::value(&o.jump)->value_name("HOST"), "reach every HOST through this jump host (ssh -J)")
      ("ssh-option", po::value(&o.ssh_options)->composing()->value_name("OPTION"), "an ssh -o option such as Port=2222 (repeatable)")
      ("output,o", po::value(&o.output)->value_name("DIR"), "the folder (default: culprit-collect-<UTC time>/)")
      ("timeout", po::value(&o.timeout)->default_value(120)->value_name("SECONDS"), "seconds to wait for each host")
      ("archive", po::bool_switch(&o.archive), "write the folder as DIR.tar.zst");
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "culprit collect: {}\nRun `culprit collect --help` for the options.\n", e.what());
    return kExitError;
  }
  if (vm.count("help")) {
    std::cout << kCollectHelpHeader << opts;
    return 0;
  }
  ::signal(SIGPIPE, SIG_IGN);
  std::string folder =
      o.output.empty() ? fmt::format("culprit-collect-{}", compact_utc(now_utc())) : o.output;
  while (folder.size() > 1 && folder.back() == '/') folder.pop_back();  // `-o out/`: out.tar.zst beside it
  std::error_code ec;
  const bool existed = fs::exists(folder, ec);
  fs::create_directories(folder, ec);
  if (ec) {
    fmt::print(stderr, "culprit collect: cannot create {}: {}\n", folder, ec.message());
    return kExitError;
  }
  if (!existed) fs::permissions(folder, fs::perms::owner_all, ec);  // private: snapshots show processes and environments
  std::vector<HostResult> results;
  if (o.hosts.empty()) {
    HostResult r;
    r.host = r.folder = local_host_name();
    r.reached = true;
    const fs::path dir = fs::path(folder) / r.folder;
    r.tools = take_snapshot(dir.string(), snapshot_items(), {});
    write_manifest(dir, r.folder, r.tools);
    results.push_back(std::move(r));
  } else {
    results.resize(o.hosts.size());
    // At most kParallelHosts at once, each holding at most its caps: a hundred nodes, or a
    // flooding one, cost what eight do.
    std::vector<std::thread> threads;
    threads.reserve(std::min(o.hosts.size(), kParallelHosts));
    std::atomic<std::size_t> next{0};
    for (std::size_t t = 0; t < std::min(o.hosts.size(), kParallelHosts); ++t)
      threads.emplace_back([&] {
        for (std::size_t i = next++; i < o.hosts.size(); i = next++)
          results[i] = collect_remote(o.hosts[i], o, fs::path(folder));
      });
    for (auto& t : threads) t.join();
  }
  std::size_t reached = 0;
  for (const auto& r : results) {
    if (!r.reached) {
      // `why` is the remote's own last stderr line: shown, never run by the terminal.
      fmt::print(stderr, "culprit collect: {}: not reached: {}\n", r.host, core::utf8::visible(r.why));
      continue;
    }
    ++reached;
    std::vector<std::string> missing, named;
    for (const auto& t : r.tools)
      if (t.status != "ok" && std::find(named.begin(), named.end(), t.tool) == named.end()) {
        named.push_back(t.tool);
        missing.push_back(fmt::format("{} {}", t.tool, t.status));
      }
    fmt::print(stderr, "culprit collect: {}: {} files in {}{}\n", r.host,
               std::count_if(r.tools.begin(), r.tools.end(), [](const ToolStatus& t) { return !t.file.empty(); }),
               (fs::path(folder) / r.folder).string(),
               missing.empty() ? "" : fmt::format(" ({})", fmt::join(missing, ", ")));
  }
  if (reached == 0) {
    std::error_code rm;
    if (fs::is_empty(folder, rm)) fs::remove(folder, rm);
    return kExitError;
  }
  std::string kept = folder;
  if (o.archive) {
    const std::string archive = folder + ".tar.zst";
    if (auto e = write_tar_zst(folder, archive); !e.empty()) {
      fmt::print(stderr, "culprit collect: {}; the folder {} is kept\n", e, folder);
    } else {
      std::error_code rm;
      fs::remove_all(folder, rm);
      kept = archive;
    }
  }
  fmt::print(stderr, "culprit collect: diagnose with `culprit {}`\n", kept);
  return reached == results.size() ? 0 : 1;
}

}  // namespace culprit::cli
