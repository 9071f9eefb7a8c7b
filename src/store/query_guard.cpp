// Queries that someone else wrote — a rule's [[diagnosis]] query, `culprit query`'s SQL — read the
// timeline and never write: SQLite's authorizer (consulted while a statement is prepared) allows
// reading tables, SELECT, recursive CTEs and function calls, and denies everything else (INSERT,
// UPDATE, DELETE, DDL, ATTACH / DETACH, PRAGMA, transactions), so a denied statement never runs.
// A progress handler stops a statement that runs past its time budget.
#include <sqlite3.h>

#include <fmt/format.h>

#include <chrono>
#include <cstring>

#include "culprit/store/database.hpp"

namespace culprit::store {
namespace {

/// The connection's authorizer (installed once by Database::install_authorizer: setting one
/// expires every prepared statement, so a Guarded that set and cleared it around each query made
/// SQLite compile every kept statement again). `reading_only` points at the database's flag,
/// which a read-only Guarded raises; while it is down every action is allowed.
int allow_reads(void* reading_only, int action, const char* arg1, const char*, const char*, const char*) {
  if (!*static_cast<const bool*>(reading_only)) return SQLITE_OK;
  switch (action) {
    case SQLITE_SELECT:
    case SQLITE_READ:
    case SQLITE_RECURSIVE:
      return SQLITE_OK;
    case SQLITE_UPDATE:
      // A table-valued function (json_each, json_tree) declares its table while the statement is
      // prepared, which SQLite authorizes as an update of sqlite_master's columns. A statement
      // that really writes is refused anyway: check_read_only() requires sqlite3_stmt_readonly().
      return arg1 && std::strcmp(arg1, "sqlite_master") == 0 ? SQLITE_OK : SQLITE_DENY;
    case SQLITE_FUNCTION:
      // load_extension is off on the connection too; say no here as well.
      return arg1 && std::strcmp(arg1, "load_extension") == 0 ? SQLITE_DENY : SQLITE_OK;
    default:
      return SQLITE_DENY;
  }
}

constexpr std::string_view kOnlyReading =
    "only reading the timeline is allowed (a write, ATTACH, PRAGMA or transaction was refused)";

using Clock = std::chrono::steady_clock;

std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
}

std::int64_t deadline_in(double seconds) {
  return now_ns() + static_cast<std::int64_t>(seconds * 1e9);
}

/// Raises the read-only flag the connection's authorizer reads and sets the guard's deadline,
/// for its lifetime.
class Guarded {
 public:
  Guarded(bool& reading_only, std::int64_t& deadline, const QueryGuard& guard)
      : reading_only_(reading_only), deadline_(deadline) {
    reading_only_ = guard.read_only;
    deadline_ = guard.budget_seconds > 0 ? deadline_in(guard.budget_seconds) : 0;
  }
  ~Guarded() {
    reading_only_ = false;
    deadline_ = 0;
  }
  Guarded(const Guarded&) = delete;
  Guarded& operator=(const Guarded&) = delete;

 private:
  bool& reading_only_;
  std::int64_t& deadline_;
};

}  // namespace

void Database::install_authorizer() { sqlite3_set_authorizer(db_, allow_reads, &reading_only_); }

int Database::past_deadline(void* deadlines) {
  const auto& d = *static_cast<const Deadlines*>(deadlines);
  if (d.connection == 0 && d.guard == 0) return 0;
  const std::int64_t now = now_ns();
  return (d.connection != 0 && now > d.connection) || (d.guard != 0 && now > d.guard) ? 1 : 0;
}

void Database::install_progress_handler() {
  // Installed once and left: every 10 000 virtual-machine steps it compares two numbers.
  sqlite3_progress_handler(db_, 10000, past_deadline, &deadlines_);
}

void Database::set_deadline(double seconds) { deadlines_.connection = seconds > 0 ? deadline_in(seconds) : 0; }

