// A thin RAII wrapper over SQLite: open, exec, prepared statements, transactions.
// SQLite stays private to the store module; values cross as std::optional / strings.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace culprit::store {

/// A cell read back from a query. Integers and reals keep their type; NULL is `is_null`. A
/// blob's bytes are in `s` as a text's are (as_text gives them as they are); its type says that
/// they are bytes, so that a printer can show them as hex.
struct Value {
  enum class Type { null, integer, real, text, blob } type = Type::null;
  std::int64_t i = 0;
  double d = 0;
  std::string s;
  bool is_null() const { return type == Type::null; }
  std::optional<std::int64_t> as_int() const;
  std::optional<double> as_double() const;
  std::string as_text() const;  ///< integers and reals formatted; NULL -> ""
};

/// One result row. It shares its result's column names, so a row stays valid when the
/// QueryResult it came from is moved, copied or gone.
struct Row {
  std::shared_ptr<const std::vector<std::string>> columns;
  std::vector<Value> values;
  const Value& operator[](std::string_view column) const;  ///< NULL value if absent
};

struct QueryResult {
  std::vector<std::string> columns;
  std::vector<Row> rows;
  std::string error;  ///< empty on success
  bool stopped = false;  ///< a QueryGuard's time budget or row limit ran out (error says so)
};

/// The most rows a guarded query returns (a rule's [[diagnosis]]): each row is a finding, and
/// findings past a few thousand tell nobody anything, while 2·10^7 rows held 5 GB.
inline constexpr std::int64_t kGuardedRowLimit = 100000;

/// How a query from someone else (a rule, `culprit query`) may run: `read_only` lets SQLite's
/// authorizer allow only reading tables and calling functions (no write, ATTACH, PRAGMA or
/// transaction); `budget_seconds` > 0 stops the query after that long ("interrupted");
/// `max_rows` > 0 stops it at that many rows (a query that streams its rows passes 0).
struct QueryGuard {
  bool read_only = false;
  double budget_seconds = 0;
  std::int64_t max_rows = kGuardedRowLimit;
};

class Statement;

/// `s` as an SQL string literal ('it''s'), for the queries that are built as text.
std::string sql_literal(std::string_view s);

/// `column NOT IN (values)` for a NOT NULL text column of BINARY collation, written as the ranges
/// between the values (`(column < 'a' OR (column > 'a' AND column < 'b') OR column > 'b')`): the
/// same rows, which an index leading with the column reads range by range. A NOT IN reads every
/// row: the events' `kind <> 'log'` read all of a log where a tenth of the lines are `log` events.
std::string not_in_sql(std::string_view column, std::vector<std::string_view> values);

/// A SELECT of the distinct values of `column` in `table` other than NULL, in increasing order,
/// as one column named `column`: each found by one search of an index that leads with the
/// column (the least value past the last one found), where a DISTINCT reads every row (the
/// events' few kinds among 10^4 routine lines).
std::string distinct_sql(std::string_view table, std::string_view column);

/// `path` as an SQLite URI (`file:` and the path, percent-encoded) with `parameters` appended
/// (`mode=ro&immutable=1`), for connections and ATTACH that must not take a name as a URI by chance.
std::string sqlite_uri(const std::string& path, std::string_view parameters = {});

/// Owns one connection. Not thread-safe (one per thread).
class Database {
 public:
  /// `path` empty or ":memory:" opens an in-memory database.
  static std::unique_ptr<Database> open(const std::string& path, std::string& error);
  ~Database();

