// The compact form: a magic line, then counted records of varints (unsigned LEB128; signed
// values zigzag-coded) and length-prefixed strings, in the order encode_load_result writes
// them. The one writer and the one reader sit side by side here so that they cannot drift
// apart; tests/unit/rules/test_compact.cpp checks the round trip and the built-in blob against
// the TOML path.
#include "compact.hpp"

#include <cstdint>
#include <memory>
#include <utility>

#include "culprit/text/pattern.hpp"

namespace culprit::rules::detail {

namespace {

/// Bumped whenever the layout below changes (the blob is regenerated with the binary anyway).
constexpr std::string_view kMagic = "culprit-rules-compact/1\n";

class Writer {
 public:
  void u(std::uint64_t v) {
    while (v >= 0x80) {
      out_.push_back(static_cast<char>((v & 0x7f) | 0x80));
      v >>= 7;
    }
    out_.push_back(static_cast<char>(v));
  }
  /// Zigzag: 0, -1, 1, -2 … as 0, 1, 2, 3 …, so a small negative value stays one byte.
  void i(std::int64_t v) { u((static_cast<std::uint64_t>(v) << 1) ^ (v < 0 ? ~std::uint64_t{0} : 0)); }
  void s(std::string_view v) {
    u(v.size());
    out_.append(v);
  }
  void strings(const std::vector<std::string>& v) {
    u(v.size());
    for (const auto& x : v) s(x);
  }
  void raw(std::string_view v) { out_.append(v); }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

/// Reads what Writer wrote; any short or malformed field clears ok() and yields zeros / empties.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : in_(bytes) {}
  bool ok() const { return ok_; }
  bool at_end() const { return pos_ == in_.size(); }

