// culprit::query: one read-only statement over a saved timeline, under store::QueryGuard (the
// authorizer allows reading only; a time budget stops it), its cells copied into plain values.
#include <fmt/format.h>

#include "api/saved_timeline.hpp"
#include "culprit/timeline.hpp"

namespace culprit {

std::string Blob::hex() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  out.reserve(bytes.size() * 2);
  for (const unsigned char c : bytes) {
    out += kDigits[c >> 4];
    out += kDigits[c & 15];
  }
  return out;
}

std::string cell_text(const Cell& cell) {
  // The store's Value::as_text, so `culprit query`'s table reads as it always has; a blob as
  // SQLite's own literal, so its bytes never reach a terminal.
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&cell)) return fmt::format("{}", *d);
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  if (const auto* b = std::get_if<Blob>(&cell)) return "x'" + b->hex() + "'";
  return "";
}

Result<std::int64_t> query_each(const std::string& db_path, const std::string& sql, const QueryOptions& options,
                                const std::function<void(const std::vector<std::string>&)>& on_columns,
                                const std::function<bool(const std::vector<Cell>&)>& on_row) {
  if (!(options.timeout_seconds >= 0))
    return Error{Errc::invalid_option,
                 fmt::format("timeout {} must be seconds, 0 or more (0: no limit)", options.timeout_seconds), {}};
  auto opened = api::open_saved_timeline(db_path);
  if (opened.error) return *opened.error;
  opened.db->set_deadline(0);  // the caller's timeout, in place of the default one
  std::int64_t n = 0;
  std::vector<Cell> cells;
  // Streamed, so no row limit: the caller holds what it keeps.
  const store::QueryGuard guard{true, options.timeout_seconds, 0};
  auto error = opened.db->query_each(sql, guard, on_columns, [&](const store::Row& row) {
    cells.clear();
    for (const auto& v : row.values) {
      switch (v.type) {
        case store::Value::Type::null: cells.emplace_back(std::monostate{}); break;
        case store::Value::Type::integer: cells.emplace_back(v.i); break;
        case store::Value::Type::real: cells.emplace_back(v.d); break;
        case store::Value::Type::text: cells.emplace_back(v.s); break;
        case store::Value::Type::blob: cells.emplace_back(Blob{v.s}); break;
      }
    }
    ++n;
    return on_row(cells);
  });
  if (!error.empty()) return Error{Errc::query, error, {}};
  return n;
}

Result<Table> query(const std::string& db_path, const std::string& sql, const QueryOptions& options) {
  Table table;
  auto done = query_each(
      db_path, sql, options, [&](const std::vector<std::string>& columns) { table.columns = columns; },
      [&](const std::vector<Cell>& row) {
        table.rows.push_back(row);
        return true;
      });
  if (!done) return done.error();
  return table;
}

}  // namespace culprit
