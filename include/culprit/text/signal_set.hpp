// Line-level signals compiled for scanning: a literal prefilter, then the regexes of the
// candidates only. The prefilter may pass false candidates but never drops a real match.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/core/event.hpp"
#include "culprit/text/pattern.hpp"

namespace culprit::text {

/// The scope of a Python traceback's body (its frame lines and the source lines it quotes):
/// quoted code, not messages, so only a signal that names this scope in `formats` matches there
/// (a frame of the job's first CUDA use); a signal with no `formats` does not.
inline constexpr std::string_view kTracebackFrameScope = "traceback_frame";

/// One compiled line rule (from rules/signals/*.toml).
struct Signal {
  std::string id;
  std::string kind;
  core::Severity severity = core::Severity::info;
  std::vector<std::string> formats;   ///< empty: every format but kTracebackFrameScope
  std::shared_ptr<const Pattern> pattern;
  /// Required literals: a line must contain one of them (compared ASCII-case-insensitively) for
  /// the pattern to be tried. Declared by the rule (looked for as written, spaces included), or
  /// filled by build() from the regex, spaces the regex requires included; empty after build():
  /// no safe literal is known and the signal is tried on every line.
  std::vector<std::string> literals;
  /// Fields every event of this signal carries whatever the line (`provides`, `framework`,
  /// `killer`: what the rule declares, core/facts.hpp), beside the pattern's named groups.
  std::vector<std::pair<std::string, std::string>> fields;
  /// Further sets of which a matching line holds one each (text::derive_prefilter), filled with
  /// the derived literals: a candidate line that misses one skips the regex.
  std::vector<std::vector<std::string>> clauses;
  bool literals_derived = false;  ///< set by build() when `literals` came from the regex
  /// `literals` and `clauses` are what derive_prefilter gives for this regex, computed ahead (at
  /// build time for the built-in rules): build() keeps them as they are, even empty.
  bool literals_precomputed = false;
};

struct SignalMatch {
  const Signal* signal = nullptr;
  std::vector<Capture> captures;
};

/// Immutable after build(); match() is thread-safe.
class LiteralIndex;
class BlockScanner;
struct LiteralList;

/// Usage: add() every signal, build() once, then match() lines from any number of threads.
///   SignalSet set; set.add(std::move(signal)); set.build();
///   for (auto& m : set.match(line, "dmesg")) use(m.signal->kind, m.captures);
class SignalSet {
 public:
  SignalSet();
  ~SignalSet();
  SignalSet(const SignalSet&);
  SignalSet& operator=(const SignalSet&);
  SignalSet(SignalSet&&) noexcept;
  SignalSet& operator=(SignalSet&&) noexcept;

  void add(Signal signal);
  /// Computes prefilter literals for signals that declared none (from the regex's atoms) and
  /// builds the literal index. Until build() runs, match() tries every regex.
  void build();
  /// With the prefilter off every signal's regex runs on every line (the equivalence tests use it).
  void set_prefilter(bool on) { prefilter_ = on; }
  bool prefilter() const { return prefilter_; }

  /// All signals whose pattern matches `line` and that apply to `format`, in rule order.
  std::vector<SignalMatch> match(std::string_view line, std::string_view format) const;
  /// match() with the line's candidates given: the signals whose literals `line` holds (sorted,
  /// unique; a block pass's hits tell them: ingest::candidates_from_pass), where match() finds
  /// them in a scan of the line.
  std::vector<SignalMatch> match(std::string_view line, std::string_view format,
                                 const std::vector<std::uint32_t>& candidates) const;
  /// Per literal of a block scanner's list, by its index: its length and the signals (indices,
  /// sorted) one of whose literals it is, as build() left them (Signal::literals, compared as
  /// given): what a hit of that literal tells of a line's candidates.
  struct LiteralOwner {
    std::uint32_t bytes = 0;
    std::vector<std::uint32_t> signals;
  };
  using LiteralOwners = std::vector<LiteralOwner>;
  /// The owners of the literals of the list block_scanner(key, …) was built from: made on the
  /// first call and kept with that scanner. Null where there is no such scanner.
  std::shared_ptr<const LiteralOwners> literal_owners(const void* key) const;
  /// True when some signal could match (cheap literal check only).
  bool candidate(std::string_view line) const;

  /// A scanner for one pass over a whole block that finds the lines where candidate() — or a
  /// literal of `extra` (a parser's own markers, compared as given: a hand-written list comes
  /// through hand_written_literals) — says yes: every signal literal and `extra`.
  /// Built on the first call (a short paste never pays for it) and kept for the set's life, one
  /// per `extra` vector (by its address: pass a static); see BlockScanner for when it declines a
  /// block (BlockScanner::forced() makes it scan every one). Null when the prefilter is off, a
  /// signal has no literals (every line is a candidate) or before build().
  std::shared_ptr<const BlockScanner> block_scanner(const std::vector<std::string>& extra) const;
  /// The same for a list a caller builds (`make`, called once; its ids as given), kept by `key`
  /// (the address of a static of the caller's): null where block_scanner() is.
  std::shared_ptr<const BlockScanner> block_scanner(const void* key, const std::function<LiteralList()>& make) const;
  /// The literals block_scanner(extra) scans for: `extra`, then every signal's (after build()).
  std::vector<std::string> block_literals(const std::vector<std::string>& extra) const;
  /// Every usable literal of every signal, each with its signal's index: the list match() finds
  /// a line's candidate signals with (after build()).
  LiteralList candidate_literals() const;

  const std::vector<Signal>& signals() const { return signals_; }
  /// Indices of signals without usable literals (tried on every line); valid after build().
  const std::vector<std::uint32_t>& always_tried() const { return always_; }

 private:
  bool applies(const Signal& signal, std::string_view line, std::string_view format) const;
  void try_signal(std::uint32_t index, std::string_view line, std::string_view format,
                  std::vector<SignalMatch>& out) const;
  /// Tries the `candidates` (sorted) and the always-tried signals, in rule order.
  void try_candidates(const std::vector<std::uint32_t>& candidates, std::string_view line, std::string_view format,
                      std::vector<SignalMatch>& out) const;
  std::vector<Signal> signals_;
  bool prefilter_ = true;
  struct Candidates;
  std::shared_ptr<Candidates> candidates_;  ///< null until build()
  std::vector<std::uint32_t> always_;          ///< sorted
  struct BlockCache;
  std::shared_ptr<BlockCache> block_cache_;  ///< block_scanner()'s, made by build()
};

}  // namespace culprit::text
