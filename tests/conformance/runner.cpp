// culprit_conformance: feeds every input of the peers' test data (../shared/peer-tests: twelve
// open-source OOM / Xid parsers, their inputs and what their tests assert) to culprit, compares
// culprit's facts with each assertion through the mapping table (peer_map.cpp), and prints per
// peer how many assertions apply, agree and differ. A difference not listed with a reason in
// differences.md, an assertion key the table does not cover, or agreement under 95 % fails.
//
// Usage: culprit_conformance [--peers DIR] [--differences FILE] [--markdown FILE] [--peer NAME]
//                            [--verbose] [--map] [--show FILE]
// Exit: 0 pass, 1 fail, 77 peer data absent (ctest SKIP_RETURN_CODE).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "conformance/assertion.hpp"
#include "conformance/differences.hpp"

namespace fs = std::filesystem;
using namespace culprit;
using namespace culprit::conformance;

namespace {

constexpr int kSkip = 77;
constexpr double kRequiredAgreement = 0.95;

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

struct Options {
  std::string peers = CULPRIT_PEER_TESTS_DIR;
  std::string differences = CULPRIT_DIFFERENCES_FILE;
  std::string markdown;
  std::string only_peer;
  bool verbose = false;
  bool map = false;
  std::string show;  ///< a file: print what culprit reads from it (segments, events) and exit
};

std::vector<Entry> load_entries(const fs::path& dir, std::vector<std::string>& errors) {
  std::vector<Entry> entries;
  std::string error;
  auto json = parse_json(read_file(dir / "expected.json"), error);
  if (!json || !json->is_array()) {
    errors.push_back(fmt::format("{}/expected.json: {}", dir.string(), error.empty() ? "not a JSON array" : error));
    return entries;
  }
  int index = 0;
  for (const auto& item : json->items) {
    Entry e;
    e.peer = dir.filename().string();
    e.index = index++;
    if (const Json* f = item.find("file"); f && f->is_string()) e.file = f->string;
    e.test = item.text("test");
    e.note = item.text("note");
    if (const Json* a = item.find("asserts")) e.asserts = *a;
    e.function = e.asserts.text("function");
    if (const Json* d = item.find("derived")) e.derived = d->is_bool() && d->boolean;
    if (const Json* d = item.find("documented")) e.documented = d->is_bool() && d->boolean;
    if (const Json* in = item.find("inputs_in_order"); in && in->is_array()) {
      for (const auto& f : in->items) e.inputs.push_back(f.string);
    } else if (!e.file.empty()) {
      e.inputs.push_back(e.file);
    }
    entries.push_back(std::move(e));
  }
  // Entries of one case (same inputs_in_order) count the kills the stream must hold.
  std::map<std::string, int> sizes;
  for (const auto& e : entries)
    if (e.inputs.size() > 1 || e.asserts.find("oom_index_in_case")) sizes[e.display()]++;
  for (auto& e : entries)
    if (sizes.count(e.display())) e.case_size = sizes[e.display()];
  return entries;
}

/// Drops the lines matching `pattern` (one line at a time; a trailing `\n` in it is the line end).
std::string remove_lines(const std::string& text, std::string pattern) {
  if (pattern.size() >= 2 && pattern.substr(pattern.size() - 2) == "\\n") pattern.resize(pattern.size() - 2);
  std::regex re(pattern);
  std::string out;
  std::size_t i = 0;
  while (i < text.size()) {
    std::size_t j = text.find('\n', i);
    std::size_t end = j == std::string::npos ? text.size() : j + 1;
    std::string line = text.substr(i, (j == std::string::npos ? text.size() : j) - i);
    if (!std::regex_search(line, re)) out += text.substr(i, end - i);
    i = end;
  }
  return out;
}

struct Fed {
  std::string text;
  std::vector<InputPart> parts;
};

Fed feed_text(const fs::path& dir, const std::vector<std::string>& inputs) {
  Fed fed;
  std::int64_t line = 1;
  for (const auto& in : inputs) {
    std::string t = read_file(dir / in);
    if (!fed.text.empty() && fed.text.back() != '\n') fed.text += '\n';
    InputPart part{in, line, line};
    std::int64_t n = std::count(t.begin(), t.end(), '\n') + (t.empty() || t.back() == '\n' ? 0 : 1);
    part.last_line = line + std::max<std::int64_t>(n, 1) - 1;
    line += n;
    fed.text += t;
    fed.parts.push_back(part);
  }
  return fed;
}

struct Row {
  const Entry* entry;
  Result result;
  const ListedDifference* listed = nullptr;
};

struct Totals {
  int applicable = 0, agreed = 0, differ = 0, listed = 0, not_applicable = 0;
};

}  // namespace

