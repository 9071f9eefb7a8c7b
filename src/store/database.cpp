// SQLite connection, statements and transactions. Errors come back as strings; nothing throws.
#include "culprit/store/database.hpp"

#include <sqlite3.h>

#include "sqlite_memory.hpp"

#include <fmt/format.h>

#include <cstdlib>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace culprit::store {
namespace embedded {
const std::vector<std::pair<std::string_view, std::string_view>>& files();
}

std::optional<std::int64_t> Value::as_int() const {
  if (type == Type::integer) return i;
  if (type == Type::real) return static_cast<std::int64_t>(d);
  if (type == Type::text) {
    try { return std::stoll(s); } catch (...) { return std::nullopt; }
  }
  return std::nullopt;
}

std::optional<double> Value::as_double() const {
  if (type == Type::real) return d;
  if (type == Type::integer) return static_cast<double>(i);
  if (type == Type::text) {
    try { return std::stod(s); } catch (...) { return std::nullopt; }
  }
  return std::nullopt;
}

std::string Value::as_text() const {
  switch (type) {
    case Type::null: return "";
    case Type::integer: return std::to_string(i);
    case Type::real: return fmt::format("{}", d);
    case Type::text: return s;
  }
  return "";
}

const Value& Row::operator[](std::string_view column) const {
  static const Value kNull;
  if (!columns) return kNull;
  for (size_t k = 0; k < columns->size() && k < values.size(); ++k)
    if ((*columns)[k] == column) return values[k];
  return kNull;
}

sqlite3* Database::connect(const std::string& path, int flags, std::string& error) {
  // Before the process's first connection: culprit reads no SQLite memory statistics, and keeping
  // them takes a global mutex around every allocation SQLite makes (7 % of a paste's
  // instructions, most of them while queries are prepared). A process that started SQLite before
  // (Python's sqlite3 in the same interpreter) keeps its settings: sqlite3_config refuses then.
  static std::once_flag configured;
  std::call_once(configured, [] {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
    sqlite_memory::install();
  });
  // A Database is one thread's (see the header): its connection needs no mutex of its own.
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(path.c_str(), &db, flags | SQLITE_OPEN_NOMUTEX, nullptr) == SQLITE_OK) return db;
  error = db ? sqlite3_errmsg(db) : "cannot open database";
  if (db) sqlite3_close(db);
  return nullptr;
}

/// The statements query() keeps, by how they were prepared and their SQL. `used` is the
/// generation (one per incident a scratch database served) a statement last ran in.
struct Database::Kept {
  struct Entry {
    sqlite3_stmt* stmt = nullptr;
    unsigned used = 0;
  };
  std::unordered_map<std::string, Entry> statements;
  unsigned generation = 0;

  ~Kept() {
    for (auto& [sql, entry] : statements) sqlite3_finalize(entry.stmt);
  }
  /// A statement no incident of the last kGenerations ran is finalized: SQL built with one
  /// incident's values is not seen again, so a long scan keeps a few incidents' worth, while a
  /// diagnosis only some incidents run stays prepared between them.
  static constexpr unsigned kGenerations = 4;
  static constexpr std::size_t kMaxKept = 512;
  /// Ends a generation (an incident) and starts the next.
  void next_generation() {
    for (auto it = statements.begin(); it != statements.end();) {
      if (generation - it->second.used < kGenerations) {
        ++it;
        continue;
      }
      sqlite3_finalize(it->second.stmt);
      it = statements.erase(it);
    }
    ++generation;
  }
};

Database::Database(sqlite3* db) : db_(db), kept_(std::make_unique<Kept>()) { install_authorizer(); }

std::unique_ptr<Database> Database::open(const std::string& path, std::string& error) {
  sqlite3* db = connect(path.empty() ? ":memory:" : path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, error);
  if (!db) return nullptr;
  auto result = std::unique_ptr<Database>(new Database(db));
  result->exec("PRAGMA journal_mode=MEMORY; PRAGMA synchronous=OFF; PRAGMA temp_store=MEMORY;");
  return result;
}

Database::~Database() {
  kept_.reset();  // the statements first: a connection closes once its statements are finalized
  if (db_) sqlite3_close_v2(db_);
}

