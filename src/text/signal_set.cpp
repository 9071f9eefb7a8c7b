// SignalSet: literal prefilter (one literal scan per line: Hyperscan, else Aho–Corasick), then
// each candidate's clauses and its regex, run once with captures. The prefilter may pass false
// candidates but never drops a real match: literals are required substrings of every match.
#include "culprit/text/signal_set.hpp"

#include <algorithm>
#include <mutex>
#include <unordered_map>
#include <utility>

#include "culprit/text/block_scanner.hpp"
#include "literal_index.hpp"

namespace culprit::text {

/// What build() makes for finding a line's candidate signals: the signals' literals as one
/// Hyperscan database whose ids are the signals (prebuilt for the built-in rules), and the
/// Aho–Corasick automaton, built on first use only where no database is ready (other rules, no
/// Hyperscan): a run on the built-in rules never builds it.
struct SignalSet::Candidates {
  std::vector<std::vector<std::string>> sets;  ///< per signal: its usable literals, or none
  std::unique_ptr<const BlockScanner> scanner;
  std::once_flag once;
  std::unique_ptr<const LiteralIndex> index;
  const LiteralIndex& automaton() {
    std::call_once(once, [this] { index = std::make_unique<const LiteralIndex>(sets); });
    return *index;
  }
};

struct SignalSet::BlockCache {
  std::mutex mutex;
  struct Entry {
    const void* key = nullptr;  ///< `extra`'s address, or the caller's key
    std::shared_ptr<const BlockScanner> scanner;
    std::vector<std::string> literals;            ///< the scanner's list, for literal_owners()
    std::shared_ptr<const LiteralOwners> owners;  ///< made by the first literal_owners()
  };
  std::vector<Entry> scanners;
};

SignalSet::SignalSet() = default;
SignalSet::~SignalSet() = default;
SignalSet::SignalSet(const SignalSet&) = default;
SignalSet& SignalSet::operator=(const SignalSet&) = default;
SignalSet::SignalSet(SignalSet&&) noexcept = default;
SignalSet& SignalSet::operator=(SignalSet&&) noexcept = default;

void SignalSet::add(Signal signal) {
  signals_.push_back(std::move(signal));
  candidates_.reset();
  always_.clear();
  block_cache_.reset();
}

void SignalSet::build() {
  std::vector<std::vector<std::string>> sets(signals_.size());
  always_.clear();
  for (std::uint32_t i = 0; i < signals_.size(); ++i) {
    Signal& signal = signals_[i];
    if (!signal.literals_precomputed && (signal.literals.empty() || signal.literals_derived)) {
      // An invalid regex derives none.
      DerivedPrefilter derived = signal.pattern ? derive_prefilter(signal.pattern->source()) : DerivedPrefilter{};
      signal.literals = std::move(derived.literals);
      signal.clauses = std::move(derived.clauses);
      signal.literals_derived = true;
    }
    // Literals the rule declares are looked for as written, spaces included, as derived ones are:
    // `second ` is not found in every `seconds` (rules check proves them on the rule's samples).
    // An empty declared literal occurs in every line: the signal cannot be filtered.
    const bool usable = !signal.literals.empty() &&
                        std::none_of(signal.literals.begin(), signal.literals.end(),
                                     [](const std::string& l) { return l.empty(); });
    if (usable) {
      sets[i] = signal.literals;
    } else {
      always_.push_back(i);
    }
  }
  candidates_ = std::make_shared<Candidates>();
  candidates_->sets = std::move(sets);
  const LiteralList list = candidate_literals();
  candidates_->scanner = std::make_unique<const BlockScanner>(list.literals, BlockScanner::Engine::automatic,
                                                              BlockScanner::kCompileAfterBytes, list.ids);
  block_cache_ = std::make_shared<BlockCache>();
}

LiteralList SignalSet::candidate_literals() const {
  LiteralList list;
  if (!candidates_) return list;
  for (std::uint32_t i = 0; i < candidates_->sets.size(); ++i)
    for (const auto& lit : candidates_->sets[i]) {
      list.literals.push_back(lit);
      list.ids.push_back(i);
    }
  return list;
}

std::shared_ptr<const BlockScanner> SignalSet::block_scanner(const std::vector<std::string>& extra) const {
  return block_scanner(&extra, [&] { return LiteralList{block_literals(extra), {}}; });
}

std::shared_ptr<const BlockScanner> SignalSet::block_scanner(const void* key,
                                                             const std::function<LiteralList()>& make) const {
  if (!prefilter_ || !candidates_ || !always_.empty() || !block_cache_) return nullptr;
  std::lock_guard<std::mutex> lock(block_cache_->mutex);
  for (const auto& entry : block_cache_->scanners)
    if (entry.key == key) return entry.scanner;
  LiteralList list = make();
  auto scanner = std::make_shared<const BlockScanner>(list.literals, BlockScanner::Engine::automatic,
                                                      BlockScanner::kCompileAfterBytes, std::move(list.ids));
  if (!scanner->usable()) scanner.reset();
  block_cache_->scanners.push_back({key, scanner, std::move(list.literals), nullptr});
  return scanner;
}

std::shared_ptr<const SignalSet::LiteralOwners> SignalSet::literal_owners(const void* key) const {
  if (!block_cache_ || !candidates_) return nullptr;
  std::lock_guard<std::mutex> lock(block_cache_->mutex);
  for (auto& entry : block_cache_->scanners) {
    if (entry.key != key || !entry.scanner) continue;
    if (!entry.owners) {
      // Each signal's literals by their text (signal order: each list sorted, each signal once).
      std::unordered_map<std::string_view, std::vector<std::uint32_t>> signals_of;
      for (std::uint32_t i = 0; i < candidates_->sets.size(); ++i)
        for (const std::string& literal : candidates_->sets[i]) {
          auto& signals = signals_of[literal];
          if (signals.empty() || signals.back() != i) signals.push_back(i);
        }
      auto owners = std::make_shared<LiteralOwners>(entry.literals.size());
      for (std::size_t i = 0; i < entry.literals.size(); ++i) {
        (*owners)[i].bytes = static_cast<std::uint32_t>(entry.literals[i].size());
        if (const auto it = signals_of.find(entry.literals[i]); it != signals_of.end()) (*owners)[i].signals = it->second;
      }
      entry.owners = std::move(owners);
    }
    return entry.owners;
  }
  return nullptr;
}

std::vector<std::string> SignalSet::block_literals(const std::vector<std::string>& extra) const {
  // The literals candidate() looks for (build() left each usable signal's in `literals`).
  std::vector<std::string> literals = extra;
  for (const Signal& signal : signals_) literals.insert(literals.end(), signal.literals.begin(), signal.literals.end());
  return literals;
}

namespace {

/// `atom` (lower-case) in `text`, ASCII case-insensitively.
bool contains_folded(std::string_view text, std::string_view atom) {
  const auto fold = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; };
  return std::search(text.begin(), text.end(), atom.begin(), atom.end(),
                     [&](char t, char a) { return fold(t) == a; }) != text.end();
}

/// Whether `line` holds an atom of every clause.
bool meets(const std::vector<std::vector<std::string>>& clauses, std::string_view line) {
  return std::all_of(clauses.begin(), clauses.end(), [&](const std::vector<std::string>& clause) {
    return std::any_of(clause.begin(), clause.end(), [&](const std::string& atom) { return contains_folded(line, atom); });
  });
}

}  // namespace

