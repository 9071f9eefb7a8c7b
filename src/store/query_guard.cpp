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

int past_deadline(void* deadline) {
  return Clock::now() > *static_cast<Clock::time_point*>(deadline) ? 1 : 0;
}

/// Raises the read-only flag the connection's authorizer reads and installs the guard's progress
/// handler, for its lifetime.
class Guarded {
 public:
  Guarded(sqlite3* db, bool& reading_only, const QueryGuard& guard) : db_(db), reading_only_(reading_only) {
    reading_only_ = guard.read_only;
    if (guard.budget_seconds > 0) {
      deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(guard.budget_seconds));
      sqlite3_progress_handler(db_, 10000, past_deadline, &deadline_);
    }
  }
  ~Guarded() {
    reading_only_ = false;
    sqlite3_progress_handler(db_, 0, nullptr, nullptr);
  }
  Guarded(const Guarded&) = delete;
  Guarded& operator=(const Guarded&) = delete;

 private:
  sqlite3* db_;
  bool& reading_only_;
  Clock::time_point deadline_{};
};

}  // namespace

void Database::install_authorizer() { sqlite3_set_authorizer(db_, allow_reads, &reading_only_); }

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
  const Guarded on(db_, reading_only_, guard);
  QueryResult result;
  auto stmt = kept_statement(sql, guard.read_only ? Preparer::read_only : Preparer::guarded, result.error);
  if (!stmt) return result;
  result = rows_of(*stmt);
  if (result.error == "interrupted" && guard.budget_seconds > 0) {
    result.stopped = true;
    result.error = fmt::format("stopped after {} s, its time budget", guard.budget_seconds);
  }
  return result;
}

std::string Database::check_read_only(std::string_view sql) {
  const Guarded on(db_, reading_only_, QueryGuard{true, 0});
  std::string why;
  prepare_guarded(sql, true, why);
  return why;
}

std::unique_ptr<Database> Database::open_read_only(const std::string& path, std::string& error) {
  sqlite3* db = connect(path, SQLITE_OPEN_READONLY, error);
  return db ? std::unique_ptr<Database>(new Database(db)) : nullptr;
}

}  // namespace culprit::store
