// Aho–Corasick over byte classes (bytes of no literal share class 0, letters fold to one class),
// built once per rule set; the hot loop is one table load per byte of the line.
#include "literal_index.hpp"

#include <algorithm>

#include "ascii_fold.hpp"

namespace culprit::text {

namespace {

using detail::fold;

}  // namespace

std::string ascii_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(fold(static_cast<unsigned char>(c)));
  return out;
}

LiteralIndex::LiteralIndex(const std::vector<std::vector<std::string>>& sets) {
  // Byte classes: each distinct folded byte used by a literal gets a class; upper-case letters
  // share their lower-case letter's class.
  byte_class_.fill(0);
  classes_ = 1;
  for (const auto& set : sets)
    for (const auto& lit : set)
      for (unsigned char c : lit) {
        const unsigned char f = fold(c);
        if (byte_class_[f] == 0) byte_class_[f] = static_cast<std::uint8_t>(classes_++);
      }
  for (int c = 'A'; c <= 'Z'; ++c) byte_class_[c] = byte_class_[c + ('a' - 'A')];

  for (int c = 0; c < 256; ++c) fold_[c] = fold(static_cast<unsigned char>(c));
  for (const auto& set : sets)
    for (const auto& lit : set) {
      if (lit.empty()) continue;
      if (lit.size() == 1) {
        has_short_ = true;
        continue;
      }
      const unsigned pair = fold(static_cast<unsigned char>(lit[0])) << 8 |
                            fold(static_cast<unsigned char>(lit[1]));
      start_pairs_[pair >> 6] |= std::uint64_t{1} << (pair & 63);
    }

  // Trie, as one flat table (state * classes_ + class): start-up time matters for a paste, and
  // one vector per state cost thousands of allocations.
  // It becomes delta_ in place at the end (one table, not two: page faults dominate here).
  const std::uint32_t k_classes = classes_;
  constexpr std::uint32_t kNone = 0xffffffffu;
  std::size_t max_states = 1;  // one per literal byte at most
  for (const auto& set : sets)
    for (const auto& lit : set) max_states += lit.size();
  std::vector<std::uint32_t> go;
  go.reserve(max_states * k_classes);
  go.assign(k_classes, kNone);
  std::vector<std::vector<std::uint32_t>> out(1);
  out.reserve(max_states);
  auto add_state = [&] {
    go.resize(go.size() + k_classes, kNone);
    out.emplace_back();
    return static_cast<std::uint32_t>(out.size() - 1);
  };
  for (std::uint32_t owner = 0; owner < sets.size(); ++owner) {
    for (const auto& lit : sets[owner]) {
      if (lit.empty()) continue;
      std::uint32_t s = 0;
      for (unsigned char c : lit) {
        const std::uint8_t k = byte_class_[fold(c)];
        if (go[s * k_classes + k] == kNone) {
          const std::uint32_t t = add_state();
          go[s * k_classes + k] = t;
        }
        s = go[s * k_classes + k];
      }
      out[s].push_back(owner);
    }
  }
  const std::size_t states = out.size();

  // Failure links by BFS, completing the transition function (a DFA) and merging outputs.
  std::vector<std::uint32_t> fail(states, 0);
  std::vector<std::uint32_t> queue;
  queue.reserve(states);
  for (std::uint32_t k = 0; k < k_classes; ++k) {
    if (go[k] == kNone) {
      go[k] = 0;
    } else {
      fail[go[k]] = 0;
      queue.push_back(go[k]);
    }
  }
  // Class 0 (bytes in no literal) always returns to the root.
  for (std::size_t head = 0; head < queue.size(); ++head) {
    const std::uint32_t s = queue[head];
    auto& merged = out[s];
    const auto& inherited = out[fail[s]];
    if (!inherited.empty()) {
      merged.insert(merged.end(), inherited.begin(), inherited.end());
      std::sort(merged.begin(), merged.end());
      merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
    }
    for (std::uint32_t k = 0; k < k_classes; ++k) {
      const std::uint32_t t = go[s * k_classes + k];
      if (t == kNone) {
        go[s * k_classes + k] = go[fail[s] * k_classes + k];
      } else {
        fail[t] = go[fail[s] * k_classes + k];
        queue.push_back(t);
      }
    }
  }

  state_count_ = states;
  owner_begin_.assign(state_count_ + 1, 0);
  for (std::size_t s = 0; s < state_count_; ++s) {
    owner_begin_[s + 1] = owner_begin_[s] + static_cast<std::uint32_t>(out[s].size());
    owners_.insert(owners_.end(), out[s].begin(), out[s].end());
  }
  for (auto& t : go) t = t * k_classes | (out[t].empty() ? 0u : kOutput);
  delta_ = std::move(go);
}

std::size_t LiteralIndex::scan(std::string_view text, std::size_t pos,
                              std::uint32_t& state) const {
  const std::uint32_t* delta = delta_.data();
  const std::uint8_t* cls = byte_class_.data();
  const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  std::uint32_t s = 0;
  std::size_t i = pos;
  while (i < n) {
    if (s == 0 && !has_short_) {
      // Root: skip positions whose byte pair starts no literal (a match needs two bytes here).
      while (i + 1 < n) {
        const unsigned pair = fold_[bytes[i]] << 8 | fold_[bytes[i + 1]];
        if (start_pairs_[pair >> 6] >> (pair & 63) & 1) break;
        ++i;
      }
      if (i + 1 >= n) return std::string_view::npos;
    }
    s = delta[s + cls[bytes[i]]];
    ++i;
    if (s & kOutput) {
      state = s;
      return i;
    }
  }
  return std::string_view::npos;
}

std::size_t LiteralIndex::next_hit(std::string_view text, std::size_t pos) const {
  std::uint32_t state = 0;
  return scan(text, pos, state);
}

bool LiteralIndex::any(std::string_view text) const {
  std::uint32_t state = 0;
  return scan(text, 0, state) != std::string_view::npos;
}

void LiteralIndex::owners(std::string_view text, std::vector<std::uint32_t>& out) const {
  const std::uint32_t* delta = delta_.data();
  const std::uint8_t* cls = byte_class_.data();
  const std::size_t first = out.size();
  std::uint32_t s = 0;
  const std::size_t start = scan(text, 0, s);
  if (start == std::string_view::npos) return;
  // From the first hit on, walk every byte: hits are rare, and overlapping literals must all be
  // reported.
  auto emit = [&](std::uint32_t flagged) {
    const std::uint32_t state = (flagged & ~kOutput) / classes_;
    out.insert(out.end(), owners_.begin() + owner_begin_[state],
               owners_.begin() + owner_begin_[state + 1]);
  };
  emit(s);
  s &= ~kOutput;
  for (std::size_t i = start; i < text.size(); ++i) {
    s = delta[s + cls[static_cast<unsigned char>(text[i])]];
    if (s & kOutput) {
      emit(s);
      s &= ~kOutput;
    }
  }
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
  out.erase(std::unique(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()), out.end());
}

}  // namespace culprit::text
