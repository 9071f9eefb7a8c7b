// differences.md reader (see differences.hpp).
#include "conformance/differences.hpp"

#include <fstream>
#include <sstream>

namespace culprit::conformance {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.erase(s.begin());
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r')) s.pop_back();
  return s;
}

std::string unquote(std::string s) {
  s = trim(std::move(s));
  if (s.size() >= 2 && s.front() == '`' && s.back() == '`') s = s.substr(1, s.size() - 2);
  return s;
}

std::vector<std::string> split_row(const std::string& line) {
  std::vector<std::string> cells;
  std::string cur;
  bool in_code = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (c == '\\' && i + 1 < line.size() && line[i + 1] == '|') {
      cur += '|';
      ++i;
      continue;
    }
    if (c == '`') in_code = !in_code;
    if (c == '|' && !in_code) {
      cells.push_back(cur);
      cur.clear();
      continue;
    }
    cur += c;
  }
  cells.push_back(cur);
  // A row `| a | b |` splits into "", a, b, "": drop the outer empties.
  if (!cells.empty() && trim(cells.front()).empty()) cells.erase(cells.begin());
  if (!cells.empty() && trim(cells.back()).empty()) cells.pop_back();
  return cells;
}

}  // namespace

std::vector<ListedDifference> read_differences(const std::string& path, std::vector<std::string>& errors) {
  std::vector<ListedDifference> out;
  std::ifstream in(path);
  if (!in) {
    errors.push_back(path + ": cannot read the list of differences");
    return out;
  }
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    std::string t = trim(line);
    if (t.empty() || t[0] != '|') continue;
    auto cells = split_row(t);
    if (cells.empty()) continue;
    std::string first = unquote(cells[0]);
    if (first == "peer" || first.find("---") != std::string::npos) continue;
    if (cells.size() != 6) {
      errors.push_back(path + ":" + std::to_string(n) + ": a difference row needs 6 cells, found " +
                       std::to_string(cells.size()));
      continue;
    }
    ListedDifference d;
    d.peer = first;
    d.file = unquote(cells[1]);
    d.assertion = unquote(cells[2]);
    d.peer_value = unquote(cells[3]);
    d.culprit_value = unquote(cells[4]);
    d.reason = trim(cells[5]);
    d.line = n;
    if (d.reason.empty()) errors.push_back(path + ":" + std::to_string(n) + ": a difference without a reason");
    out.push_back(std::move(d));
  }
  return out;
}

const ListedDifference* find_listed(const std::vector<ListedDifference>& listed, const std::string& peer,
                                    const std::string& file, const std::string& assertion,
                                    const std::string& culprit_value) {
  for (const auto& d : listed)
    if (d.peer == peer && d.file == file && d.assertion == assertion && d.culprit_value == culprit_value) return &d;
  return nullptr;
}

std::string cell(const std::string& value) {
  std::string out = "`";
  for (char c : value) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out + "`";
}

}  // namespace culprit::conformance
