// culprit::query: one read-only statement over a saved timeline, under store::QueryGuard (the
// authorizer allows reading only; a time budget stops it), its cells copied into plain values.
#include <fmt/format.h>

#include "api/saved_timeline.hpp"
#include "culprit/timeline.hpp"

namespace culprit {

std::string cell_text(const Cell& cell) {
  // The store's Value::as_text, so `culprit query`'s table reads as it always has.
  if (const auto* i = std::get_if<std::int64_t>(&cell)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&cell)) return fmt::format("{}", *d);
  if (const auto* s = std::get_if<std::string>(&cell)) return *s;
  return "";
}

Result<Table> query(const std::string& db_path, const std::string& sql, const QueryOptions& options) {
  if (!(options.timeout_seconds >= 0))
    return Error{Errc::invalid_option,
                 fmt::format("timeout {} must be seconds, 0 or more (0: no limit)", options.timeout_seconds), {}};
  auto opened = api::open_saved_timeline(db_path, /*read_only=*/true);
  if (opened.error) return *opened.error;
  auto result = opened.db->query(sql, store::QueryGuard{true, options.timeout_seconds});
  if (!result.error.empty()) return Error{Errc::query, result.error, {}};
  Table table;
  table.columns = std::move(result.columns);
  table.rows.reserve(result.rows.size());
  for (auto& row : result.rows) {
    std::vector<Cell> cells;
    cells.reserve(row.values.size());
    for (auto& v : row.values) {
      switch (v.type) {
        case store::Value::Type::null: cells.emplace_back(std::monostate{}); break;
        case store::Value::Type::integer: cells.emplace_back(v.i); break;
        case store::Value::Type::real: cells.emplace_back(v.d); break;
        case store::Value::Type::text: cells.emplace_back(std::move(v.s)); break;
      }
    }
    table.rows.push_back(std::move(cells));
  }
  return table;
}

}  // namespace culprit
