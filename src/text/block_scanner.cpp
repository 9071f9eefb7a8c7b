// BlockScanner: the prefilter's Aho–Corasick automaton resumed at each line after a hit, and,
// where the build found libhs, Hyperscan's literal matcher (FDR / Teddy: SIMD over the block),
// deserialised from the build's prebuilt table or compiled once a run scans enough to repay it.
// Both see the literals as the per-line prefilter does (as given, ASCII case folded).
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

/// A list a scanner can take: not empty, no empty literal (it is in every line), none holding a
/// line terminator (a hit could span two lines).
bool usable_list(const std::vector<std::string>& literals) {
  return !literals.empty() && std::none_of(literals.begin(), literals.end(), [](const std::string& lit) {
           return lit.empty() || std::any_of(lit.begin(), lit.end(), [](char c) { return c == '\r' || c == '\n'; });
         });
}

/// The prebuilt table install_prebuilt() named (static storage: the build's generated table),
/// read when a scanner is built.
struct PrebuiltTable {
  std::mutex mutex;
  const PrebuiltDatabase* entries = nullptr;
  std::size_t count = 0;
};
PrebuiltTable& prebuilt_table() {
  static PrebuiltTable table;
  return table;
}

}  // namespace

struct BlockScanner::Impl {
  std::unique_ptr<LiteralIndex> index;  ///< Engine::automaton's (and where Hyperscan fails)
#ifdef CULPRIT_HAVE_HYPERSCAN
  std::vector<std::string> literals;  ///< for the lazy compile
  std::vector<std::uint32_t> ids;     ///< one per literal, or empty: all 0
  std::atomic<std::size_t> scanned{0};
  std::once_flag compile_once;
  std::atomic<bool> ready{false};
  hs_database_t* db = nullptr;
  void compile();
  bool load_prebuilt();
  ~Impl() {
    if (db) hs_free_database(db);
  }
#endif
};

