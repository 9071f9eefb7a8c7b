// Line-level signals compiled for scanning: a literal prefilter, then the regexes of the
// candidates only. The prefilter may pass false candidates but never drops a real match.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/core/event.hpp"
#include "culprit/text/pattern.hpp"

namespace culprit::text {

/// One compiled line rule (from rules/signals/*.toml).
struct Signal {
  std::string id;
  std::string kind;
  core::Severity severity = core::Severity::info;
  std::vector<std::string> formats;   ///< empty: every format
  std::shared_ptr<const Pattern> pattern;
  std::vector<std::string> literals;  ///< required literals (any one must be present); empty: always try
};

struct SignalMatch {
  const Signal* signal = nullptr;
  std::vector<Capture> captures;
};

/// Immutable after build(); match() is thread-safe.
class SignalSet {
 public:
  void add(Signal signal);
  /// Computes prefilter literals for signals that declared none (from the regex's atoms).
  void build();
  /// With the prefilter off every signal's regex runs on every line (the equivalence tests use it).
  void set_prefilter(bool on) { prefilter_ = on; }
  bool prefilter() const { return prefilter_; }

  /// All signals whose pattern matches `line` and that apply to `format`, in rule order.
  std::vector<SignalMatch> match(std::string_view line, std::string_view format) const;
  /// True when some signal could match (cheap literal check only).
  bool candidate(std::string_view line) const;

  const std::vector<Signal>& signals() const { return signals_; }

 private:
  bool applies(const Signal& signal, std::string_view line, std::string_view format) const;
  std::vector<Signal> signals_;
  bool prefilter_ = true;
};

}  // namespace culprit::text