bool SignalSet::applies(const Signal& signal, std::string_view line,
                        std::string_view format) const {
  if (signal.formats.empty() ? format == kTracebackFrameScope
                             : std::find(signal.formats.begin(), signal.formats.end(), format) == signal.formats.end())
    return false;
  // The clauses before the regex (which may not be compiled yet); with the prefilter off every
  // regex runs on every line, so the equivalence tests hold the clauses to the regexes.
  return !prefilter_ || meets(signal.clauses, line);
}

void SignalSet::try_signal(std::uint32_t index, std::string_view line, std::string_view format,
                           std::vector<SignalMatch>& out) const {
  const Signal& signal = signals_[index];
  if (!signal.pattern || !applies(signal, line, format)) return;
  // One search that captures: RE2 runs its DFA first and says no as cheaply as a search without
  // captures would, so a separate yes-or-no search first only repeated the DFA on a match.
  SignalMatch m;
  if (!signal.pattern->match(line, m.captures)) return;
  m.signal = &signal;
  out.push_back(std::move(m));
}

std::vector<SignalMatch> SignalSet::match(std::string_view line, std::string_view format) const {
  std::vector<SignalMatch> out;
  const auto count = static_cast<std::uint32_t>(signals_.size());
  if (!prefilter_ || !candidates_) {
    for (std::uint32_t i = 0; i < count; ++i) try_signal(i, line, format, out);
    return out;
  }
  std::vector<std::uint32_t> candidates;  // allocates only when a literal hits
  if (!candidates_->scanner->literal_ids(line, candidates)) candidates_->automaton().owners(line, candidates);
  try_candidates(candidates, line, format, out);
  return out;
}

std::vector<SignalMatch> SignalSet::match(std::string_view line, std::string_view format,
                                          const std::vector<std::uint32_t>& candidates) const {
  if (!prefilter_ || !candidates_) return match(line, format);
  std::vector<SignalMatch> out;
  try_candidates(candidates, line, format, out);
  return out;
}

void SignalSet::try_candidates(const std::vector<std::uint32_t>& candidates, std::string_view line,
                               std::string_view format, std::vector<SignalMatch>& out) const {
  // Merge the two sorted lists so results stay in rule order.
  auto c = candidates.begin();
  auto a = always_.begin();
  while (c != candidates.end() || a != always_.end()) {
    std::uint32_t next;
    if (a == always_.end() || (c != candidates.end() && *c < *a)) {
      next = *c++;
    } else if (c == candidates.end() || *a < *c) {
      next = *a++;
    } else {
      next = *c++;
      ++a;
    }
    try_signal(next, line, format, out);
  }
}

bool SignalSet::candidate(std::string_view line) const {
  if (!candidates_ || !always_.empty()) return !signals_.empty();
  // The database when it is ready (block scans then took every segment, so only the few lines a
  // repair weighs ask here); else the automaton, built now if need be.
  std::vector<std::uint32_t> ids;
  if (candidates_->scanner->literal_ids(line, ids)) return !ids.empty();
  return candidates_->automaton().any(line);
}

}  // namespace culprit::text
