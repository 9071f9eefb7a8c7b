// libFuzzer target: a rule's [[diagnosis]] SQL (issue 16, redteam finding 19). The text is checked
// as the rule loader checks it — one read-only statement that compiles against the timeline
// schema (store::Database::check_read_only) — and, when accepted, run as a diagnosis runs: under
// the read-only authorizer, a time budget and a row limit, on a small timeline. The same text is
// then loaded as a rule file's query through rules::load_rules with that checker. Checks that an
// accepted query changes nothing (no row, no table, temporary ones included) and stops at its
// row limit, and that every problem comes back as a diagnostic with a code.
#include <sqlite3.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "culprit/rules/loader.hpp"
#include "culprit/store/database.hpp"
#include "fuzz_support.hpp"

namespace store = culprit::store;

namespace {

constexpr std::int64_t kRows = 1000;

/// A timeline with the schema and a few rows, made once: every input runs against it.
store::Database& timeline() {
  static const std::unique_ptr<store::Database> db = [] {
    std::string error;
    auto made = store::Database::open(":memory:", error);
    CULPRIT_FUZZ_CHECK(made && made->ensure_schema().empty());
    CULPRIT_FUZZ_CHECK(made->exec(R"sql(
INSERT INTO sources(id, name, host, format, bytes, lines) VALUES (1, 'node-1/train.log', 'node-1', 'app_log', 300, 3);
INSERT INTO events(id, source_id, line, line_end, ts, ts_raw, ts_kind, host, pid, comm, kind, severity, rule,
                   message, fields) VALUES
  (1, 1, 1, 1, 1775695629, '2026-04-09 00:47:09', 'wall', 'node-1', 4242, 'python3', 'cuda_oom', 'error',
   'torch_oom', 'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.', '{"tried":2147483648}'),
  (2, 1, 2, 2, 1775695630, '2026-04-09 00:47:10', 'wall', 'node-1', 4242, 'python3', 'exit', 'error', 'exit',
   'exited with 1', '{}');
)sql").empty());
    return made;
  }();
  return *db;
}

/// What a query could change: rows written, and tables or views made (the temporary ones too).
std::int64_t footprint(store::Database& db) {
  const auto n = db.query("SELECT (SELECT count(*) FROM sqlite_master) + (SELECT count(*) FROM sqlite_temp_master) AS n");
  return sqlite3_total_changes(db.handle()) * 100000 + (n.rows.empty() ? -1 : n.rows[0]["n"].as_int().value_or(-1));
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size > 16 * 1024) return 0;  // diagnosis queries are a few hundred bytes
  const std::string sql(reinterpret_cast<const char*>(data), size);
  store::Database& db = timeline();
  const std::int64_t before = footprint(db);
  if (db.check_read_only(sql).empty()) {
    const auto result = db.query(sql, store::QueryGuard{true, 0.25, kRows});
    CULPRIT_FUZZ_CHECK(static_cast<std::int64_t>(result.rows.size()) <= kRows);
  }
  CULPRIT_FUZZ_CHECK(footprint(db) == before);

  // The same text as a rule file's query (a TOML literal string cannot hold ''').
  if (sql.find("'''") == std::string::npos) {
    const std::vector<culprit::rules::RuleText> texts{
        {"rules/diagnoses/fuzz.toml", "[[diagnosis]]\nid = \"fuzz\"\nverdict = \"cuda_oom\"\ntitle = \"fuzz\"\n"
                                      "priority = 10\nmessage = \"m\"\nquery = '''\n" + sql + "\n'''\n"}};
    const auto loaded = culprit::rules::load_rules(
        texts, [&](const std::string& q) { return db.check_read_only(q); }, culprit::rules::SampleCheck::skip);
    for (const auto& p : loaded.problems) CULPRIT_FUZZ_CHECK(!p.code.empty());
    CULPRIT_FUZZ_CHECK(footprint(db) == before);
  }
  return 0;
}
