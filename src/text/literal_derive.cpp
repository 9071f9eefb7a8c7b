// Prefilter literals derived from a regex with RE2's own prefilter (FilteredRE2): its atoms form
// an AND/OR tree; we reduce them to minimal sets (clauses) of which a matching line holds one
// each. Conservative by construction: when in doubt a set is empty and the signal is always tried.
#include <re2/filtered_re2.h>
#include <re2/re2.h>

#include <algorithm>
#include <numeric>

#include "literal_index.hpp"

namespace culprit::text {

namespace {

constexpr int kMinAtomLength = 3;  ///< shorter atoms are too common to be worth it (RE2 drops them)

/// Patterns run in Latin-1 mode (see Pattern), where RE2 lower-cases atoms for A-Z only, exactly
/// as the index folds. Non-ASCII pattern bytes and byte escapes are left unfiltered all the same:
/// `(?i)\xC9` matches 0xE9 although its atom keeps 0xC9.
bool unicode_risk(std::string_view regex) {
  for (std::size_t i = 0; i < regex.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(regex[i]);
    if (c >= 0x80) return true;
    if (c == '\\' && i + 1 < regex.size()) {
      const char e = regex[i + 1];
      if (e == 'x' || e == 'p' || e == 'P' || e == 'C') return true;
      ++i;  // skip the escaped character
    }
  }
  return false;
}

}  // namespace

DerivedPrefilter derive_prefilter(std::string_view regex) {
  if (unicode_risk(regex)) return {};
  re2::FilteredRE2 filter(kMinAtomLength);
  RE2::Options options;
  options.set_log_errors(false);
  options.set_encoding(RE2::Options::EncodingLatin1);  // as Pattern compiles it
  int id = 0;
  if (filter.Add(re2::StringPiece(regex.data(), regex.size()), options, &id) != RE2::NoError)
    return {};
  std::vector<std::string> atoms;
  filter.Compile(&atoms);
  if (atoms.empty()) return {};

  // `keep` is a valid set (a clause) when the regex cannot pass the filter with every other atom
  // present: a matching line holds one of its atoms.
  std::vector<int> potentials;
  auto valid = [&](const std::vector<bool>& keep) {
    std::vector<int> present;
    for (std::size_t i = 0; i < atoms.size(); ++i)
      if (!keep[i]) present.push_back(static_cast<int>(i));
    filter.AllPotentials(present, &potentials);
    return potentials.empty();
  };
  if (!valid(std::vector<bool>(atoms.size(), true))) return {};  // passes with no atom at all: unfiltered

  // A minimal clause by greedy reduction: atoms leave in `order` while the rest stays valid.
  auto reduce = [&](const std::vector<std::size_t>& order) {
    std::vector<bool> keep(atoms.size(), true);
    for (std::size_t i : order) {
      keep[i] = false;
      if (!valid(keep)) keep[i] = true;
    }
    std::vector<std::string> clause;
    for (std::size_t i = 0; i < atoms.size(); ++i) {
      if (!keep[i]) continue;
      for (unsigned char c : atoms[i])
        if (c >= 0x80) return std::vector<std::string>{};
      clause.push_back(atoms[i]);
    }
    return clause;
  };
  // Shortest atoms leave first, so the long (rare) ones stay: the literals the index looks for.
  std::vector<std::size_t> order(atoms.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return atoms[a].size() < atoms[b].size();
  });
  DerivedPrefilter out;
  out.literals = reduce(order);
  if (out.literals.empty()) return {};
  // Other clauses: each atom in turn leaves last, which finds a clause holding it where one
  // exists (`rank ` and ` scheduler ` of `Rank (\d+) scheduler (?:died|is dead)` are two).
  for (std::size_t a = 0; a < atoms.size() && out.clauses.size() < kMaxClauses; ++a) {
    std::vector<std::size_t> last_a;
    for (std::size_t i : order)
      if (i != a) last_a.push_back(i);
    last_a.push_back(a);
    std::vector<std::string> clause = reduce(last_a);
    if (clause.empty() || clause == out.literals ||
        std::find(out.clauses.begin(), out.clauses.end(), clause) != out.clauses.end())
      continue;
    out.clauses.push_back(std::move(clause));
  }
  return out;
}

}  // namespace culprit::text
