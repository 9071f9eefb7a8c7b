// Incident discovery, sharding and scan output rows.
#include "cli/scan_support.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <cstring>
#include <filesystem>

#include "culprit/core/utf8.hpp"
#include "culprit/report/json_writer.hpp"
#include "culprit/report/renderer.hpp"

namespace culprit::cli {
namespace fs = std::filesystem;
namespace {

bool is_archive(const fs::path& p) {
  const std::string n = p.filename().string();
  for (const char* s : {".tar", ".tgz", ".tar.gz", ".tar.zst", ".tzst", ".tar.xz", ".txz", ".tar.bz2", ".zip",
                        ".gz", ".zst", ".xz", ".bz2"})
    if (n.size() > std::strlen(s) && n.compare(n.size() - std::strlen(s), std::strlen(s), s) == 0) return true;
  return false;
}

std::int64_t size_of(const fs::path& p) {
  std::error_code ec;
  if (fs::is_regular_file(p, ec)) return static_cast<std::int64_t>(fs::file_size(p, ec));
  std::int64_t total = 0;
  for (fs::recursive_directory_iterator it(p, fs::directory_options::skip_permission_denied, ec), end;
       !ec && it != end; it.increment(ec))
    if (it->is_regular_file(ec)) total += static_cast<std::int64_t>(it->file_size(ec));
  return total;
}

/// A path, host or name in the table: one line, shown as it is, nothing a terminal acts on.
std::string one_line(const std::string& s) { return core::utf8::visible(s); }

}  // namespace

std::uint64_t stable_hash(const std::string& text) {
  std::uint64_t h = 1469598103934665603ULL;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// The hash is of the incident's file name, not its full path, so shards agree even when the
// machines of a job array mount the batch at different places.
bool Shard::takes(const std::string& name) const {
  return count <= 1 || stable_hash(fs::path(name).filename().string()) % count == index;
}

std::optional<Shard> parse_shard(const std::string& text) {
  const auto slash = text.find('/');
  if (slash == std::string::npos) return std::nullopt;
  try {
    size_t used = 0;
    const long long i = std::stoll(text.substr(0, slash), &used);
    if (used != slash) return std::nullopt;
    const std::string rest = text.substr(slash + 1);
    const long long n = std::stoll(rest, &used);
    if (used != rest.size() || n < 1 || i < 0 || i >= n) return std::nullopt;
    return Shard{static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(n)};
  } catch (...) {
    return std::nullopt;
  }
}

std::vector<Incident> find_incidents(const std::vector<std::string>& paths, bool each_path,
                                     core::Diagnostics& problems) {
  std::vector<Incident> out;
  for (const auto& path : paths) {
    std::error_code ec;
    const fs::path p(path);
    if (!fs::exists(p, ec)) {
      problems.push_back({core::DiagLevel::error, "input-missing", path, "no such file or folder"});
      continue;
    }
    if (each_path || !fs::is_directory(p, ec)) {
      out.push_back({path, {path}});
      continue;
    }
    std::vector<fs::path> children, loose;
    for (const auto& entry : fs::directory_iterator(p, fs::directory_options::skip_permission_denied, ec)) {
      if (entry.is_directory(ec) || is_archive(entry.path())) children.push_back(entry.path());
      else loose.push_back(entry.path());
    }
    if (children.empty()) {  // a folder of plain files is itself one incident
      out.push_back({path, {path}});
      continue;
    }
    for (const auto& c : children) out.push_back({c.string(), {c.string()}});
    if (!loose.empty()) {
      Incident inc{path, {}};
      std::sort(loose.begin(), loose.end());
      for (const auto& l : loose) inc.inputs.push_back(l.string());
      out.push_back(std::move(inc));
    }
  }
  std::sort(out.begin(), out.end(), [](const Incident& a, const Incident& b) { return a.name < b.name; });
  return out;
}

std::int64_t incident_bytes(const Incident& incident) {
  std::int64_t total = 0;
  for (const auto& input : incident.inputs) total += size_of(input);
  return total;
}

ScanRow make_row(const Incident& incident, const culprit::Analysis& analysis, bool json) {
  ScanRow row;
  const auto& v = analysis.verdict;
  row.incident = incident.name;
  row.verdict = v.verdict;
  row.confidence = diagnose::to_string(v.confidence);
  row.readable = analysis.sources > 0;
  if (v.culprit) {
    const auto& c = *v.culprit;
    row.culprit = !c.pid && c.name.empty() && c.role == "job"
                      ? std::string("the job itself")
                      : fmt::format("{}{} ({})", c.pid ? fmt::format("pid {} ", *c.pid) : "",
                                    c.name.empty() ? "?" : c.name, c.role.empty() ? "unknown" : c.role);
    row.where = c.host;
    row.role = c.role.empty() ? std::string("unknown") : c.role;
  }
  if (row.where.empty() && v.root) row.where = v.root->host;
  if (v.root && v.root->ts) {
    const auto secs = static_cast<std::time_t>(std::floor(*v.root->ts));
    std::tm utc{};
    if (::gmtime_r(&secs, &utc))
      row.when = fmt::format("{:04}-{:02}-{:02} {:02}:{:02}:{:02}", utc.tm_year + 1900, utc.tm_mon + 1, utc.tm_mday,
                             utc.tm_hour, utc.tm_min, utc.tm_sec);
  }
  if (!json) return row;
  std::string rendered = culprit::render(analysis, culprit::Format::json);
  while (!rendered.empty() && rendered.back() == '\n') rendered.pop_back();
  // The incident path goes first, quoted by the contract's own JSON writer.
  row.json = fmt::format("{{\"incident\":{},{}", report::json_quote(incident.name),
                         rendered.size() > 1 ? rendered.substr(1) : std::string("}"));
  return row;
}

std::string format_table(const std::vector<ScanRow>& rows) {
  size_t wv = 7, wc = 10, wk = 7, ww = 5;
  for (const auto& r : rows) {
    wv = std::max(wv, r.verdict.size());
    wk = std::max(wk, std::min<size_t>(r.culprit.size(), 48));
    ww = std::max(ww, std::min<size_t>(r.where.size(), 24));
  }
  // WHEN: the root failure's time (UTC), so that a batch reads in time and repeats stand out.
  constexpr size_t wt = 19;
  std::string out = fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", "VERDICT", wv, "CONFIDENCE", wc,
                                "WHEN (UTC)", wt, "CULPRIT", wk, "WHERE", ww, "INCIDENT");
  for (const auto& r : rows) {
    std::string culprit = one_line(r.culprit.empty() ? "-" : r.culprit);
    if (culprit.size() > 48) culprit.replace(47, std::string::npos, "~");
    std::string where = one_line(r.where.empty() ? "-" : r.where);
    if (where.size() > 24) where.replace(23, std::string::npos, "~");
    out += fmt::format("{:<{}}  {:<{}}  {:<{}}  {:<{}}  {:<{}}  {}\n", r.verdict, wv, r.confidence, wc,
                       r.when.empty() ? "-" : r.when, wt, culprit, wk, where, ww, one_line(r.incident));
  }
  return out;
}

std::string format_markdown(const std::vector<ScanRow>& rows) {
  // A cell holds no line break, and a path or a name escaped as the Markdown report escapes it:
  // a `|` does not end the cell, no tag, link or image starts.
  auto cell = [](const std::string& s) { return report::markdown_inline(s.empty() ? std::string("-") : s); };
  std::string out = "| Verdict | Confidence | When (UTC) | Culprit | Where | Incident |\n|---|---|---|---|---|---|\n";
  for (const auto& r : rows)
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", cell(r.verdict), cell(r.confidence), cell(r.when),
                       cell(r.culprit), cell(r.where), cell(r.incident));
  return out;
}

std::string format_jsonl(const std::vector<ScanRow>& rows) {
  std::string out;
  for (const auto& r : rows) out += r.json + "\n";
  return out;
}

void print_progress(std::size_t done, std::size_t total, std::int64_t bytes_done, std::int64_t bytes_total,
                    std::chrono::steady_clock::time_point started) {
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const double rate = secs > 0 ? static_cast<double>(bytes_done) / secs / (1024.0 * 1024.0) : 0;
  const int width = 30;
  const int filled = bytes_total > 0 ? static_cast<int>(width * static_cast<double>(bytes_done) / bytes_total) : width;
  fmt::print(stderr, "\r[{:<{}}] {}/{} incidents, {:.1f}/{:.1f} MiB, {:.1f} MiB/s", std::string(std::min(filled, width), '#'),
             width, done, total, bytes_done / 1048576.0, bytes_total / 1048576.0, rate);
}

}  // namespace culprit::cli