#ifdef CULPRIT_HAVE_HYPERSCAN
namespace {

/// `literals` compiled as one caseless literal database, each reporting its id of
/// `literal_ids` (all 0 when empty); null when Hyperscan refuses them. `platform` null: tuned
/// for this machine; else as given.
hs_database_t* compile_literals(const std::vector<std::string>& literals, const std::vector<std::uint32_t>& literal_ids,
                                const hs_platform_info_t* platform) {
  std::vector<const char*> exprs;
  std::vector<std::size_t> lens;
  std::vector<unsigned> flags(literals.size(), HS_FLAG_CASELESS), ids(literals.size(), 0);
  if (literal_ids.size() == literals.size()) ids.assign(literal_ids.begin(), literal_ids.end());
  for (const auto& t : literals) {
    exprs.push_back(t.data());
    lens.push_back(t.size());
  }
  hs_database_t* db = nullptr;
  hs_compile_error_t* error = nullptr;
  if (hs_compile_lit_multi(exprs.data(), flags.data(), ids.data(), lens.data(), static_cast<unsigned>(exprs.size()),
                           HS_MODE_BLOCK, platform, &db, &error) != HS_SUCCESS) {
    if (error) hs_free_compile_error(error);
    return nullptr;
  }
  return db;
}

/// Each thread's scratch space, grown by hs_alloc_scratch to fit every database it scans with
/// (a scan never runs inside another on one thread), instead of a clone allocated per block.
struct ThreadScratch {
  hs_scratch_t* scratch = nullptr;
  std::vector<const hs_database_t*> fitted;  ///< the databases it was grown for
  ~ThreadScratch() {
    if (scratch) hs_free_scratch(scratch);
  }
};

/// hs_scan with this thread's scratch, fitted to each database once: hs_alloc_scratch costs
/// ~100 k instructions a call (measured: a fifth of a paste's run when asked per line), more than
/// scanning a line. Refitted where Hyperscan refuses it (a database freed and another made at its
/// address); the refusal comes before any match is reported.
hs_error_t scan(const hs_database_t* db, std::string_view data, match_event_handler on_match, void* context) {
  thread_local ThreadScratch mine;
  const bool fitted = std::find(mine.fitted.begin(), mine.fitted.end(), db) != mine.fitted.end();
  if (!fitted) {
    if (hs_alloc_scratch(db, &mine.scratch) != HS_SUCCESS) return HS_NOMEM;
    // A long-lived process that loads rules again and again (the Python module) makes new
    // databases each time: the list forgets the old ones rather than grow without end.
    if (mine.fitted.size() >= 64) mine.fitted.clear();
    mine.fitted.push_back(db);
  }
  const auto length = static_cast<unsigned>(data.size());
  hs_error_t rc = hs_scan(db, data.data(), length, 0, mine.scratch, on_match, context);
  if (rc == HS_INVALID && fitted) {
    if (hs_alloc_scratch(db, &mine.scratch) != HS_SUCCESS) return HS_NOMEM;
    rc = hs_scan(db, data.data(), length, 0, mine.scratch, on_match, context);
  }
  return rc;
}

/// One Hyperscan pass of `db` over `block`: per line holding a hit, appended in order, the end of
/// its first hit and the OR of its hits' ids (hit_lines and hit_line_ids both read these). False
/// (nothing appended) where the scan fails.
bool line_ids(const hs_database_t* db, std::string_view block, bool has_cr, std::vector<BlockScanner::LineIds>& out,
              std::vector<BlockScanner::Hit>* hits = nullptr, std::size_t max_hits = 0) {
  using LineIds = BlockScanner::LineIds;
  struct Context {
    std::string_view block;
    bool has_cr;
    std::vector<LineIds>* out;
    std::size_t first;     ///< out's size before this block
    std::size_t line_end;  ///< end of the line of the last entry
    std::vector<BlockScanner::Hit>* hits;  ///< every hit, while they are at most max_hits; else null
    std::size_t max_hits;
  } context{block, has_cr, &out, out.size(), 0, hits, max_hits};
  // Hits come in order of their end (the fallback below sorts should they not): a hit in the
  // line of the last entry adds its id there, any other starts the next entry, and the line's
  // end is found once, from its first hit.
  auto on_match = [](unsigned id, unsigned long long, unsigned long long to, unsigned, void* p) -> int {
    auto& c = *static_cast<Context*>(p);
    const auto end = static_cast<std::size_t>(to);
    if (c.hits) {
      if (c.hits->size() < c.max_hits) {
        c.hits->push_back({static_cast<std::uint32_t>(to), id});
      } else {  // past the bound: none kept, and their memory given back
        std::vector<BlockScanner::Hit>().swap(*c.hits);
        c.hits = nullptr;
      }
    }
    if (c.out->size() > c.first && end >= c.out->back().end && end <= c.line_end) {
      c.out->back().ids |= id;
      return 0;
    }
    c.out->push_back({end, id});
    c.line_end = line_end(c.block, end, c.has_cr);
    return 0;
  };
  if (scan(db, block, on_match, &context) != HS_SUCCESS) {
    out.resize(context.first);
    if (hits) hits->clear();
    return false;
  }
  const auto hit_by_end = [](const BlockScanner::Hit& a, const BlockScanner::Hit& b) { return a.end < b.end; };
  if (context.hits && !std::is_sorted(hits->begin(), hits->end(), hit_by_end))
    std::stable_sort(hits->begin(), hits->end(), hit_by_end);
  const auto begin = out.begin() + static_cast<std::ptrdiff_t>(context.first);
  const auto by_end = [](const LineIds& a, const LineIds& b) { return a.end < b.end; };
  if (!std::is_sorted(begin, out.end(), by_end)) {
    std::vector<LineIds> hits(begin, out.end());
    std::sort(hits.begin(), hits.end(), by_end);
    out.resize(context.first);
    std::size_t last_end = 0;
    for (const LineIds& h : hits) {
      if (out.size() > context.first && h.end <= last_end) {
        out.back().ids |= h.ids;
        continue;
      }
      out.push_back(h);
      last_end = line_end(block, h.end, has_cr);
    }
  }
  return true;
}

}  // namespace

void BlockScanner::Impl::compile() {
  if (!db) db = compile_literals(literals, ids, nullptr);  // null: the automaton answers instead
  if (db) ready.store(true, std::memory_order_release);
}

bool BlockScanner::Impl::load_prebuilt() {
  PrebuiltTable& table = prebuilt_table();
  std::lock_guard<std::mutex> lock(table.mutex);
  if (table.count == 0) return false;
  const std::string key = BlockScanner::key(literals, ids);
  for (std::size_t i = 0; i < table.count; ++i) {
    const PrebuiltDatabase& entry = table.entries[i];
    if (entry.literals != key) continue;
    // A database from another Hyperscan version or platform is refused: compiled here instead.
    return hs_deserialize_database(entry.database.data(), entry.database.size(), &db) == HS_SUCCESS;
  }
  return false;
}
#endif

std::string BlockScanner::key(const std::vector<std::string>& literals, const std::vector<std::uint32_t>& ids) {
  std::string key;
  for (std::size_t i = 0; i < literals.size(); ++i) {
    key.append(literals[i]);
    if (i < ids.size()) key.append("\t").append(std::to_string(ids[i]));
    key.push_back('\n');
  }
  return key;
}