  /// Executes one or more statements; returns an error message or empty.
  std::string exec(std::string_view sql);
  /// Executes one statement with its parameters ?1, ?2, … bound to `texts` as text (as
  /// query_bound); returns an error message or empty. Not kept: for SQL built with other values.
  std::string exec_bound(std::string_view sql, std::initializer_list<std::string_view> texts);
  /// Runs a query and returns all rows (for diagnoses and `culprit query`).
  QueryResult query(std::string_view sql);
  /// query() with its parameters ?1, ?2, … bound to `texts`, in order, as text: for a query run
  /// with many values (a host name), one statement is prepared and kept, where SQL built with
  /// each value written in (sql_literal) is a new statement to compile every time.
  QueryResult query_bound(std::string_view sql, std::initializer_list<std::string_view> texts);
  /// The same with as many values as a query built from optional conditions needs.
  QueryResult query_bound(std::string_view sql, const std::vector<std::string>& texts);
  /// The same under `guard` (query_guard.cpp); a refused or stopped query has `error` set.
  QueryResult query(std::string_view sql, const QueryGuard& guard);
  /// query(sql, guard) streamed: `columns` gets the column names once, then `row` each row as it is
  /// stepped (the Row is reused: copy what is kept), so nothing is held; `row` returns false to
  /// stop. `guard.max_rows` applies. Returns the error, or empty.
  std::string query_each(std::string_view sql, const QueryGuard& guard,
                         const std::function<void(const std::vector<std::string>&)>& columns,
                         const std::function<bool(const Row&)>& row);
  /// query_each() with its parameters ?1, ?2, … bound to `texts`, in order, as text.
  std::string query_each_bound(std::string_view sql, const std::vector<std::string>& texts, const QueryGuard& guard,
                               const std::function<bool(const Row&)>& row);
  /// Why `sql` is not one read-only statement that compiles against the schema, or empty.
  std::string check_read_only(std::string_view sql);
  /// Opens an existing file for reading only, as immutable (`?mode=ro&immutable=1`): no lock is
  /// taken, no journal or WAL is read, rolled back, checkpointed or created, so neither the file
  /// nor anything beside it changes, whatever it is. The way culprit opens every file it reads.
  static std::unique_ptr<Database> open_read_only(const std::string& path, std::string& error);
  /// What culprit will do with a database it checks: only read it, or write into it (`--db`).
  enum class TimelineUse { read, write };
  /// Why this database is not a culprit timeline of this version, or empty: it must carry this
  /// schema version, and each table of the schema must be a plain table (not a view, whose query
  /// could run forever, nor a virtual table) and each view the schema's own; to be written it
  /// must also carry culprit's application_id. A timeline from before the id (application_id 0,
  /// this version, the schema's tables) is still read. Reads only. `schema`: the database's name
  /// (an ATTACHed file's).
  std::string check_timeline(const std::string& schema = "main", TimelineUse use = TimelineUse::read);
  /// A time budget for everything this connection runs from now on (SQL over a file culprit did
  /// not write): a statement still running `seconds` from now stops with "interrupted". A
  /// QueryGuard's budget still applies within it. 0 removes it.
  void set_deadline(double seconds);
  /// Prepares a statement; nullptr and `error` set on failure.
  std::unique_ptr<Statement> prepare(std::string_view sql, std::string& error);
  /// prepare(), for SQL that is run again and again (no values written into it): the database
  /// keeps the statement, as query() does, and hands it out again, reset, for the same SQL —
  /// across the incidents a scratch database serves (open_scratch). The Statement borrows it:
  /// one user at a time.
  std::unique_ptr<Statement> prepare_kept(std::string_view sql, std::string& error) {
    return kept_statement(sql, Preparer::plain, error);
  }
  /// Checks that `sql` compiles against the current schema; returns an error or empty.
  std::string check(std::string_view sql);
  std::int64_t last_insert_id() const;
  sqlite3* handle() { return db_; }

  /// The embedded schema (src/store/schema.sql), its version (PRAGMA user_version), culprit's
  /// mark on its files (PRAGMA application_id) and its tables' names.
  static std::string_view schema();
  static int schema_version();
  static std::int64_t application_id();
  /// A table or view of the schema: its kind, name and CREATE statement as schema.sql spells it.
  struct SchemaObject {
    std::string kind, name, sql;
  };
  static const std::vector<SchemaObject>& schema_objects();
  /// Creates the schema in an empty database (by copying the pages of the build's empty timeline,
  /// else by running schema()), or checks the version of an existing one.
  std::string ensure_schema();

  /// An empty in-memory database with the schema, for one incident's timeline: this thread's
  /// spare (keep_as_spare) where it has one, else a new one. A scan runs many incidents one after
  /// another on each thread, and a spare keeps its schema and the statements query() prepared:
  /// preparing them again for every incident was ~15 % of a scan's CPU (measured, 24 incidents).
  static std::unique_ptr<Database> open_scratch(std::string& error);
  /// Keeps a database open_scratch() gave as this thread's spare, replacing any other; the next
  /// open_scratch() empties it (every table's rows). One that grew past kSpareBytes is closed
  /// instead, so a thread never holds more than that between incidents; so is any other database.
  static void keep_as_spare(std::unique_ptr<Database> db);
  static constexpr std::int64_t kSpareBytes = std::int64_t{64} << 20;