namespace {
/// This thread's spare scratch database (Database::keep_as_spare).
std::unique_ptr<Database>& spare() {
  thread_local std::unique_ptr<Database> db;
  return db;
}
}  // namespace

std::unique_ptr<Database> Database::open_scratch(std::string& error) {
  if (auto db = std::move(spare())) {
    // Emptied here, when it is reused, not when it was kept: a process that diagnoses one
    // incident (a paste) never pays for it. Every table's rows go (the schema has no
    // AUTOINCREMENT, so rowids start at 1 again, as in a new database); the schema, its version
    // and the kept statements stay.
    const QueryResult tables = db->query(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'");
    std::string empty = "BEGIN;";
    for (const Row& row : tables.rows) empty += fmt::format("DELETE FROM \"{}\";", row.values[0].as_text());
    empty += "COMMIT;";
    if (tables.error.empty() && db->exec(empty).empty()) {
      db->kept_->next_generation();
      return db;
    }
  }
  auto db = open(":memory:", error);
  if (!db) return nullptr;
  if (error = db->ensure_schema(); !error.empty()) return nullptr;
  db->scratch_ = true;
  return db;
}

void Database::keep_as_spare(std::unique_ptr<Database> db) {
  if (!db || !db->scratch_ || sqlite3_get_autocommit(db->db_) == 0) return;  // not scratch, or mid-transaction
  const QueryResult size = db->query("SELECT page_count * page_size AS bytes FROM pragma_page_count, pragma_page_size");
  if (!size.error.empty() || size.rows.empty() || size.rows[0]["bytes"].as_int().value_or(kSpareBytes + 1) > kSpareBytes)
    return;
  spare() = std::move(db);
}

std::string Database::exec(std::string_view sql) {
  char* msg = nullptr;
  std::string text(sql);
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &msg);
  if (rc != SQLITE_OK) {
    std::string err = msg ? msg : sqlite3_errmsg(db_);
    sqlite3_free(msg);
    return err;
  }
  return {};
}

std::unique_ptr<Statement> Database::kept_statement(std::string_view sql, Preparer how, std::string& why) {
  std::string key;
  key.reserve(sql.size() + 1);
  key.push_back(static_cast<char>(how));
  key.append(sql);
  if (const auto it = kept_->statements.find(key); it != kept_->statements.end()) {
    it->second.used = kept_->generation;
    return std::make_unique<Statement>(it->second.stmt, false);
  }
  auto fresh = how == Preparer::plain ? prepare(sql, why) : prepare_guarded(sql, how == Preparer::read_only, why);
  // A database no incident recycles (a --db file, the Python module's) keeps at most kMaxKept;
  // past that, statements are prepared for one use as before.
  if (!fresh || kept_->statements.size() >= Kept::kMaxKept) return fresh;
  sqlite3_stmt* raw = fresh->release();
  kept_->statements.emplace(std::move(key), Kept::Entry{raw, kept_->generation});
  return std::make_unique<Statement>(raw, false);
}

namespace {
/// Binds ?1, ?2, … of `stmt` to `texts`, in order, as text.
void bind_texts(Statement& stmt, std::initializer_list<std::string_view> texts) {
  int index = 1;
  for (const std::string_view text : texts) stmt.bind(index++, text);
}
}  // namespace

std::string Database::exec_bound(std::string_view sql, std::initializer_list<std::string_view> texts) {
  std::string error;
  auto stmt = prepare(sql, error);
  if (!stmt) return error;
  bind_texts(*stmt, texts);
  while (stmt->step()) {
  }
  return stmt->error();
}

QueryResult Database::query(std::string_view sql) { return query_bound(sql, {}); }

QueryResult Database::query_bound(std::string_view sql, std::initializer_list<std::string_view> texts) {
  std::string error;
  auto stmt = kept_statement(sql, Preparer::plain, error);
  if (!stmt) {
    QueryResult failed;
    failed.error = error;
    return failed;
  }
  bind_texts(*stmt, texts);
  return rows_of(*stmt);
}

