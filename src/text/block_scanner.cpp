// BlockScanner: the prefilter's Aho–Corasick automaton resumed at each line after a hit, and,
// where the build found libhs and a run scans enough to repay its compile, Hyperscan's literal
// matcher (FDR / Teddy: SIMD over the block). Both see the literals as the per-line prefilter
// does (trimmed, ASCII case folded).
#include "culprit/text/block_scanner.hpp"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "literal_index.hpp"

#ifdef CULPRIT_HAVE_HYPERSCAN
#include <hs/hs.h>
#endif

namespace culprit::text {
namespace {

/// The first line terminator (\n or \r) at or after `pos`, or the block's size.
std::size_t line_end(std::string_view block, std::size_t pos, bool has_cr) {
  if (pos >= block.size()) return block.size();
  const void* nl = std::memchr(block.data() + pos, '\n', block.size() - pos);
  std::size_t end = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - block.data()) : block.size();
  if (has_cr) {
    const void* cr = std::memchr(block.data() + pos, '\r', end - pos);
    if (cr) end = static_cast<std::size_t>(static_cast<const char*>(cr) - block.data());
  }
  return end;
}

}  // namespace

// Compiling the Hyperscan database for the ~300 signal literals takes ~50 ms; it saves ~1.5 ms
// per MB scanned (measured on the bench corpus), so an `automatic` scanner declines blocks (the
// caller's per-line checks run) until compile_after_ bytes were offered to it (by default
// kCompileAfterBytes, 64 MiB), then compiles once and scans.

struct BlockScanner::Impl {
  std::unique_ptr<LiteralIndex> index;  ///< Engine::automaton's (and where Hyperscan fails)
#ifdef CULPRIT_HAVE_HYPERSCAN
  std::vector<std::string> literals;  ///< trimmed, for the lazy compile
  std::atomic<std::size_t> scanned{0};
  std::once_flag compile_once;
  std::atomic<bool> ready{false};
  hs_database_t* db = nullptr;
  hs_scratch_t* scratch = nullptr;  ///< the prototype each scan clones (scans run on many threads)
  void compile();
  ~Impl() {
    if (scratch) hs_free_scratch(scratch);
    if (db) hs_free_database(db);
  }
#endif
};

#ifdef CULPRIT_HAVE_HYPERSCAN
void BlockScanner::Impl::compile() {
  std::vector<const char*> exprs;
  std::vector<std::size_t> lens;
  std::vector<unsigned> flags(literals.size(), HS_FLAG_CASELESS), ids(literals.size(), 0);
  for (const auto& t : literals) {
    exprs.push_back(t.data());
    lens.push_back(t.size());
  }
  hs_compile_error_t* error = nullptr;
  if (hs_compile_lit_multi(exprs.data(), flags.data(), ids.data(), lens.data(), static_cast<unsigned>(exprs.size()),
                           HS_MODE_BLOCK, nullptr, &db, &error) != HS_SUCCESS) {
    if (error) hs_free_compile_error(error);
    db = nullptr;  // the automaton answers instead
    return;
  }
  if (hs_alloc_scratch(db, &scratch) != HS_SUCCESS) {
    hs_free_database(db);
    db = nullptr;
    scratch = nullptr;
    return;
  }
  ready.store(true, std::memory_order_release);
}
#endif

BlockScanner::BlockScanner(const std::vector<std::string>& literals, Engine engine, std::size_t compile_after)
    : impl_(std::make_unique<Impl>()), compile_after_(compile_after) {
  std::vector<std::string> trimmed;
  trimmed.reserve(literals.size());
  usable_ = !literals.empty();
  for (const auto& lit : literals) {
    if (lit.empty() || lit.find_first_of("\r\n") != std::string::npos) usable_ = false;
    trimmed.push_back(prefilter_literal(lit));
  }
  if (!usable_) return;
#ifdef CULPRIT_HAVE_HYPERSCAN
  if (engine != Engine::automaton) {
    impl_->literals = std::move(trimmed);
    if (engine == Engine::hyperscan) std::call_once(impl_->compile_once, [this] { impl_->compile(); });
    if (engine == Engine::automatic || impl_->ready.load(std::memory_order_acquire)) return;
    trimmed = impl_->literals;  // Hyperscan failed: the automaton scans instead
  }
#endif
  // The automaton over a block is no faster than the per-line checks, so `automatic` (without
  // Hyperscan) declines every block rather than build one.
  if (engine != Engine::automatic)
    impl_->index = std::make_unique<LiteralIndex>(std::vector<std::vector<std::string>>{trimmed});
}

