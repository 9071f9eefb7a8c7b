// The compact form: a magic line, then counted records of varints (unsigned LEB128; signed
// values zigzag-coded) and length-prefixed strings, in the order encode_load_result writes
// them. The one writer and the one reader sit side by side here so that they cannot drift
// apart; tests/unit/rules/test_compact.cpp checks the round trip and the built-in blob against
// the TOML path.
#include "compact.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <utility>

#include "culprit/text/pattern.hpp"

namespace culprit::rules::detail {

namespace {

/// Bumped whenever the layout below changes (the blob is regenerated with the binary anyway).
constexpr std::string_view kMagic = "culprit-rules-compact/2\n";

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

  // The field walk's operations (see the *_fields() lists below).
  void operator()(const std::string& v) { s(v); }
  void operator()(const std::vector<std::string>& v) { strings(v); }
  void operator()(int v) { i(v); }
  void operator()(bool v) { u(v ? 1 : 0); }
  void operator()(core::Severity v) { u(static_cast<std::uint64_t>(v)); }
  void operator()(core::DiagLevel v) { u(static_cast<std::uint64_t>(v)); }
  void operator()(const std::map<std::string, std::string>& m) {
    u(m.size());
    for (const auto& [name, value] : m) s(name), s(value);
  }
  template <class T, class F>
  void each(const std::vector<T>& v, F&& put) {
    u(v.size());
    for (const auto& x : v) put(x);
  }

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
  // The field walk's operations (see the *_fields() lists below).
  void operator()(std::string& v) { v = s(); }
  void operator()(std::vector<std::string>& v) { v = strings(); }
  void operator()(int& v) { v = small_int(); }
  void operator()(bool& v) { v = flag(); }
  void operator()(core::Severity& v) {
    v = static_cast<core::Severity>(index(static_cast<std::uint64_t>(core::Severity::critical)));
  }
  void operator()(core::DiagLevel& v) {
    v = static_cast<core::DiagLevel>(index(static_cast<std::uint64_t>(core::DiagLevel::error)));
  }
  void operator()(std::map<std::string, std::string>& m) {
    const std::size_t n = count();
    for (std::size_t k = 0; k < n && ok_; ++k) {
      std::string name = s();
      m[std::move(name)] = s();
    }
  }
  template <class T, class F>
  void each(std::vector<T>& v, F&& get) {
    v.resize(count());
    for (auto& x : v) get(x);
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

/// Each record's fields, in their order in the form: the one list both the writer (a const
/// record) and the reader (a record to fill) walk, so the two cannot drift apart.
template <class IO, class D>
void diagnostic_fields(IO& io, D& d) {  // core::Diagnostic
  io(d.level), io(d.code), io(d.where), io(d.message);
}
template <class IO, class S>
void sample_fields(IO& io, S& sample) {  // SignalSample
  io(sample.line), io(sample.should_match), io(sample.fields);
}
template <class IO, class R>
void signal_rule_fields(IO& io, R& r) {  // SignalRule
  io(r.id), io(r.kind), io(r.description), io(r.severity), io(r.pattern), io(r.formats), io(r.literals);
  io(r.provides), io(r.framework), io(r.killer);
  io.each(r.samples, [&io](auto& sample) { sample_fields(io, sample); });
  io(r.file), io(r.line), io(r.column);
}
template <class IO, class R>
void diagnosis_rule_fields(IO& io, R& r) {  // DiagnosisRule
  io(r.id), io(r.verdict), io(r.title), io(r.query), io(r.message), io(r.advice), io(r.priority);
  io(r.ledger), io(r.kinds), io(r.event_rules), io(r.fixtures_fire), io(r.fixtures_quiet);
  io(r.file), io(r.line), io(r.column);
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
  w.u(signal.clauses.size());
  for (const auto& clause : signal.clauses) w.strings(clause);
  w.u(signal.literals_derived ? 1 : 0);
  w.u(signal.literals_precomputed ? 1 : 0);
  w.u(signal.fields.size());
  for (const auto& [key, value] : signal.fields) w.s(key), w.s(value);
}

text::Signal get_signal(Reader& r) {
  text::Signal signal;
  signal.id = r.s();
  signal.kind = r.s();
  r(signal.severity);
  signal.formats = r.strings();
  if (r.flag()) {
    // As the TOML path loads the built-in set: compiled the first time a line reaches it.
    signal.pattern = std::make_shared<const text::Pattern>(r.s(), text::Compile::on_first_use);
  }
  signal.literals = r.strings();
  signal.clauses.resize(r.u());
  for (auto& clause : signal.clauses) clause = r.strings();
  signal.literals_derived = r.flag();
  signal.literals_precomputed = r.flag();
  signal.fields.resize(r.u());
  for (auto& [key, value] : signal.fields) key = r.s(), value = r.s();
  return signal;
}

}  // namespace

std::string encode_load_result(const LoadResult& loaded) {
  Writer w;
  w.raw(kMagic);
  w.each(loaded.problems, [&w](const auto& d) { diagnostic_fields(w, d); });
  const RuleSet& rules = loaded.rules;
  w.each(rules.signal_rules, [&w](const auto& rule) { signal_rule_fields(w, rule); });
  w.each(rules.diagnoses, [&w](const auto& rule) { diagnosis_rule_fields(w, rule); });
  const auto& signals = rules.signals.signals();
  w.u(signals.size());
  for (const auto& signal : signals) put(w, signal);
  return w.take();
}

std::optional<LoadResult> decode_load_result(std::string_view bytes) {
  Reader r(bytes);
  if (!r.expect(kMagic)) return std::nullopt;
  LoadResult out;
  r.each(out.problems, [&r](auto& d) { diagnostic_fields(r, d); });
  RuleSet& rules = out.rules;
  r.each(rules.signal_rules, [&r](auto& rule) { signal_rule_fields(r, rule); });
  r.each(rules.diagnoses, [&r](auto& rule) { diagnosis_rule_fields(r, rule); });
  const std::size_t signals = r.count();
  for (std::size_t k = 0; k < signals && r.ok(); ++k) rules.signals.add(get_signal(r));
  if (!r.ok() || !r.at_end()) return std::nullopt;
  rules.signals.build();
  return out;
}

}  // namespace culprit::rules::detail
