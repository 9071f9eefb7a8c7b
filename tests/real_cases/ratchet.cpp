#include "ratchet.hpp"

#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace real_cases {

namespace {

bool known_aspect(const std::string& a) { return a == "verdict" || a == "culprit" || a == "victim"; }

std::string trim(std::string s) {
  const auto b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

}  // namespace

std::map<std::string, Aspects> read_ratchet(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot read the ratchet file");
  std::map<std::string, Aspects> out;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (auto hash = line.find('#'); hash != std::string::npos) line.erase(hash);
    std::istringstream words(line);
    std::string name, aspect;
    if (!(words >> name)) continue;
    if (out.count(name)) throw std::runtime_error(fmt::format("{}:{}: {} is listed twice", path, n, name));
    Aspects& aspects = out[name];
    while (words >> aspect) {
      if (!known_aspect(aspect))
        throw std::runtime_error(fmt::format("{}:{}: unknown aspect '{}' (verdict, culprit, victim)", path, n, aspect));
      aspects.insert(aspect);
    }
    if (aspects.empty()) throw std::runtime_error(fmt::format("{}:{}: {} names no aspect", path, n, name));
  }
  return out;
}

std::string format_ratchet(const std::map<std::string, Aspects>& passing) {
  std::string out =
      "# Real cases that pass and must keep passing (ctest -L real-cases; tests/real_cases/README.md).\n"
      "# One case per line, then what must hold: verdict, culprit, victim (score.py's rules).\n"
      "# Regenerate after a deliberate gain: build/tests/culprit_real_cases --write-ratchet FILE ...\n";
  for (const auto& [name, aspects] : passing) {
    if (aspects.empty()) continue;
    out += name;
    for (const char* a : {"verdict", "culprit", "victim"})
      if (aspects.count(a)) out += std::string(" ") + a;
    out += '\n';
  }
  return out;
}

std::vector<Difference> read_differences(const std::string& path) {
  std::vector<Difference> out;
  std::ifstream in(path);
  if (!in) return out;
  std::set<std::string> cases;
  std::string line;
  for (int n = 1; std::getline(in, line); ++n) {
    line = trim(line);
    if (line.size() < 2 || line.front() != '|') continue;
    std::vector<std::string> cells;
    std::string cell;
    for (size_t i = 1; i < line.size(); ++i) {
      if (line[i] == '|') {
        cells.push_back(trim(cell));
        cell.clear();
      } else {
        cell += line[i];
      }
    }
    if (cells.empty() || cells[0] == "case" || cells[0].rfind("---", 0) == 0) continue;  // header, rule
    if (cells.size() != 5 || cells[4].empty())
      throw std::runtime_error(fmt::format("{}:{}: a row needs | case | aspect | label says | the log says | reason |", path, n));
    auto name = cells[0];
    if (name.size() > 2 && name.front() == '`' && name.back() == '`') name = name.substr(1, name.size() - 2);
    if (!known_aspect(cells[1]))
      throw std::runtime_error(fmt::format("{}:{}: unknown aspect '{}'", path, n, cells[1]));
    cases.insert(name);
    out.push_back({name, cells[1], cells[4]});
  }
  if (cases.size() > 5) throw std::runtime_error(fmt::format("{}: {} cases listed; at most 5", path, cases.size()));
  return out;
}

}  // namespace real_cases
