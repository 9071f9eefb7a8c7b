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

int allow_reads(void*, int action, const char* arg1, const char*, const char*, const char*) {
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

/// Installs the guard's authorizer and progress handler for its lifetime.
class Guarded {
 public:
  Guarded(sqlite3* db, const QueryGuard& guard) : db_(db) {
    if (guard.read_only) sqlite3_set_authorizer(db_, allow_reads, nullptr);
    if (guard.budget_seconds > 0) {
      deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(guard.budget_seconds));
      sqlite3_progress_handler(db_, 10000, past_deadline, &deadline_);
    }
  }
  ~Guarded() {
    sqlite3_set_authorizer(db_, nullptr, nullptr);
    sqlite3_progress_handler(db_, 0, nullptr, nullptr);
  }
  Guarded(const Guarded&) = delete;
  Guarded& operator=(const Guarded&) = delete;

 private:
  sqlite3* db_;
  Clock::time_point deadline_{};
};

/// True when `tail` (what follows the first statement) holds only blanks and comments.
bool only_blanks(const char* tail, const char* end) {
  while (tail < end) {
    if (*tail == ' ' || *tail == '\t' || *tail == '\n' || *tail == '\r' || *tail == ';') {
      ++tail;
    } else if (end - tail >= 2 && tail[0] == '-' && tail[1] == '-') {
      while (tail < end && *tail != '\n') ++tail;
    } else if (end - tail >= 2 && tail[0] == '/' && tail[1] == '*') {
      const char* close = tail + 2;
      while (close + 1 < end && !(close[0] == '*' && close[1] == '/')) ++close;
      if (close + 1 >= end) return false;
      tail = close + 2;
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

QueryResult Database::query(std::string_view sql, const QueryGuard& guard) {
  // One prepare, under the guard: the authorizer sees the statement as it is compiled, and the
  // statement that passed the checks is the one that runs.
  const Guarded on(db_, guard);
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  const int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &raw, &tail);
  QueryResult refused;
  if (rc != SQLITE_OK || !raw) {
    refused.error = rc == SQLITE_AUTH ? std::string(kOnlyReading) : rc == SQLITE_OK ? "no SQL statement"
                                                                                  : sqlite3_errmsg(db_);
    if (raw) sqlite3_finalize(raw);
    return refused;
  }
  Statement stmt(raw);  // finalizes it
  if (guard.read_only) {
    if (auto why = read_only_problem(raw, tail, sql); !why.empty()) {
      refused.error = why;
      return refused;
    }
  }
  auto result = rows_of(stmt);
  if (result.error == "interrupted" && guard.budget_seconds > 0) {
    result.stopped = true;
    result.error = fmt::format("stopped after {} s, its time budget", guard.budget_seconds);
  }
  return result;
}

std::string Database::read_only_problem(sqlite3_stmt* stmt, const char* tail, std::string_view sql) {
  if (sqlite3_stmt_readonly(stmt) == 0) return "only reading the timeline is allowed (the statement writes)";
  if (!only_blanks(tail, sql.data() + sql.size())) return "one statement only (more follow the first)";
  return {};
}

std::string Database::check_read_only(std::string_view sql) {
  const Guarded on(db_, QueryGuard{true, 0});
  sqlite3_stmt* stmt = nullptr;
  const char* tail = nullptr;
  const int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, &tail);
  if (rc != SQLITE_OK || !stmt) {
    std::string why = rc == SQLITE_AUTH ? std::string(kOnlyReading) : rc == SQLITE_OK ? "no SQL statement"
                                                                                          : sqlite3_errmsg(db_);
    if (stmt) sqlite3_finalize(stmt);
    return why;
  }
  std::string why = read_only_problem(stmt, tail, sql);
  sqlite3_finalize(stmt);
  return why;
}

std::unique_ptr<Database> Database::open_read_only(const std::string& path, std::string& error) {
  sqlite3* db = nullptr;
  const int rc = sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  if (rc != SQLITE_OK) {
    error = db ? sqlite3_errmsg(db) : "cannot open database";
    if (db) sqlite3_close(db);
    return nullptr;
  }
  return std::unique_ptr<Database>(new Database(db));
}

}  // namespace culprit::store