int main(int argc, char** argv) {
  Options opt;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&]() { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--peers") opt.peers = next();
    else if (a == "--differences") opt.differences = next();
    else if (a == "--markdown") opt.markdown = next();
    else if (a == "--peer") opt.only_peer = next();
    else if (a == "--verbose" || a == "-v") opt.verbose = true;
    else if (a == "--map") opt.map = true;
    else if (a == "--show") opt.show = next();
    else {
      std::fprintf(stderr, "usage: culprit_conformance [--peers DIR] [--differences FILE] [--markdown FILE] "
                           "[--peer NAME] [--verbose] [--map] [--show FILE]\n");
      return 2;
    }
  }
  if (opt.map) {
    print_mapping();
    return 0;
  }
  if (!opt.show.empty()) {
    auto loaded = rules::load_rules(rules::builtin_rules());
    Facts f = run_culprit(read_file(opt.show), opt.show, loaded.rules);
    for (const auto& fmt_name : f.formats) std::printf("segment: %s\n", fmt_name.c_str());
    for (const auto& e : f.events) {
      std::printf("event %s rule=%s lines %lld-%lld sev=%s ts_raw=%s pid=%s comm=%s\n  %s\n", e.kind.c_str(), e.rule.c_str(),
                  static_cast<long long>(e.line), static_cast<long long>(e.line_end), std::string(core::to_string(e.severity)).c_str(),
                  e.ts_raw.c_str(), e.pid ? std::to_string(*e.pid).c_str() : "-", e.comm.c_str(), e.message.substr(0, 160).c_str());
      for (const auto& fld : e.fields) std::printf("    %s = %s\n", fld.key.c_str(), fld.value.c_str());
    }
    for (const auto& r : f.reports) std::printf("report: %zu tasks, page_size %lld\n", r.tasks.size(), static_cast<long long>(r.page_size));
    for (const auto& n : f.notes) std::printf("note: %s\n", n.to_string().c_str());
    return 0;
  }
  if (!fs::is_directory(opt.peers)) {
    std::printf("conformance: the peers' test data is ABSENT (looked for %s; CI provides it at "
                "../shared/peer-tests next to the repository). Skipping.\n",
                opt.peers.c_str());
    return kSkip;
  }

  auto loaded = rules::load_rules(rules::builtin_rules());
  std::vector<std::string> errors;
  for (const auto& p : loaded.problems)
    if (p.level == core::DiagLevel::error) errors.push_back("rules: " + p.to_string());
  auto listed = read_differences(opt.differences, errors);

  std::vector<fs::path> peer_dirs;
  for (const auto& d : fs::directory_iterator(opt.peers))
    if (d.is_directory() && fs::exists(d.path() / "expected.json")) peer_dirs.push_back(d.path());
  std::sort(peer_dirs.begin(), peer_dirs.end());

  std::vector<std::vector<Entry>> all_entries;
  std::vector<Row> rows;
  std::map<std::string, Totals> totals;
  for (const auto& dir : peer_dirs) {
    std::string peer = dir.filename().string();
    if (!opt.only_peer.empty() && peer != opt.only_peer) continue;
    all_entries.push_back(load_entries(dir, errors));
    const auto& entries = all_entries.back();
    std::map<std::string, std::pair<Fed, Facts>> cache;
    auto facts_for = [&](const std::vector<std::string>& inputs, const std::string& remove) -> std::pair<Fed, Facts>& {
      std::string cache_key = remove;
      for (const auto& in : inputs) cache_key += "\n" + in;
      auto it = cache.find(cache_key);
      if (it != cache.end()) return it->second;
      Fed fed = feed_text(dir, inputs);
      if (!remove.empty()) fed.text = remove_lines(fed.text, remove);
      std::string name = inputs.empty() ? "(no input)" : inputs.front();
      Facts facts = run_culprit(fed.text, name, loaded.rules);
      facts.parts = fed.parts;
      return cache.emplace(cache_key, std::make_pair(std::move(fed), std::move(facts))).first->second;
    };
    totals[peer];
    for (const auto& entry : entries) {
      std::string remove = entry.asserts.text("after_removing_lines");
      auto& [fed, facts] = facts_for(entry.inputs, remove);
      Ctx ctx{entry, facts, fed.text, loaded.rules, entries,
              [&](const std::string& file, std::string& text) {
                auto& [f2, facts2] = facts_for({file}, "");
                text = f2.text;
                return facts2;
              }};
      for (const auto& [key, want] : entry.asserts.members) {
        if (key == "function") continue;
        std::vector<Result> results;
        if (!evaluate(ctx, key, want, results)) {
          errors.push_back(fmt::format("{} {} (entry {}): assertion `{}` is not in the mapping table (peer_map.cpp)",
                                       peer, entry.display(), entry.index, key));
          continue;
        }
        for (auto& r : results) {
          Row row{&entry, std::move(r)};
          if (row.result.status == Status::differ)
            row.listed = find_listed(listed, peer, entry.display(), row.result.key, row.result.culprit_value);
          if (row.listed) row.listed->used = true;
          rows.push_back(std::move(row));
        }
      }
    }
  }

  // Tallies.
  Totals all;
  for (const auto& r : rows) {
    Totals& t = totals[r.entry->peer];
    for (Totals* x : {&t, &all}) {
      if (r.result.status == Status::not_applicable) {
        x->not_applicable++;
        continue;
      }
      x->applicable++;
      if (r.result.status == Status::agree) x->agreed++;
      else {
        x->differ++;
        if (r.listed) x->listed++;
      }
    }
  }

  if (opt.verbose) {
    for (const auto& r : rows) {
      const char* s = r.result.status == Status::agree ? "agree" : r.result.status == Status::differ ? "DIFFER" : "n/a";
      std::printf("%-6s %s | %s | %s | peer=%s culprit=%s | %s\n", s, r.entry->peer.c_str(), r.entry->display().c_str(),
                  r.result.key.c_str(), r.result.peer_value.c_str(), r.result.culprit_value.c_str(), r.result.fact.c_str());
    }
    std::printf("\n");
  }

  // Differences, each with the input and both values.
  int unlisted = 0;
  std::printf("Differences (peer | input | assertion | peer value | culprit value):\n");
  for (const auto& r : rows) {
    if (r.result.status != Status::differ) continue;
    if (!r.listed) ++unlisted;
    std::printf("  %s %s | %s | %s | peer: %s | culprit: %s%s\n", r.listed ? "listed  " : "UNLISTED", r.entry->peer.c_str(),
                r.entry->display().c_str(), r.result.key.c_str(), r.result.peer_value.c_str(), r.result.culprit_value.c_str(),
                r.listed ? "" : fmt::format("\n           add to differences.md: | {} | {} | {} | {} | {} | <reason> |",
                                            r.entry->peer, cell(r.entry->display()), cell(r.result.key),
                                            cell(r.result.peer_value), cell(r.result.culprit_value)).c_str());
  }
  for (const auto& d : listed)
    if (!d.used && (opt.only_peer.empty() || d.peer == opt.only_peer))
      std::printf("  stale    differences.md:%d %s | %s | %s: culprit no longer differs this way; remove the row\n",
                  d.line, d.peer.c_str(), d.file.c_str(), d.assertion.c_str());

  // The table.
  auto pct = [](int a, int n) { return n == 0 ? std::string("-") : fmt::format("{:.1f} %", 100.0 * a / n); };
  std::string table = "| peer | applicable | agreed | differ (listed) | not applicable | agreement |\n"
                      "| --- | ---: | ---: | ---: | ---: | ---: |\n";
  for (const auto& [peer, t] : totals)
    table += fmt::format("| {} | {} | {} | {} ({}) | {} | {} |\n", peer, t.applicable, t.agreed, t.differ, t.listed,
                         t.not_applicable, pct(t.agreed, t.applicable));
  table += fmt::format("| **all** | **{}** | **{}** | **{} ({})** | **{}** | **{}** |\n", all.applicable, all.agreed,
                       all.differ, all.listed, all.not_applicable, pct(all.agreed, all.applicable));
  std::printf("\nConformance with the peers' test data (%s):\n\n%s\n", opt.peers.c_str(), table.c_str());
  if (!opt.markdown.empty()) {
    std::ofstream md(opt.markdown);
    md << "<!-- Generated by culprit_conformance --markdown; the per-peer agreement of culprit with the\n"
          "     test data of twelve open-source OOM / Xid parsers (../shared/peer-tests). -->\n"
       << table;
  }

  for (const auto& e : errors) std::printf("error: %s\n", e.c_str());
  double agreement = all.applicable == 0 ? 1.0 : static_cast<double>(all.agreed) / all.applicable;
  bool ok = errors.empty() && unlisted == 0 && agreement >= kRequiredAgreement;
  if (unlisted > 0) std::printf("FAIL: %d difference(s) not listed in %s\n", unlisted, opt.differences.c_str());
  if (agreement < kRequiredAgreement)
    std::printf("FAIL: agreement %.1f %% is under the required %.0f %%\n", agreement * 100, kRequiredAgreement * 100);
  if (ok) std::printf("PASS: %d of %d applicable assertions agree (%.1f %%); every difference is listed with a reason\n",
                      all.agreed, all.applicable, agreement * 100);
  return ok ? 0 : 1;
}