BlockScanner::~BlockScanner() = default;

bool BlockScanner::forced() {
  static const bool value = [] {
    const char* v = std::getenv("CULPRIT_BLOCK_SCAN");
    return v != nullptr && std::string_view(v) == "always";
  }();
  return value;
}

std::string_view BlockScanner::engine() {
#ifdef CULPRIT_HAVE_HYPERSCAN
  return "hyperscan";
#else
  return "aho-corasick";
#endif
}

bool BlockScanner::hit_lines(std::string_view block, std::vector<std::size_t>& ends) const {
  if (!usable_) return false;
#ifdef CULPRIT_HAVE_HYPERSCAN
  if (!impl_->index && !impl_->ready.load(std::memory_order_acquire)) {
    if (impl_->scanned.fetch_add(block.size(), std::memory_order_relaxed) + block.size() < compile_after_)
      return false;
    std::call_once(impl_->compile_once, [this] { impl_->compile(); });
  }
#endif
  if (block.empty()) return true;
  const bool has_cr = std::memchr(block.data(), '\r', block.size()) != nullptr;
#ifdef CULPRIT_HAVE_HYPERSCAN
  // Hyperscan reports hits in order of their end; the first in a line is kept and the rest of
  // that line's are passed over (the line's end is found once, from the hit).
  if (impl_->ready.load(std::memory_order_acquire) && block.size() <= 0xffffffffu) {
    hs_scratch_t* scratch = nullptr;
    if (hs_clone_scratch(impl_->scratch, &scratch) == HS_SUCCESS) {
      struct Context {
        std::string_view block;
        bool has_cr;
        std::vector<std::size_t>* ends;
        std::size_t line_end;  ///< end of the line of the last kept hit
        bool any;
      } context{block, has_cr, &ends, 0, false};
      const std::size_t first = ends.size();
      auto on_match = [](unsigned, unsigned long long, unsigned long long to, unsigned, void* p) -> int {
        auto& c = *static_cast<Context*>(p);
        const auto end = static_cast<std::size_t>(to);
        if (c.any && end <= c.line_end) return 0;
        c.ends->push_back(end);
        c.line_end = line_end(c.block, end, c.has_cr);
        c.any = true;
        return 0;
      };
      const hs_error_t rc =
          hs_scan(impl_->db, block.data(), static_cast<unsigned>(block.size()), 0, scratch, on_match, &context);
      hs_free_scratch(scratch);
      if (rc == HS_SUCCESS) {
        // Literal databases report in order of end; should one not, order and thin them here.
        if (!std::is_sorted(ends.begin() + static_cast<std::ptrdiff_t>(first), ends.end())) {
          std::vector<std::size_t> hits(ends.begin() + static_cast<std::ptrdiff_t>(first), ends.end());
          std::sort(hits.begin(), hits.end());
          ends.resize(first);
          std::size_t last_end = 0;
          for (const std::size_t h : hits) {
            if (ends.size() > first && h <= last_end) continue;
            ends.push_back(h);
            last_end = line_end(block, h, has_cr);
          }
        }
        return true;
      }
      ends.resize(first);
    }
  }
#endif
  if (!impl_->index) return false;  // Hyperscan failed on this block, and no automaton was built
  for (std::size_t pos = 0; pos < block.size();) {
    const std::size_t end = impl_->index->next_hit(block, pos);
    if (end == std::string_view::npos) break;
    ends.push_back(end);
    pos = line_end(block, end, has_cr) + 1;
  }
  return true;
}

}  // namespace culprit::text
