// Types shared by the conformance runner's parts: one peer test entry (an expected.json item),
// the context an evaluator sees (the entry, culprit's facts on its input), and one result.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "conformance/culprit_facts.hpp"
#include "conformance/json_value.hpp"
#include "culprit/rules/loader.hpp"

namespace culprit::conformance {

/// One expected.json entry of one peer.
struct Entry {
  std::string peer;                 ///< folder name, e.g. `google-cadvisor`
  std::string file;                 ///< `file` as written ('' when null)
  std::string test;
  std::string note;
  Json asserts;
  std::vector<std::string> inputs;  ///< what is fed, in order (inputs_in_order, else file)
  bool derived = false;
  bool documented = false;
  int index = 0;                    ///< position in expected.json
  int case_size = 1;                ///< entries that share these inputs_in_order (one stream)
  std::string function;             ///< asserts.function ('' when absent)
  /// `function` + " " + the inputs: what mapping rows select on.
  std::string scope() const;
  /// The input(s) as shown in reports: the file, or `a + b` for several.
  std::string display() const;
};

enum class Status { agree, differ, not_applicable };

/// One assertion compared. `key` is the assertion's path (`fields.proc_pid`, `events[1]`).
struct Result {
  std::string key;
  Status status = Status::not_applicable;
  std::string peer_value;
  std::string culprit_value;
  std::string fact;  ///< the culprit fact compared (or why not applicable)
};

/// What an evaluator sees.
struct Ctx {
  const Entry& entry;
  const Facts& facts;
  const std::string& text;       ///< the text fed to culprit
  const rules::RuleSet& rules;
  const std::vector<Entry>& peer_entries;  ///< every entry of this peer
  /// Runs culprit on one of this peer's files (for `same_results_as`).
  std::function<Facts(const std::string& file, std::string& text)> run_file;
};

/// Appends one result. `fact` documents the culprit side.
void put(std::vector<Result>& out, std::string key, Status status, std::string peer_value,
         std::string culprit_value, std::string fact);
/// Appends agree/differ after comparing the two texts.
void compare(std::vector<Result>& out, std::string key, const std::string& peer_value,
             const std::string& culprit_value, std::string fact);

/// Evaluates one assertion `key` = `want` of `ctx.entry`, appending one result per comparable
/// fact. Returns false when no row of the mapping table covers (peer, scope, key).
bool evaluate(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out);

/// Prints the mapping table (peer, scope, key -> culprit fact) for review.
void print_mapping();

}  // namespace culprit::conformance
