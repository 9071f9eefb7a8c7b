// The compact form (src/rules/compact.hpp) must give exactly the rules the TOML path gives: the
// binary's built-in blob against loading rules/**/*.toml now (a stale or lossy blob fails here),
// a round trip of odd rule content, and refusal of damaged bytes.
#include <catch2/catch.hpp>

#include "culprit/rules/loader.hpp"
#include "rules/compact.hpp"

namespace compact_tests {

using namespace culprit;

namespace {

std::vector<std::string> lines(const core::Diagnostics& problems) {
  std::vector<std::string> out;
  for (const auto& p : problems) out.push_back(p.to_string());
  return out;
}

/// Equal rule sets: every rule field (samples and positions included), every compiled signal with
/// its prefilter literals and their flags, the signals tried on every line, and the problems.
void require_equal(const rules::LoadResult& a, const rules::LoadResult& b) {
  CHECK(lines(a.problems) == lines(b.problems));
  REQUIRE(a.rules.signal_rules.size() == b.rules.signal_rules.size());
  for (std::size_t i = 0; i < a.rules.signal_rules.size(); ++i) {
    INFO(a.rules.signal_rules[i].id);
    CHECK(a.rules.signal_rules[i] == b.rules.signal_rules[i]);
  }
  REQUIRE(a.rules.diagnoses.size() == b.rules.diagnoses.size());
  for (std::size_t i = 0; i < a.rules.diagnoses.size(); ++i) {
    INFO(a.rules.diagnoses[i].id);
    CHECK(a.rules.diagnoses[i] == b.rules.diagnoses[i]);
  }
  const auto& sa = a.rules.signals.signals();
  const auto& sb = b.rules.signals.signals();
  REQUIRE(sa.size() == sb.size());
  for (std::size_t i = 0; i < sa.size(); ++i) {
    INFO(sa[i].id);
    CHECK(sa[i].id == sb[i].id);
    CHECK(sa[i].kind == sb[i].kind);
    CHECK(sa[i].severity == sb[i].severity);
    CHECK(sa[i].formats == sb[i].formats);
    REQUIRE((sa[i].pattern == nullptr) == (sb[i].pattern == nullptr));
    if (sa[i].pattern) CHECK(sa[i].pattern->source() == sb[i].pattern->source());
    CHECK(sa[i].literals == sb[i].literals);
    CHECK(sa[i].literals_derived == sb[i].literals_derived);
    CHECK(sa[i].literals_precomputed == sb[i].literals_precomputed);
  }
  CHECK(a.rules.signals.always_tried() == b.rules.signals.always_tried());
  CHECK(a.rules.signals.prefilter() == b.rules.signals.prefilter());
}

// A rule set with what a plain encoding could lose: bytes outside ASCII and a NUL in strings, a
// negative priority, a sample that must not match, sample fields, declared and derived literals,
// formats, and a warning (the unknown key).
constexpr const char* kOdd = R"(
[[signal]]
id = "odd.one"
kind = "cuda_oom"
severity = "critical"
description = "caf\u00e9 \u0000 \u00ff"
pattern = 'CUDA out of memory\. Tried to allocate (?P<requested_size>\d+ \w+)'
formats = ["app", "dmesg"]
colour = "blue"
  [[signal.sample]]
  line = "CUDA out of memory. Tried to allocate 20 MiB"
  fields = { requested_size = "20 MiB" }
  [[signal.sample]]
  line = "CUDA out of memory. Tried to allocate"
  match = false

[[signal]]
id = "odd.two"
kind = "log"
pattern = 'watchdog (?P<pid>\d+)'
literals = ["watchdog ", "WATCHDOG"]

[[diagnosis]]
id = "odd.diag"
verdict = "not_oom"
title = "An odd one"
priority = -7
query = "SELECT host, ts FROM events WHERE kind = 'cuda_oom'"
message = "{host} at {ts}"
)";

}  // namespace

TEST_CASE("the built-in compact form is the TOML path's rule set", "[rules][compact]") {
  // The blob itself must decode: load_builtin_rules() would otherwise fall back to the TOML path
  // and this comparison would prove nothing.
  const auto decoded = rules::detail::decode_load_result(rules::detail::builtin_compact());
  REQUIRE(decoded.has_value());
  const auto toml = rules::load_rules(rules::builtin_rules(), {}, rules::SampleCheck::skip);
  REQUIRE(toml.rules.signal_rules.size() > 100);
  REQUIRE(toml.rules.diagnoses.size() > 10);
  require_equal(*decoded, toml);
  require_equal(rules::load_builtin_rules(), toml);
}

TEST_CASE("the compact form round-trips odd rule content", "[rules][compact]") {
  const auto toml = rules::load_rules({rules::RuleText{"odd.toml", kOdd}});
  INFO(lines(toml.problems).size());
  REQUIRE(toml.rules.signal_rules.size() == 2);
  REQUIRE(toml.rules.diagnoses.size() == 1);
  REQUIRE(toml.problems.size() == 1);  // rule-unknown-key (colour), a warning
  CHECK(toml.rules.signal_rules[0].description.find('\0') != std::string::npos);
  const auto back = rules::detail::decode_load_result(rules::detail::encode_load_result(toml));
  REQUIRE(back.has_value());
  require_equal(*back, toml);
  // The decoded set scans as the loaded one does.
  const std::string line = "CUDA out of memory. Tried to allocate 20 MiB";
  REQUIRE(back->rules.signals.match(line, "app").size() == 1);
  CHECK(back->rules.signals.match(line, "app")[0].signal->id == "odd.one");
  CHECK(back->rules.signals.match(line, "journal").empty());  // formats kept
}

TEST_CASE("damaged compact bytes are refused, never half-read", "[rules][compact]") {
  const auto toml = rules::load_rules({rules::RuleText{"odd.toml", kOdd}});
  const std::string bytes = rules::detail::encode_load_result(toml);
  REQUIRE(rules::detail::decode_load_result(bytes).has_value());
  for (std::size_t n = 0; n < bytes.size(); ++n) {
    INFO(n);
    CHECK_FALSE(rules::detail::decode_load_result(std::string_view(bytes).substr(0, n)).has_value());
  }
  CHECK_FALSE(rules::detail::decode_load_result(bytes + "x").has_value());
  std::string other_version = bytes;
  other_version[other_version.find('/') + 1] = '9';
  CHECK_FALSE(rules::detail::decode_load_result(other_version).has_value());
}

}  // namespace compact_tests
