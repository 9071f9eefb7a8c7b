// `culprit merge`: joins the outputs of `culprit scan` shards without re-reading logs — JSON
// Lines files into one stream on stdout, scan databases into one (--db OUT, through
// culprit::merge_scan_databases). Incidents are ordered by path, exactly as one unsharded run
// orders them.
#include <sys/stat.h>

#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <string_view>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/scan_support.hpp"
#include "culprit/timeline.hpp"

namespace culprit::cli {
namespace po = boost::program_options;

namespace {

bool is_sqlite(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  char header[16] = {};
  in.read(header, 16);
  return in.gcount() == 16 && std::string(header, 15) == "SQLite format 3";
}

/// The incident path of a scan JSON line: its first key, written by `scan --jsonl`.
std::string incident_of(const std::string& line) {
  const std::string key = "{\"incident\":\"";
  if (line.rfind(key, 0) != 0) return {};
  std::string out;
  for (size_t i = key.size(); i < line.size(); ++i) {
    if (line[i] == '\\' && i + 1 < line.size()) { out += line[i]; out += line[++i]; continue; }
    if (line[i] == '"') return out;
    out += line[i];
  }
  return {};
}


/// The longest `scan --jsonl` line merge reads: one incident's report, whose parts are capped
/// (500 timeline events, 30 evidence lines), is a few MiB at most; a 2 GB line cost 4 GB.
constexpr std::size_t kMaxScanLineBytes = std::size_t{64} << 20;

/// The next line of `in` (without its newline) into `line`; false at the end. Stops reading a line
/// as soon as it cannot be a scan line: its first bytes are not `{"incident":"` (returned cut
/// there, the rest unread: the caller stops at it), or it is past kMaxScanLineBytes (`too_long`;
/// the rest is read past, never held).
bool read_scan_line(std::streambuf& in, std::string& line, bool& too_long) {
  static constexpr std::string_view kKey = "{\"incident\":\"";
  line.clear();
  too_long = false;
  bool any = false;
  for (int c = in.sbumpc(); c != std::char_traits<char>::eof(); c = in.sbumpc()) {
    any = true;
    if (c == '\n') return true;
    if (too_long) continue;
    line.push_back(static_cast<char>(c));
    if (line.size() <= kKey.size() && kKey.substr(0, line.size()) != line) return true;  // the caller stops there
    if (line.size() > kMaxScanLineBytes) {
      too_long = true;
      line.clear();
    }
  }
  return any;
}

/// `inputs` with each file once: a shard given twice (however spelled or linked: same device and
/// inode) is read once and named on stderr, since one given twice is often one left out.
std::vector<std::string> each_file_once(const std::vector<std::string>& inputs) {
  std::vector<std::string> out;
  std::map<std::pair<dev_t, ino_t>, std::string> seen;
  for (const auto& in : inputs) {
    struct stat st {};
    if (::stat(in.c_str(), &st) == 0) {
      const auto [it, fresh] = seen.emplace(std::make_pair(st.st_dev, st.st_ino), in);
      if (!fresh) {
        fmt::print(stderr, "culprit merge: warning: {} is given twice{}; read once (is a shard missing?)\n", in,
                   it->second == in ? std::string() : fmt::format(" (as {} too)", it->second));
        continue;
      }
    }
    out.push_back(in);
  }
  return out;
}

void add_merge_options(po::options_description& opts, std::string& db_out) {
  opts.add_options()("help,h", "show this help")("db", po::value(&db_out)->value_name("FILE"), "write the merged scan database to FILE");
}

}  // namespace

void merge_option_table(po::options_description& out) {
  static std::string unused;  // the table's value points here; it is only read for documentation
  add_merge_options(out, unused);
}

int run_merge(const std::vector<std::string>& args) {
  std::vector<std::string> inputs;
  std::string db_out;
  po::options_description opts("Options");
  add_merge_options(opts, db_out);
  po::options_description hidden;
  hidden.add_options()("input", po::value(&inputs)->composing(), "inputs");
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("input", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "culprit merge: {}\n", e.what());
    return kExitError;
  }
  if (vm.count("help") || inputs.empty()) {
    std::cout << "Usage: culprit merge FILE.jsonl...            (merged JSON Lines on stdout)\n"
                 "       culprit merge --db OUT.db SHARD.db...  (merged scan database)\n\n"
              << opts;
    return inputs.empty() && !vm.count("help") ? kExitError : 0;
  }
  inputs = each_file_once(inputs);
  const bool databases = std::all_of(inputs.begin(), inputs.end(), is_sqlite);
  if (databases) {
    if (db_out.empty()) {
      fmt::print(stderr, "culprit merge: the inputs are scan databases; name the output with --db OUT\n");
      return kExitError;
    }
    // merge_scan_databases writes OUT.tmp and renames it: an interrupted merge removes it.
    const TempFileGuard guard(db_out + ".tmp");
    if (auto merged = culprit::merge_scan_databases(inputs, db_out); !merged) {
      fmt::print(stderr, "culprit merge: {}\n", merged.error().message);
      return kExitError;
    }
    return 0;
  }
  std::map<std::string, std::string> lines;  // by incident: sorted, one each
  std::map<std::string, std::string> shard_of;  // by incident: the file it came from first
  std::size_t overlaps = 0;
  for (const auto& in : inputs) {
    std::ifstream file(in, std::ios::binary);
    if (!file) {
      fmt::print(stderr, "culprit merge: {}: cannot read\n", in);
      return kExitError;
    }
    std::string line;
    size_t n = 0;
    bool too_long = false;
    while (read_scan_line(*file.rdbuf(), line, too_long)) {
      ++n;
      if (too_long) {
        fmt::print(stderr, "culprit merge: {}:{}: a line over {} MiB is no `culprit scan --jsonl` line\n", in, n,
                   kMaxScanLineBytes >> 20);
        return kExitError;
      }
      if (line.empty()) continue;
      const std::string incident = incident_of(line);
      if (incident.empty()) {
        fmt::print(stderr, "culprit merge: {}:{}: not a `culprit scan --jsonl` line\n", in, n);
        return kExitError;
      }
      if (!lines.emplace(incident, line).second && shard_of[incident] != in && overlaps++ == 0)
        fmt::print(stderr, "culprit merge: warning: incident {} is in {} and {} (do the shards overlap?); the first "
                           "is kept\n", incident, shard_of[incident], in);
      shard_of.emplace(incident, in);
    }
  }
  if (overlaps > 1) fmt::print(stderr, "culprit merge: warning: {} incidents are in two shards\n", overlaps);
  for (const auto& [incident, line] : lines) std::cout << line << '\n';
  return 0;
}

}  // namespace culprit::cli