std::unique_ptr<Statement> Database::prepare_guarded(std::string_view sql, bool read_only, std::string& why) {
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  const int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &raw, &tail);
  auto stmt = raw ? std::make_unique<Statement>(raw) : nullptr;  // finalizes it
  if (rc == SQLITE_AUTH) why = kOnlyReading;
  else if (rc != SQLITE_OK) why = sqlite3_errmsg(db_);
  else if (!stmt) why = "no SQL statement";
  else if (read_only && sqlite3_stmt_readonly(raw) == 0) why = "only reading the timeline is allowed (the statement writes)";
  if (!why.empty()) return nullptr;
  if (read_only) {
    // What follows the first statement: SQLite itself says whether it is only blanks and
    // comments (a prepare that succeeds and yields no statement; a refused one is a statement).
    sqlite3_stmt* next = nullptr;
    const char* end = sql.data() + sql.size();
    const int next_rc = sqlite3_prepare_v2(db_, tail, static_cast<int>(end - tail), &next, nullptr);
    if (next_rc != SQLITE_OK || next) {
      sqlite3_finalize(next);
      why = "one statement only (more follow the first)";
      return nullptr;
    }
  }
  return stmt;
}

QueryResult Database::query(std::string_view sql, const QueryGuard& guard) {
  // One prepare, under the guard: the authorizer sees the statement as it is compiled, and the
  // statement that passed the checks is the one that runs.
  const Guarded on(reading_only_, deadlines_.guard, guard);
  QueryResult result;
  auto stmt = kept_statement(sql, guard.read_only ? Preparer::read_only : Preparer::guarded, result.error);
  if (!stmt) return result;
  result = rows_of(*stmt, guard.max_rows);
  if (result.error == "interrupted" && guard.budget_seconds > 0) {
    result.stopped = true;
    result.error = fmt::format("stopped after {} s, its time budget", guard.budget_seconds);
  }
  return result;
}

std::string Database::query_each(std::string_view sql, const QueryGuard& guard,
                                 const std::function<void(const std::vector<std::string>&)>& columns,
                                 const std::function<bool(const Row&)>& row) {
  return query_each_impl(sql, std::span<const std::string_view>(), guard, columns, row);
}

std::string Database::query_each_bound(std::string_view sql, const std::vector<std::string>& texts,
                                       const QueryGuard& guard, const std::function<bool(const Row&)>& row) {
  const std::vector<std::string_view> views(texts.begin(), texts.end());
  return query_each_impl(sql, views, guard, [](const std::vector<std::string>&) {}, row);
}

std::string Database::query_each_impl(std::string_view sql, std::span<const std::string_view> texts,
                                      const QueryGuard& guard,
                                      const std::function<void(const std::vector<std::string>&)>& columns,
                                      const std::function<bool(const Row&)>& row) {
  const Guarded on(reading_only_, deadlines_.guard, guard);
  std::string why;
  auto stmt = prepare_guarded(sql, guard.read_only, why);  // one use: not kept
  if (!stmt) return why;
  bind_texts(*stmt, texts);
  sqlite3_stmt* s = stmt->handle();
  std::vector<std::string> names;
  for (int c = 0; c < sqlite3_column_count(s); ++c) names.emplace_back(sqlite3_column_name(s, c));
  auto shared = std::make_shared<const std::vector<std::string>>(names);
  columns(names);
  Row current;
  current.columns = shared;
  std::int64_t n = 0;
  while (stmt->step()) {
    if (guard.max_rows > 0 && n >= guard.max_rows) return fmt::format("stopped after {} rows, its row limit", guard.max_rows);
    ++n;
    read_values(s, current.values);
    if (!row(current)) return {};
  }
  if (stmt->error() == "interrupted" && guard.budget_seconds > 0)
    return fmt::format("stopped after {} s, its time budget", guard.budget_seconds);
  return stmt->error();
}

std::string Database::check_read_only(std::string_view sql) {
  const Guarded on(reading_only_, deadlines_.guard, QueryGuard{true, 0});
  std::string why;
  prepare_guarded(sql, true, why);
  return why;
}

std::unique_ptr<Database> Database::open_read_only(const std::string& path, std::string& error) {
  sqlite3* db = connect(sqlite_uri(path, "mode=ro&immutable=1"), SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, error);
  return db ? std::unique_ptr<Database>(new Database(db)) : nullptr;
}

}  // namespace culprit::store