QueryResult Database::rows_of(Statement& stmt) {
  QueryResult result;
  sqlite3_stmt* s = stmt.handle();
  const int n = sqlite3_column_count(s);
  for (int c = 0; c < n; ++c) result.columns.emplace_back(sqlite3_column_name(s, c));
  while (stmt.step()) {
    Row row;
    row.values.resize(n);
    for (int c = 0; c < n; ++c) {
      Value& v = row.values[c];
      switch (sqlite3_column_type(s, c)) {
        case SQLITE_INTEGER: v.type = Value::Type::integer; v.i = sqlite3_column_int64(s, c); break;
        case SQLITE_FLOAT: v.type = Value::Type::real; v.d = sqlite3_column_double(s, c); break;
        case SQLITE_NULL: break;
        default: {
          v.type = Value::Type::text;
          const auto* p = reinterpret_cast<const char*>(sqlite3_column_text(s, c));
          v.s = p ? std::string(p, static_cast<size_t>(sqlite3_column_bytes(s, c))) : std::string();
        }
      }
    }
    result.rows.push_back(std::move(row));
  }
  result.error = stmt.error();
  // Every row shares one copy of the column names (not a pointer into `result`, which moves).
  const auto columns = std::make_shared<const std::vector<std::string>>(result.columns);
  for (auto& row : result.rows) row.columns = columns;
  return result;
}

std::unique_ptr<Statement> Database::prepare(std::string_view sql, std::string& error) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &stmt, nullptr);
  if (rc != SQLITE_OK || !stmt) {
    error = sqlite3_errmsg(db_);
    if (stmt) sqlite3_finalize(stmt);
    if (error.empty() || rc == SQLITE_OK) error = "empty statement";
    return nullptr;
  }
  return std::make_unique<Statement>(stmt);
}

std::string Database::check(std::string_view sql) {
  std::string error;
  auto stmt = prepare(sql, error);
  return stmt ? std::string() : error;
}

std::int64_t Database::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }

std::string_view Database::schema() {
  for (const auto& [name, text] : embedded::files())
    if (name == "schema.sql") return text;
  return {};
}

std::string sql_literal(std::string_view s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') out += '\'';
    out += c;
  }
  return out + "'";
}

int Database::schema_version() {
  // One home for the number: schema.sql's `PRAGMA user_version = N;`.
  static const int version = [] {
    const std::string_view text = schema();
    constexpr std::string_view key = "PRAGMA user_version = ";
    const std::size_t at = text.find(key);
    return at == std::string_view::npos ? 0 : std::atoi(std::string(text.substr(at + key.size(), 8)).c_str());
  }();
  return version;
}

std::string Database::ensure_schema() {
  QueryResult tables = query("SELECT count(*) AS n FROM sqlite_master WHERE type='table'");
  if (!tables.error.empty()) return tables.error;
  const auto n = tables.rows.empty() ? 0 : tables.rows[0]["n"].as_int().value_or(0);
  if (n == 0) return exec(schema());
  QueryResult version = query("PRAGMA user_version");
  const auto v = version.rows.empty() ? 0 : version.rows[0].values[0].as_int().value_or(0);
  if (v != schema_version())
    return fmt::format("the database has schema version {} but this culprit writes version {}; "
                       "use another --db file", v, schema_version());
  return {};
}

Statement::~Statement() {
  if (!stmt_) return;
  if (owned_) {
    sqlite3_finalize(stmt_);
  } else {
    sqlite3_reset(stmt_);  // ready for its next use, and no read left open on the tables
    sqlite3_clear_bindings(stmt_);
  }
}

void Statement::bind(int index, std::int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
void Statement::bind(int index, double value) { sqlite3_bind_double(stmt_, index, value); }
void Statement::bind(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
}
void Statement::bind_null(int index) { sqlite3_bind_null(stmt_, index); }

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc != SQLITE_DONE) error_ = sqlite3_errmsg(sqlite3_db_handle(stmt_));
  return false;
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

Transaction::Transaction(Database& db) : db_(db) { db_.exec("BEGIN"); }
Transaction::~Transaction() {
  if (!done_) db_.exec("ROLLBACK");
}
std::string Transaction::commit() {
  done_ = true;
  return db_.exec("COMMIT");
}

}  // namespace culprit::store
