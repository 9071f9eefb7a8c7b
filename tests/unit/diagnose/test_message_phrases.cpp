// Every builtin diagnosis's message and advice render well-formed with each optional phrase empty
// and given (rules/README.md, "Message phrases"): nothing mends the text afterwards, so a
// template that leaves "failed on : …", a double space or ".." behind fails here.
#include <catch2/catch.hpp>

#include <cctype>
#include <string>
#include <vector>

#include "culprit/rules/loader.hpp"
#include "diagnose/phrases.hpp"
#include "rules/draft.hpp"

namespace message_phrases_tests {

using namespace culprit;
using diagnose::render_template;
using diagnose::TemplateArgs;

namespace {

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

/// An optional phrase: empty, or complete with its own leading separator.
bool phrase_name(const std::string& name) {
  return name == "on_host" || name == "ledger_sentence" || ends_with(name, "_phrase");
}

/// A raw value that is empty where the inputs lack it (a paste names no host): a template says
/// `{on_host}` instead.
bool maybe_empty_name(const std::string& name) { return name == "host" || name == "culprit_host"; }

bool optional_name(const std::string& name) { return phrase_name(name) || maybe_empty_name(name); }

/// What is wrong with a rendered message; empty when it reads well.
std::string malformed(const std::string& text) {
  if (text.find('{') != std::string::npos || text.find('}') != std::string::npos) return "a template left unrendered";
  if (!text.empty() && (text.front() == ' ' || text.back() == ' ')) return "a leading or trailing space";
  if (text.find("  ") != std::string::npos) return "a double space";
  for (const char* bad : {" ,", " .", " ;", " :", " )", "( "})
    if (text.find(bad) != std::string::npos) return std::string("a space in `") + bad + "`";
  for (std::size_t at = text.find(".."); at != std::string::npos; at = text.find("..", at + 1))
    if (text.compare(at, 3, "...") != 0 && (at == 0 || text[at - 1] != '.')) return "a doubled full stop";
  // A sentence after a full stop starts with a capital ("e.g. " is no sentence end).
  for (std::size_t at = text.find(". "); at != std::string::npos; at = text.find(". ", at + 1)) {
    if (at + 2 >= text.size() || !std::islower(static_cast<unsigned char>(text[at + 2]))) continue;
    const std::string before = text.substr(0, at + 1);
    if (!ends_with(before, "e.g.") && !ends_with(before, "i.e.")) return "a sentence starting in lower case";
  }
  return {};
}

/// `tmpl` rendered as the engine would, with every required value `word` (a quoted `detail` may
/// end with its own stop: `detail_value`) and the optional phrases in `given` set to a phrase.
std::string render(const std::string& tmpl, const std::vector<std::string>& names, const std::string& given,
                   bool all_given, const std::string& detail_value) {
  TemplateArgs args;
  for (const auto& n : names) {
    std::string value = "Val";
    if (n == "detail") value = detail_value;
    if (n == "culprit_action") value = "Do this.";
    if (optional_name(n)) {
      const bool set = all_given || n == given;
      value = !set ? "" : maybe_empty_name(n) ? "Val" : n == "ledger_sentence" ? " Another process held it." : " Val";
    }
    args.emplace_back(n, value);
  }
  return render_template(tmpl, args);
}

/// Every malformed rendering of `tmpl`: each optional phrase alone, none and all, with a
/// `detail` with and without its own full stop.
std::vector<std::string> problems_of(const std::string& tmpl) {
  std::vector<std::string> names;
  if (const std::string error = rules::detail::template_names(tmpl, names); !error.empty()) return {error};
  std::vector<std::string> out;
  std::vector<std::string> choices{""};
  for (const auto& n : names)
    if (optional_name(n)) choices.push_back(n);
  for (const auto& detail : {std::string("Val"), std::string("Val.")})
    for (const bool all : {false, true})
      for (const auto& given : choices) {
        const std::string text = render(tmpl, names, given, all, detail);
        if (const std::string why = malformed(text); !why.empty()) out.push_back(why + ": \"" + text + "\"");
      }
  return out;
}

}  // namespace

TEST_CASE("every builtin message and advice renders well-formed with optional phrases empty or given",
          "[diagnose][phrases]") {
  const auto loaded = rules::load_rules(rules::builtin_rules());
  REQUIRE(loaded.ok());
  REQUIRE(loaded.rules.diagnoses.size() >= 20);
  for (const auto& d : loaded.rules.diagnoses) {
    for (const auto* tmpl : {&d.message, &d.advice}) {
      INFO(d.file << ":" << d.line << " " << d.id << ": " << *tmpl);
      const auto found = problems_of(*tmpl);
      CHECK(found == std::vector<std::string>{});
    }
  }
}

TEST_CASE("the check fails on a malformed template", "[diagnose][phrases]") {
  CHECK_FALSE(problems_of("A CUDA allocation failed on {on_host}.").empty());  // "on  on x"
  CHECK_FALSE(problems_of("It failed on {host}: {detail}").empty());            // "on :" without a host
  CHECK_FALSE(problems_of("It stopped: {detail}.").empty());                    // "Val.."
  CHECK_FALSE(problems_of("The cgroup {cgroup_phrase} hit its limit.").empty());
  CHECK_FALSE(problems_of("Killed {victim_name}{pid_phrase} .").empty());
  CHECK(problems_of("It failed. {detail}").empty());                            // a value may start a sentence
  CHECK_FALSE(problems_of("It failed. then {detail}").empty());
  CHECK_FALSE(problems_of("It failed{on_host}. {ledger_sentence}").empty());    // ".  Another"
  CHECK_FALSE(problems_of("Unclosed {detail").empty());
  CHECK(problems_of("It failed{on_host}.{ledger_sentence}").empty());
  CHECK(problems_of("The memory cgroup{cgroup_phrase}{on_host} hit its limit{usage_phrase}.").empty());
}

TEST_CASE("the engine's phrases are empty or complete", "[diagnose][phrases]") {
  CHECK(diagnose::on_host_phrase("") == "");
  CHECK(diagnose::on_host_phrase("gpu07") == " on gpu07");
  CHECK(diagnose::sentence_phrase("") == "");
  CHECK(diagnose::sentence_phrase("  ") == "");
  CHECK(diagnose::sentence_phrase("another process holds 10 GiB") == " Another process holds 10 GiB.");
  CHECK(diagnose::sentence_phrase("pid 4 holds 2 GiB.") == " Pid 4 holds 2 GiB.");
  CHECK(diagnose::sentence_phrase("12 GiB of the GPU was in use") == " 12 GiB of the GPU was in use.");
  // A template fmt rejects shows as written.
  CHECK(render_template("held {missing}", {{"x", "1"}}) == "held {missing}");
  CHECK(render_template("{a} and {b}", {{"a", "1"}, {"b", "2"}}) == "1 and 2");
}

TEST_CASE("a query column's value is one line of single spaces", "[diagnose][phrases]") {
  using diagnose::template_value;
  CHECK(template_value("detail", "      Reason:       OOMKilled") == "Reason: OOMKilled");
  CHECK(template_value("detail", "Scheduler hit an exception: ") == "Scheduler hit an exception:");
  CHECK(template_value("usage_phrase", " (2.00 GiB used  of 2.00 GiB) ") == " (2.00 GiB used of 2.00 GiB)");
  CHECK(template_value("pid_phrase", "") == "");
  CHECK(template_value("who", "Rank 3") == "Rank 3");
}

}  // namespace message_phrases_tests