  std::uint64_t u() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= in_.size()) return fail();
      const auto byte = static_cast<unsigned char>(in_[pos_++]);
      v |= std::uint64_t{byte & 0x7fu} << shift;
      if ((byte & 0x80u) == 0) return v;
    }
    return fail();
  }
  std::int64_t i() {
    const std::uint64_t z = u();
    return static_cast<std::int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  int small_int() {
    const std::int64_t v = i();
    if (v < INT32_MIN || v > INT32_MAX) return static_cast<int>(fail());
    return static_cast<int>(v);
  }
  /// An enumerator index no greater than `max`.
  std::uint64_t index(std::uint64_t max) {
    const std::uint64_t v = u();
    return v <= max ? v : fail();
  }
  bool flag() { return index(1) == 1; }
  /// A count of records, each at least one byte long: never more than the bytes left.
  std::size_t count() {
    const std::uint64_t n = u();
    return n <= in_.size() - pos_ ? static_cast<std::size_t>(n) : static_cast<std::size_t>(fail());
  }
  std::string s() {
    const std::size_t n = count();
    if (!ok_) return {};
    std::string v(in_.substr(pos_, n));
    pos_ += n;
    return v;
  }
  std::vector<std::string> strings() {
    std::vector<std::string> v(count());
    for (auto& x : v) x = s();
    return v;
  }
  bool expect(std::string_view literal) {
    if (in_.substr(pos_, literal.size()) != literal) return fail() != 0;
    pos_ += literal.size();
    return true;
  }

 private:
  std::uint64_t fail() {
    ok_ = false;
    pos_ = in_.size();
    return 0;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
  bool ok_ = true;
};

void put(Writer& w, const core::Diagnostic& d) {
  w.u(static_cast<std::uint64_t>(d.level));
  w.s(d.code);
  w.s(d.where);
  w.s(d.message);
}

core::Diagnostic get_diagnostic(Reader& r) {
  core::Diagnostic d;
  d.level = static_cast<core::DiagLevel>(r.index(static_cast<std::uint64_t>(core::DiagLevel::error)));
  d.code = r.s();
  d.where = r.s();
  d.message = r.s();
  return d;
}

core::Severity get_severity(Reader& r) {
  return static_cast<core::Severity>(r.index(static_cast<std::uint64_t>(core::Severity::critical)));
}

void put(Writer& w, const SignalRule& rule) {
  w.s(rule.id);
  w.s(rule.kind);
  w.s(rule.description);
  w.u(static_cast<std::uint64_t>(rule.severity));
  w.s(rule.pattern);
  w.strings(rule.formats);
  w.strings(rule.literals);
  w.u(rule.samples.size());
  for (const auto& sample : rule.samples) {
    w.s(sample.line);
    w.u(sample.should_match ? 1 : 0);
    w.u(sample.fields.size());
    for (const auto& [name, value] : sample.fields) {
      w.s(name);
      w.s(value);
    }
  }
  w.s(rule.file);
  w.i(rule.line);
  w.i(rule.column);
}

SignalRule get_signal_rule(Reader& r) {
  SignalRule rule;
  rule.id = r.s();
  rule.kind = r.s();
  rule.description = r.s();
  rule.severity = get_severity(r);
  rule.pattern = r.s();
  rule.formats = r.strings();
  rule.literals = r.strings();
  rule.samples.resize(r.count());
  for (auto& sample : rule.samples) {
    sample.line = r.s();
    sample.should_match = r.flag();
    const std::size_t fields = r.count();
    for (std::size_t k = 0; k < fields && r.ok(); ++k) {
      std::string name = r.s();
      sample.fields[std::move(name)] = r.s();
    }
  }
  rule.file = r.s();
  rule.line = r.small_int();
  rule.column = r.small_int();
  return rule;
}

void put(Writer& w, const DiagnosisRule& rule) {
  w.s(rule.id);
  w.s(rule.verdict);
  w.s(rule.title);
  w.s(rule.query);
  w.s(rule.message);
  w.s(rule.advice);
  w.i(rule.priority);
  w.s(rule.ledger);
  w.strings(rule.fixtures_fire);
  w.strings(rule.fixtures_quiet);
  w.s(rule.file);
  w.i(rule.line);
  w.i(rule.column);
}

DiagnosisRule get_diagnosis_rule(Reader& r) {
  DiagnosisRule rule;
  rule.id = r.s();
  rule.verdict = r.s();
  rule.title = r.s();
  rule.query = r.s();
  rule.message = r.s();
  rule.advice = r.s();
  rule.priority = r.small_int();
  rule.ledger = r.s();
  rule.fixtures_fire = r.strings();
  rule.fixtures_quiet = r.strings();
  rule.file = r.s();
  rule.line = r.small_int();
  rule.column = r.small_int();
  return rule;
}

/// A compiled signal as build() left it: its literals are stored with both flags, so that the
/// decoded set's build() keeps them (precomputed or declared) instead of deriving them again.
void put(Writer& w, const text::Signal& signal) {
  w.s(signal.id);
  w.s(signal.kind);
  w.u(static_cast<std::uint64_t>(signal.severity));
  w.strings(signal.formats);
  w.u(signal.pattern ? 1 : 0);
  if (signal.pattern) w.s(signal.pattern->source());
  w.strings(signal.literals);
  w.u(signal.literals_derived ? 1 : 0);
  w.u(signal.literals_precomputed ? 1 : 0);
}

text::Signal get_signal(Reader& r) {
  text::Signal signal;
  signal.id = r.s();
  signal.kind = r.s();
  signal.severity = get_severity(r);
  signal.formats = r.strings();
  if (r.flag()) {
    // As the TOML path loads the built-in set: compiled the first time a line reaches it.
    signal.pattern = std::make_shared<const text::Pattern>(r.s(), text::Compile::on_first_use);
  }
  signal.literals = r.strings();
  signal.literals_derived = r.flag();
  signal.literals_precomputed = r.flag();
  return signal;
}

}  // namespace

std::string encode_load_result(const LoadResult& loaded) {
  Writer w;
  w.raw(kMagic);
  w.u(loaded.problems.size());
  for (const auto& p : loaded.problems) put(w, p);
  const RuleSet& rules = loaded.rules;
  w.u(rules.signal_rules.size());
  for (const auto& rule : rules.signal_rules) put(w, rule);
  w.u(rules.diagnoses.size());
  for (const auto& rule : rules.diagnoses) put(w, rule);
  const auto& signals = rules.signals.signals();
  w.u(signals.size());
  for (const auto& signal : signals) put(w, signal);
  return w.take();
}

std::optional<LoadResult> decode_load_result(std::string_view bytes) {
  Reader r(bytes);
  if (!r.expect(kMagic)) return std::nullopt;
  LoadResult out;
  out.problems.resize(r.count());
  for (auto& p : out.problems) p = get_diagnostic(r);
  RuleSet& rules = out.rules;
  rules.signal_rules.resize(r.count());
  for (auto& rule : rules.signal_rules) rule = get_signal_rule(r);
  rules.diagnoses.resize(r.count());
  for (auto& rule : rules.diagnoses) rule = get_diagnosis_rule(r);
  const std::size_t signals = r.count();
  for (std::size_t k = 0; k < signals && r.ok(); ++k) rules.signals.add(get_signal(r));
  if (!r.ok() || !r.at_end()) return std::nullopt;
  rules.signals.build();
  return out;
}

}  // namespace culprit::rules::detail
