// `culprit query [--db] FILE "SQL"`: runs one read-only SQL statement over a saved timeline and
// prints a table (tab-separated with a header). The file is opened read-only and the statement
// runs under store::QueryGuard: a write, ATTACH, PRAGMA or a second statement is refused (exit
// 2) and nothing on disk changes; `--timeout` stops a query that runs too long (Ctrl-C too).
#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <filesystem>
#include <iostream>

#include "cli/commands.hpp"
#include "culprit/store/database.hpp"

namespace culprit::cli {
namespace po = boost::program_options;

int run_query(const std::vector<std::string>& args) {
  po::options_description opts("culprit query options");
  std::string db_path;
  std::vector<std::string> positional;
  double timeout = 0;
  opts.add_options()("help,h", "show this help")("db", po::value(&db_path), "timeline database (from diagnose --db)")(
      "timeout", po::value(&timeout)->default_value(0), "stop the query after SECONDS (0: no limit)");
  po::options_description hidden;
  hidden.add_options()("arg", po::value(&positional)->composing(), "FILE and SQL");
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("arg", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    if (vm.count("help")) {
      std::cout << "Usage: culprit query [--db] FILE \"SQL\"   (one read-only statement)\n" << opts;
      return 0;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "culprit query: {}\n", e.what());
    return kExitError;
  }
  // `culprit query FILE "SQL"` and `culprit query --db FILE "SQL"` are one command.
  if (db_path.empty() && positional.size() == 2) {
    db_path = positional[0];
    positional.erase(positional.begin());
  }
  if (db_path.empty() || positional.size() != 1) {
    fmt::print(stderr, "culprit query: give a timeline FILE and one SQL statement: culprit query FILE \"SQL\"\n");
    return kExitError;
  }
  if (timeout < 0) {
    fmt::print(stderr, "culprit query: --timeout {} is negative (seconds, 0 for no limit)\n", timeout);
    return kExitError;
  }
  const std::string& sql = positional[0];
  if (!std::filesystem::exists(db_path)) {
    fmt::print(stderr, "culprit query: {}: no such database (write one with `culprit diagnose --db {} …`)\n", db_path,
               db_path);
    return kExitError;
  }
  std::string error;
  auto db = store::Database::open_read_only(db_path, error);
  if (!db) {
    fmt::print(stderr, "culprit query: {}: {}\n", db_path, error);
    return kExitError;
  }
  const auto version = db->query("PRAGMA user_version");
  if (version.rows.empty() || version.rows[0].values.empty() ||
      version.rows[0].values[0].as_int().value_or(-1) != store::Database::schema_version()) {
    fmt::print(stderr, "culprit query: {} is not a culprit timeline of this version\n", db_path);
    return kExitError;
  }
  auto result = db->query(sql, store::QueryGuard{true, timeout});
  if (!result.error.empty()) {
    fmt::print(stderr, "culprit query: {}\n", result.error);
    return kExitError;
  }
  fmt::print("{}\n", fmt::join(result.columns, "\t"));
  for (const auto& row : result.rows) {
    std::vector<std::string> cells;
    for (const auto& v : row.values) cells.push_back(v.as_text());
    fmt::print("{}\n", fmt::join(cells, "\t"));
  }
  return result.rows.empty() ? kExitNothing : 0;
}

}  // namespace culprit::cli
