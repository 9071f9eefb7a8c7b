// LiteralSet: a thin public face over the prefilter's Aho–Corasick index (literal_index.hpp).
#include "culprit/text/literal_set.hpp"

#include <algorithm>

#include "literal_index.hpp"

namespace culprit::text {

std::string hand_written_literal(std::string_view literal) {
  std::size_t b = 0, e = literal.size();
  while (b < e && literal[b] == ' ') ++b;
  while (e > b && literal[e - 1] == ' ') --e;
  return std::string(e - b >= 3 ? literal.substr(b, e - b) : literal);
}

std::vector<std::string> hand_written_literals(const std::vector<std::string>& literals) {
  std::vector<std::string> out;
  out.reserve(literals.size());
  for (const std::string& literal : literals) out.push_back(hand_written_literal(literal));
  return out;
}

LiteralSet::LiteralSet(const std::vector<std::string>& literals)
    : index_(std::make_unique<const LiteralIndex>(std::vector<std::vector<std::string>>{literals})),
      always_(std::any_of(literals.begin(), literals.end(), [](const std::string& l) { return l.empty(); })) {}

LiteralSet::~LiteralSet() = default;

bool LiteralSet::any(std::string_view line) const { return always_ || index_->any(line); }

}  // namespace culprit::text
