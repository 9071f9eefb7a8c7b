// Aho–Corasick over byte classes (bytes of no literal share class 0, letters fold to one class),
// built once per rule set; the hot loop is one table load per byte of the line.
#include "literal_index.hpp"

#include <algorithm>
#include <deque>

namespace culprit::text {

namespace {

unsigned char fold(unsigned char c) { return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c; }

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

  // Trie.
  std::vector<std::vector<std::int32_t>> go(1, std::vector<std::int32_t>(classes_, -1));
  std::vector<std::vector<std::uint32_t>> out(1);
  for (std::uint32_t owner = 0; owner < sets.size(); ++owner) {
    for (const auto& lit : sets[owner]) {
      if (lit.empty()) continue;
      std::int32_t s = 0;
      for (unsigned char c : lit) {
        const std::uint8_t k = byte_class_[fold(c)];
        if (go[s][k] < 0) {
          go[s][k] = static_cast<std::int32_t>(go.size());
          go.emplace_back(classes_, -1);
          out.emplace_back();
        }
        s = go[s][k];
      }
      out[s].push_back(owner);
    }
  }

  // Failure links by BFS, completing the transition function (a DFA) and merging outputs.
  std::vector<std::int32_t> fail(go.size(), 0);
  std::deque<std::int32_t> queue;
  for (std::uint32_t k = 0; k < classes_; ++k) {
    if (go[0][k] < 0) {
      go[0][k] = 0;
    } else {
      fail[go[0][k]] = 0;
      queue.push_back(go[0][k]);
    }
  }
  // Class 0 (bytes in no literal) always returns to the root.
  while (!queue.empty()) {
    const std::int32_t s = queue.front();
    queue.pop_front();
    auto& merged = out[s];
    const auto& inherited = out[fail[s]];
    merged.insert(merged.end(), inherited.begin(), inherited.end());
    std::sort(merged.begin(), merged.end());
    merged.erase(std::unique(merged.begin(), merged.end()), merged.end());
    for (std::uint32_t k = 0; k < classes_; ++k) {
      const std::int32_t t = go[s][k];
      if (t < 0) {
        go[s][k] = go[fail[s]][k];
      } else {
        fail[t] = go[fail[s]][k];
        queue.push_back(t);
      }
    }
  }

  state_count_ = go.size();
  delta_.resize(state_count_ * classes_);
  owner_begin_.assign(state_count_ + 1, 0);
  for (std::size_t s = 0; s < state_count_; ++s) {
    owner_begin_[s + 1] = owner_begin_[s] + static_cast<std::uint32_t>(out[s].size());
    owners_.insert(owners_.end(), out[s].begin(), out[s].end());
    for (std::uint32_t k = 0; k < classes_; ++k) {
      const auto t = static_cast<std::uint32_t>(go[s][k]);
      delta_[s * classes_ + k] = t * classes_ | (out[t].empty() ? 0u : kOutput);
    }
  }
}

bool LiteralIndex::any(std::string_view text) const {
  const std::uint32_t* delta = delta_.data();
  const std::uint8_t* cls = byte_class_.data();
  std::uint32_t s = 0;
  for (unsigned char c : text) {
    s = delta[s + cls[c]];
    if (s & kOutput) return true;
  }
  return false;
}

void LiteralIndex::owners(std::string_view text, std::vector<std::uint32_t>& out) const {
  const std::uint32_t* delta = delta_.data();
  const std::uint8_t* cls = byte_class_.data();
  const std::size_t first = out.size();
  std::uint32_t s = 0;
  bool hit = false;
  for (unsigned char c : text) {
    s = delta[s + cls[c]];
    if (s & kOutput) {
      s &= ~kOutput;
      const std::uint32_t state = s / classes_;
      out.insert(out.end(), owners_.begin() + owner_begin_[state],
                 owners_.begin() + owner_begin_[state + 1]);
      hit = true;
    }
  }
  if (hit) {
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
    out.erase(std::unique(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()), out.end());
  }
}

}  // namespace culprit::text