std::string BlockScanner::serialize(const std::vector<std::string>& literals, const std::vector<std::uint32_t>& ids) {
#ifdef CULPRIT_HAVE_HYPERSCAN
  if (!usable_list(literals)) return {};
  // The baseline platform (no AVX2 / AVX-512 assumed), so the binary runs on any x86-64; the
  // scan speed measured the same here (2.2 GB/s either way on ~300 literals).
  hs_platform_info_t baseline{};
  hs_database_t* db = compile_literals(literals, ids, &baseline);
  if (!db) return {};
  char* bytes = nullptr;
  std::size_t length = 0;
  std::string out;
  if (hs_serialize_database(db, &bytes, &length) == HS_SUCCESS) {
    out.assign(bytes, length);
    std::free(bytes);  // hs_serialize_database allocates with the misc allocator: malloc
  }
  hs_free_database(db);
  return out;
#else
  (void)literals;
  (void)ids;
  return {};
#endif
}

void BlockScanner::install_prebuilt(const PrebuiltDatabase* table, std::size_t count) {
  PrebuiltTable& prebuilt = prebuilt_table();
  std::lock_guard<std::mutex> lock(prebuilt.mutex);
  prebuilt.entries = table;
  prebuilt.count = count;
}

BlockScanner::BlockScanner(const std::vector<std::string>& literals, Engine engine, std::size_t compile_after,
                           std::vector<std::uint32_t> ids)
    : impl_(std::make_unique<Impl>()), compile_after_(compile_after) {
  static_cast<void>(ids);  // kept only where Hyperscan reports them
  if (engine == Engine::automatic && forced()) engine = Engine::hyperscan;  // the equivalence test
  usable_ = usable_list(literals);
  if (!usable_) return;
  std::vector<std::string> given = literals;
#ifdef CULPRIT_HAVE_HYPERSCAN
  if (engine != Engine::automaton) {
    impl_->literals = std::move(given);
    if (ids.size() == literals.size()) impl_->ids = std::move(ids);
    if (impl_->load_prebuilt() || engine == Engine::hyperscan)
      std::call_once(impl_->compile_once, [this] { impl_->compile(); });
    if (engine == Engine::automatic || impl_->ready.load(std::memory_order_acquire)) return;
    given = impl_->literals;  // Hyperscan failed: the automaton scans instead
  }
#endif
  // The automaton over a block is no faster than the per-line checks, so `automatic` (without
  // Hyperscan) declines every block rather than build one.
  if (engine != Engine::automatic)
    impl_->index = std::make_unique<LiteralIndex>(std::vector<std::vector<std::string>>{given});
}

bool BlockScanner::ready() const {
  if (!usable_) return false;
  if (impl_->index) return true;
#ifdef CULPRIT_HAVE_HYPERSCAN
  return impl_->ready.load(std::memory_order_acquire);
#else
  return false;
#endif
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
    if (block.size() < kMinBlockBytes) return false;
    if (impl_->scanned.fetch_add(block.size(), std::memory_order_relaxed) + block.size() < compile_after_)
      return false;
    std::call_once(impl_->compile_once, [this] { impl_->compile(); });
  }
#endif
  if (block.empty()) return true;
  const bool has_cr = std::memchr(block.data(), '\r', block.size()) != nullptr;
#ifdef CULPRIT_HAVE_HYPERSCAN
  if (impl_->ready.load(std::memory_order_acquire) && block.size() <= 0xffffffffu) {
    std::vector<LineIds> lines;
    if (line_ids(impl_->db, block, has_cr, lines)) {
      ends.reserve(ends.size() + lines.size());
      for (const LineIds& line : lines) ends.push_back(line.end);
      return true;
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

bool BlockScanner::hit_line_ids(std::string_view block, std::vector<LineIds>& out, const RareBytes& rare,
                                std::vector<Hit>* hits, std::size_t max_hits) const {
  if (hits) hits->clear();
#ifdef CULPRIT_HAVE_HYPERSCAN
  if (!usable_ || !impl_->ready.load(std::memory_order_acquire) || block.size() > 0xffffffffu) return false;
  if (block.empty()) return true;
  return line_ids(impl_->db, block, rare.holds('\r', block), out, hits, max_hits);
#else
  (void)block;
  (void)out;
  (void)rare;
  (void)max_hits;
  return false;
#endif
}

bool BlockScanner::literal_ids(std::string_view line, std::vector<std::uint32_t>& out) const {
#ifdef CULPRIT_HAVE_HYPERSCAN
  if (!usable_ || !impl_->ready.load(std::memory_order_acquire) || line.size() > 0xffffffffu) return false;
  const std::size_t first = out.size();
  auto on_match = [](unsigned id, unsigned long long, unsigned long long, unsigned, void* p) -> int {
    static_cast<std::vector<std::uint32_t>*>(p)->push_back(id);
    return 0;
  };
  if (scan(impl_->db, line, on_match, &out) != HS_SUCCESS) {
    out.resize(first);
    return false;
  }
  const auto begin = out.begin() + static_cast<std::ptrdiff_t>(first);
  std::sort(begin, out.end());
  out.erase(std::unique(begin, out.end()), out.end());
  return true;
#else
  (void)line;
  (void)out;
  return false;
#endif
}

}  // namespace culprit::text
