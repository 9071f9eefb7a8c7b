// api::load_rule_set with rule folders: a folder that holds the built-in files themselves (the
// source tree's rules/, as a rule author edits it) is read in their place, so `culprit rules
// check rules` checks the edits instead of finding every id defined twice; a copy of a built-in
// file anywhere else adds its rules, and its ids are duplicates.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "culprit/api/rule_loading.hpp"
#include "culprit/culprit.hpp"
#include "unit/temp_dir.hpp"

namespace fs = std::filesystem;
using culprit::test::TempDir;

namespace {

/// The built-in rule file at `path` (`rules/signals/xid.toml`), its first `id = "from"` made
/// `id = "to"`, written under `root` at the same path (or at `as`, when given).
void write_edited(const fs::path& root, const std::string& path, const std::string& from, const std::string& to,
                  const std::string& as = {}) {
  const auto& builtin = culprit::rules::builtin_rules();
  const auto it = std::find_if(builtin.begin(), builtin.end(), [&](const auto& t) { return t.path == path; });
  REQUIRE(it != builtin.end());
  std::string text = it->text;
  const std::string old_id = "id = \"" + from + "\"";
  const auto at = text.find(old_id);
  REQUIRE(at != std::string::npos);
  text.replace(at, old_id.size(), "id = \"" + to + "\"");
  const fs::path out = root / (as.empty() ? path : as);
  fs::create_directories(out.parent_path());
  std::ofstream(out) << text;
}

bool has_signal(const culprit::rules::LoadResult& r, const std::string& id) {
  return std::any_of(r.rules.signal_rules.begin(), r.rules.signal_rules.end(),
                     [&](const auto& s) { return s.id == id; });
}

std::size_t count_code(const culprit::rules::LoadResult& r, std::string_view code) {
  return static_cast<std::size_t>(
      std::count_if(r.problems.begin(), r.problems.end(), [&](const auto& p) { return p.code == code; }));
}

}  // namespace

TEST_CASE("a rules folder holding the built-in files is read in their place", "[api][rules]") {
  using culprit::api::load_rule_set;
  using culprit::api::RuleChecks;
  const auto builtin = load_rule_set({}, true, RuleChecks::all);
  REQUIRE(builtin.ok());
  TempDir dir;
  write_edited(dir.path / "src", "rules/signals/xid.toml", "nvrm_xid", "nvrm_xid_edited");
  const std::string rules_dir = (dir.path / "src" / "rules").string();

  SECTION("named by its path, or from inside it") {
    for (const std::string& named : {rules_dir, rules_dir + "/", rules_dir + "/signals/.."}) {
      const auto loaded = load_rule_set({named}, true, RuleChecks::all);
      INFO(named);
      CHECK(count_code(loaded, culprit::rules::code::kDuplicateId) == 0);
      CHECK(has_signal(loaded, "nvrm_xid_edited"));  // the edit is read ...
      CHECK_FALSE(has_signal(loaded, "nvrm_xid"));   // ... in place of the built-in file
      CHECK(loaded.rules.signal_rules.size() == builtin.rules.signal_rules.size());
    }
  }
  SECTION("a copy anywhere else adds its rules: the unedited ids are defined twice") {
    write_edited(dir.path, "rules/signals/xid.toml", "nvrm_xid", "nvrm_xid_edited", "mine/signals/xid.toml");
    const auto loaded = load_rule_set({(dir.path / "mine").string()}, true, RuleChecks::all);
    CHECK(count_code(loaded, culprit::rules::code::kDuplicateId) > 0);
    CHECK(has_signal(loaded, "nvrm_xid"));
  }
}

TEST_CASE("a rule folder loaded again is not parsed again, until a file in it changes", "[api][rules]") {
  // Rules::load keeps what it loaded by the folders' files' bytes: a long-lived caller (the
  // Python module's rules=) pays the TOML and the sample checks once per edit, not per call.
  TempDir dir;
  const fs::path file = dir.path / "mine" / "extra.toml";
  fs::create_directories(file.parent_path());
  const auto write = [&file](const std::string& id) {
    std::ofstream(file) << "[[signal]]\nid = \"" << id << "\"\nkind = \"log\"\nseverity = \"info\"\n"
                        << "pattern = 'culprit rule cache probe'\nsamples = [\"culprit rule cache probe\"]\n";
  };
  write("cache_probe_one");
  const std::vector<std::string> dirs{(dir.path / "mine").string()};
  const auto first = culprit::Rules::load(dirs);
  REQUIRE_FALSE(first.has_errors());
  CHECK(&culprit::Rules::load(dirs).impl() == &first.impl());         // the same rule set
  CHECK(&culprit::Rules::load(dirs, false).impl() != &first.impl());  // another prefilter: another
  write("cache_probe_two");  // same size, same second: told by its bytes
  const auto edited = culprit::Rules::load(dirs);
  CHECK(&edited.impl() != &first.impl());
  fs::remove(file);
  CHECK(&culprit::Rules::load(dirs).impl() != &edited.impl());  // a file gone
}
