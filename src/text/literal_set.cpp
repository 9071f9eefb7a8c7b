// LiteralSet: a thin public face over the prefilter's Aho–Corasick index (literal_index.hpp).
#include "culprit/text/literal_set.hpp"

#include <algorithm>

#include "literal_index.hpp"

namespace culprit::text {

LiteralSet::LiteralSet(const std::vector<std::string>& literals)
    : index_(std::make_unique<const LiteralIndex>(std::vector<std::vector<std::string>>{literals})),
      always_(std::any_of(literals.begin(), literals.end(), [](const std::string& l) { return l.empty(); })) {}

LiteralSet::~LiteralSet() = default;

bool LiteralSet::any(std::string_view line) const { return always_ || index_->any(line); }

}  // namespace culprit::text