 private:
  explicit Database(sqlite3* db);
  /// Opens a connection with `flags` (both open() forms); nullptr and `error` set on failure.
  static sqlite3* connect(const std::string& path, int flags, std::string& error);
  /// Copies the build's empty timeline into this empty database; false where it could not.
  bool copy_schema_image();
  /// Steps a prepared statement to its end and reads every row (both query() forms), or the first
  /// `max_rows` (> 0) and sets `stopped`.
  static QueryResult rows_of(Statement& stmt, std::int64_t max_rows = 0);
  /// Binds ?1, ?2, … of `stmt` to `texts`, in order, as text.
  static void bind_texts(Statement& stmt, std::span<const std::string_view> texts);
  /// Both query_bound() forms: the kept statement for `sql`, `texts` bound, every row read.
  QueryResult query_bound_views(std::string_view sql, std::span<const std::string_view> texts);
  /// query_each() and query_each_bound(): `texts` bound to ?1, ?2, … before the first step.
  std::string query_each_impl(std::string_view sql, std::span<const std::string_view> texts,
                              const QueryGuard& guard,
                              const std::function<void(const std::vector<std::string>&)>& columns,
                              const std::function<bool(const Row&)>& row);
  /// The current row of `stmt` into `values` (resized to its columns).
  static void read_values(sqlite3_stmt* stmt, std::vector<Value>& values);
  /// Prepares `sql` (under the caller's guard); with `read_only`, only one read-only statement.
  /// nullptr and `why` set when it is refused or does not compile.
  std::unique_ptr<Statement> prepare_guarded(std::string_view sql, bool read_only, std::string& why);
  /// How a kept statement was prepared: by prepare(), or by prepare_guarded() with or without
  /// `read_only` (the authorizer sees a statement as it is compiled, so each kind is kept apart).
  enum class Preparer : char { plain = 'p', guarded = 'g', read_only = 'r' };
  /// The statement query() prepared for `sql` before, reset for this use, or one prepared now and
  /// kept (a failure is not kept: its error is given again each time; nor is anything once 512
  /// are kept). Borrowed: the Statement resets it when destroyed; the database finalizes it.
  std::unique_ptr<Statement> kept_statement(std::string_view sql, Preparer how, std::string& why);
  /// Installs the connection's authorizer, once: it allows everything until a read-only guard
  /// raises `reading_only_` (query_guard.cpp).
  void install_authorizer();
  sqlite3* db_ = nullptr;
  bool reading_only_ = false;
  /// The deadlines the connection's progress handler checks (query_guard.cpp): set_deadline()'s
  /// and the running QueryGuard's; 0 when unset (steady-clock nanoseconds).
  struct Deadlines {
    std::int64_t connection = 0, guard = 0;
  } deadlines_;
  void install_progress_handler();
  static int past_deadline(void* deadlines);
  struct Kept;  ///< the statements query() keeps (database.cpp)
  std::unique_ptr<Kept> kept_;
  bool scratch_ = false;  ///< from open_scratch(): keep_as_spare() may keep it
};

/// A prepared statement; bind by 1-based index, then step().
class Statement {
 public:
  /// `owned`: finalized when destroyed; else a database's kept statement, only reset.
  explicit Statement(sqlite3_stmt* stmt, bool owned = true) : stmt_(stmt), owned_(owned) {}
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  void bind(int index, std::int64_t value);
  void bind(int index, double value);
  void bind(int index, std::string_view value);
  /// bind() without SQLite's copy of the bytes: they must stay unchanged until the next step()
  /// has run, and every parameter bound so is bound again before any later step() (the
  /// statement keeps the pointer). For a row inserted from a caller's own strings.
  void bind_static(int index, std::string_view value);
  void bind_null(int index);
  template <class T>
  void bind_opt(int index, const std::optional<T>& value) {
    if (value) bind(index, *value); else bind_null(index);
  }
  /// Steps once: true while a row is available. Errors are returned through `error()`.
  bool step();
  /// The current row's column `index` (0-based), as step() left it: its integer, and its text
  /// (valid until the next step() or reset(); empty for NULL). For a pass over many rows
  /// without a QueryResult's copy of each.
  std::int64_t column_int(int index);
  std::string_view column_text(int index);
  void reset();
  const std::string& error() const { return error_; }
  sqlite3_stmt* handle() { return stmt_; }
  /// Gives up ownership: the caller finalizes the statement.
  sqlite3_stmt* release() {
    sqlite3_stmt* s = stmt_;
    stmt_ = nullptr;
    return s;
  }

 private:
  sqlite3_stmt* stmt_ = nullptr;
  bool owned_ = true;
  std::string error_;
};

/// BEGIN on construction, COMMIT on commit(), ROLLBACK if destroyed uncommitted.
class Transaction {
 public:
  explicit Transaction(Database& db);
  ~Transaction();
  std::string commit();

 private:
  Database& db_;
  bool done_ = false;
};

}  // namespace culprit::store
