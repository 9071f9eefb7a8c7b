// `culprit scan PATH...`: batch diagnosis. Each archive, or each folder / archive directly inside
// a folder PATH, is one incident; incidents run in parallel (--jobs), each in its own timeline.
// Output: a table (one line per incident) or JSON Lines (--jsonl: the diagnose JSON contract
// plus "incident"). `--shard I/N` takes a stable share of the incidents (by path hash), and
// `--db FILE` keeps every incident's timeline in one SQLite file.
#include <unistd.h>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <optional>
#include <thread>

#include "cli/commands.hpp"
#include "cli/option_checks.hpp"
#include "cli/incident.hpp"
#include "cli/interrupt.hpp"
#include "cli/rule_loading.hpp"
#include "cli/scan_support.hpp"
#include "culprit/report/renderer.hpp"
#include "culprit/store/database.hpp"
#include "culprit/store/merge.hpp"

namespace culprit::cli {
namespace po = boost::program_options;
namespace fs = std::filesystem;

int run_scan(const std::vector<std::string>& args) {
  std::vector<std::string> paths, rule_dirs, excludes;
  std::string shard_text, db_path;
  bool jsonl = false, each_path = false, progress_flag = false;
  std::int64_t jobs_option = std::max(1u, std::thread::hardware_concurrency());
  int year = 0;
  po::options_description opts("Options");
  opts.add_options()
      ("help,h", "show this help")
      ("jsonl", po::bool_switch(&jsonl), "print one JSON object per incident (the diagnose contract + \"incident\")")
      ("db", po::value(&db_path), "keep every incident's timeline in this SQLite FILE (column `incident`)")
      ("shard", po::value(&shard_text), "take shard I of N (0 <= I < N) of the incidents, by a stable hash of their path")
      ("jobs,j", po::value(&jobs_option), "incidents diagnosed at once (default: the number of cores)")
      ("each-path", po::bool_switch(&each_path), "make every PATH one incident (e.g. a node's /var/log)")
      ("rules", po::value(&rule_dirs)->composing(), "also load the *.toml rules under DIR")
      ("exclude", po::value(&excludes)->composing(), "skip files whose name matches GLOB")
      ("year", po::value(&year), "year for stamps that carry none")
      ("progress", po::bool_switch(&progress_flag), "show progress on stderr even when it is not a terminal");
  po::options_description hidden;
  hidden.add_options()("path", po::value(&paths)->composing(), "paths");
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("path", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "culprit scan: {}\n", e.what());
    return kExitError;
  }
  if (vm.count("help") || paths.empty()) {
    std::cout << "Usage: culprit scan [options] PATH...\n\n"
                 "Each archive PATH is one incident; inside a folder PATH, each archive or folder is one\n"
                 "incident and the loose files together are one more. Prints one line per incident.\n\n"
                 "Exit codes: 0 every incident was read, 2 errors.\n\n"
              << opts;
    return paths.empty() && !vm.count("help") ? kExitError : 0;
  }
  for (const std::string& why : {check_range("--jobs", jobs_option, 1, 4096, "incidents diagnosed at once"),
                                 check_year("--year", year)}) {
    if (!why.empty()) {
      fmt::print(stderr, "culprit scan: {}\n", why);
      return kExitError;
    }
  }
  const auto jobs = static_cast<unsigned>(jobs_option);
  Shard shard;
  if (!shard_text.empty()) {
    auto parsed = parse_shard(shard_text);
    if (!parsed) {
      fmt::print(stderr, "culprit scan: --shard wants I/N with 0 <= I < N (e.g. 0/4), not '{}'\n", shard_text);
      return kExitError;
    }
    shard = *parsed;
  }
  auto loaded = load_rule_set(rule_dirs);
  for (const auto& p : loaded.problems) fmt::print(stderr, "{}\n", p.to_string());
  if (!loaded.ok()) return kExitError;

  core::Diagnostics problems;
  auto incidents = find_incidents(paths, each_path, problems);
  bool path_errors = false;  // a PATH that does not exist: the scan is not of what was asked
  for (const auto& p : problems) {
    fmt::print(stderr, "{}\n", p.to_string());
    path_errors |= p.level == core::DiagLevel::error;
  }
  std::vector<Incident> mine;
  for (auto& inc : incidents)
    if (shard.takes(inc.name)) mine.push_back(std::move(inc));

  std::vector<ScanRow> rows(mine.size());
  std::atomic<size_t> next{0}, done{0};
  std::atomic<std::int64_t> bytes_done{0};
  std::int64_t bytes_total = 0;
  for (const auto& inc : mine) bytes_total += inc.bytes;
  const bool show_progress = progress_flag || ::isatty(STDERR_FILENO);
  std::mutex print_mutex;
  const auto started = std::chrono::steady_clock::now();
  // Interrupted, the run removes every part and the merged temporary file (cli/interrupt.hpp).
  std::optional<TempFileGuard> parts_guard, tmp_guard;
  if (!db_path.empty()) {
    parts_guard.emplace(fmt::format("{}.part-{}-", db_path, ::getpid()), mine.size());
    tmp_guard.emplace(fmt::format("{}.tmp-{}", db_path, ::getpid()));
  }
  auto worker = [&] {
    for (size_t i = next++; i < mine.size(); i = next++) {
      IncidentOptions options;
      options.excludes = excludes;
      options.year = year;
      // Cores the other incidents leave free go to this one's big inputs.
      options.threads = std::max(1u, jobs / std::max<unsigned>(1u, static_cast<unsigned>(
                                                std::min<std::size_t>(jobs, mine.size() - i))));
      if (!db_path.empty()) options.db_path = fmt::format("{}.part-{}-{}", db_path, ::getpid(), i);
      auto result = run_incident(mine[i].inputs, loaded.rules, options);
      rows[i] = make_row(mine[i], result);
      bytes_done += mine[i].bytes;
      ++done;
      if (show_progress) {
        std::lock_guard lock(print_mutex);
        print_progress(done, mine.size(), bytes_done, bytes_total, started);
      }
    }
  };
  std::vector<std::thread> threads;
  const unsigned n = std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(mine.size())));
  for (unsigned t = 0; t < n; ++t) threads.emplace_back(worker);
  for (auto& t : threads) t.join();
  if (show_progress) fmt::print(stderr, "\n");

  int status = 0;
  if (!db_path.empty()) {
    std::vector<store::IncidentPart> parts;
    for (size_t i = 0; i < mine.size(); ++i)
      parts.push_back({fmt::format("{}.part-{}-{}", db_path, ::getpid(), i), mine[i].name, rows[i].verdict, rows[i].json});
    const std::string tmp = fmt::format("{}.tmp-{}", db_path, ::getpid());
    std::remove(tmp.c_str());
    if (auto err = store::write_scan_database(tmp, parts); !err.empty()) {
      fmt::print(stderr, "culprit scan: {}: {}\n", db_path, err);
      status = kExitError;
      std::remove(tmp.c_str());
    } else {
      std::error_code ec;
      fs::rename(tmp, db_path, ec);
      if (ec) {
        fmt::print(stderr, "culprit scan: {}: {}\n", db_path, ec.message());
        status = kExitError;
      }
    }
    for (const auto& p : parts) std::remove(p.db_path.c_str());
  }
  std::cout << (jsonl ? format_jsonl(rows) : format_table(rows));
  for (const auto& r : rows)
    if (!r.readable) status = kExitError;
  return path_errors ? kExitError : status;
}

}  // namespace culprit::cli
