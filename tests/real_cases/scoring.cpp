#include "scoring.hpp"

#include <simdjson.h>

#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace real_cases {

namespace {

using simdjson::dom::element;

// Python's `d.get(key)` on a JSON object: absent and null both read as "no value".
std::optional<element> field(element obj, const char* key) {
  element v;
  if (!obj.is_object() || obj[key].get(v) || v.is_null()) return std::nullopt;
  return v;
}

std::optional<std::string> text(element obj, const char* key) {
  auto v = field(obj, key);
  if (!v || !v->is_string()) return std::nullopt;
  return std::string(std::string_view(v->get_string().value()));
}

std::optional<int64_t> integer(element obj, const char* key) {
  auto v = field(obj, key);
  if (!v) return std::nullopt;
  if (v->is_int64()) return int64_t(v->get_int64().value());
  if (v->is_uint64()) return static_cast<int64_t>(uint64_t(v->get_uint64().value()));
  if (v->is_double()) {  // Python compares 123.0 == 123 as equal
    const double d = v->get_double().value();
    if (std::floor(d) == d) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

std::string show(const std::optional<std::string>& s) { return s ? *s : "None"; }
std::string show(const std::optional<int64_t>& i) { return i ? std::to_string(*i) : "None"; }

// `exp.get("culprit") or {}`: an absent, null or non-object value is an empty object.
element object_or_empty(element parent, const char* key, element empty) {
  auto v = field(parent, key);
  return v && v->is_object() ? *v : empty;
}

}  // namespace

CaseScore score_case(const std::string& expected_json, const std::string& got_json) {
  simdjson::dom::parser exp_parser, got_parser, empty_parser;
  element exp, got, empty;
  if (exp_parser.parse(expected_json).get(exp) || !exp.is_object())
    throw std::runtime_error("unreadable label: expected.json is not a JSON object");
  if (empty_parser.parse(std::string("{}")).get(empty)) throw std::runtime_error("simdjson");
  CaseScore s;
  if (got_parser.parse(got_json).get(got) || !got.is_object()) {
    s.error = "invalid JSON";
    return s;
  }
  const element c_exp = object_or_empty(exp, "culprit", empty);
  const element v_exp = object_or_empty(exp, "victim", empty);
  const auto kind = text(c_exp, "kind");
  const bool scores_culprit = kind == "job_itself" || kind == "foreign_process";
  const auto want_victim = integer(v_exp, "pid");

  const auto want_v = text(exp, "verdict");
  const auto gv = text(got, "verdict");
  const auto gconf = text(got, "confidence");
  s.verdict_ok = gv == want_v || (want_v == "unknown" && (gv == "unknown" || gconf == "low"));

  const element gc = object_or_empty(got, "culprit", empty);
  if (scores_culprit) {
    const auto role = text(gc, "role");
    bool ok = kind == "foreign_process" ? role == "foreign"
                                        : role != "foreign" && (integer(c_exp, "pid") || role == "job");
    if (const auto want_pid = integer(c_exp, "pid")) ok = ok && integer(gc, "pid") == want_pid;
    s.culprit_ok = ok && s.verdict_ok;
  }
  const element gvic = object_or_empty(got, "victim", empty);
  if (want_victim) s.victim_ok = s.verdict_ok && integer(gvic, "pid") == want_victim;
  s.high_wrong = s.wrong() && gconf == "high";

  s.detail = fmt::format("verdict {}/{} (want {})", show(gv), show(gconf), show(want_v));
  if (scores_culprit)
    s.detail += fmt::format("; culprit {}/{}/{} (want {}/{})", show(integer(gc, "pid")), show(text(gc, "name")),
                            show(text(gc, "role")), show(integer(c_exp, "pid")), show(kind));
  if (s.victim_ok == false)
    s.detail += fmt::format("; victim {} (want {})", show(integer(gvic, "pid")), show(want_victim));
  return s;
}

void Totals::add(const std::string& expected_json, const CaseScore& s) {
  // The scored counts come from the label, also for a case culprit crashed on (as score.py).
  simdjson::dom::parser p, e;
  element exp, empty;
  if (p.parse(expected_json).get(exp) || e.parse(std::string("{}")).get(empty)) return;
  const auto kind = text(object_or_empty(exp, "culprit", empty), "kind");
  ++cases;
  culprit_scored += kind == "job_itself" || kind == "foreign_process";
  victim_scored += integer(object_or_empty(exp, "victim", empty), "pid").has_value();
  if (!s.error.empty()) {
    ++bad;
    return;
  }
  verdict_ok += s.verdict_ok;
  culprit_ok += s.culprit_ok.value_or(false);
  victim_ok += s.victim_ok.value_or(false);
  high_wrong += s.high_wrong;
}

namespace {
// score.py's pct(): "a/b (p%)" with Python's `{:.0%}` (round half to even), or "0/0".
std::string pct(int a, int b) {
  if (b == 0) return "0/0";
  return fmt::format("{}/{} ({}%)", a, b, static_cast<long long>(std::nearbyint(static_cast<double>(a) / b * 100.0)));
}
}  // namespace

std::string Totals::line() const {
  return fmt::format("verdict {}, culprit {}, victim {}, confidently wrong {}, crashes/timeouts/invalid {}",
                     pct(verdict_ok, cases), pct(culprit_ok, culprit_scored), pct(victim_ok, victim_scored),
                     high_wrong, bad);
}

}  // namespace real_cases
