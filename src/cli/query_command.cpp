// `culprit query --db FILE "SQL"`: runs SQL over a saved timeline and prints a table
// (tab-separated with a header), or JSON lines with --json.
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
  std::string db_path, sql;
  opts.add_options()("help,h", "show this help")("db", po::value(&db_path)->required(), "timeline database (from diagnose --db)")(
      "sql", po::value(&sql)->required(), "the SQL query");
  po::positional_options_description pos;
  pos.add("sql", 1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(opts).positional(pos).run(), vm);
    if (vm.count("help")) {
      std::cout << "Usage: culprit query --db FILE \"SQL\"\n" << opts;
      return 0;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "culprit query: {}\n", e.what());
    return kExitError;
  }
  if (!std::filesystem::exists(db_path)) {
    fmt::print(stderr, "culprit query: {}: no such database (write one with `culprit diagnose --db {} …`)\n", db_path,
               db_path);
    return kExitError;
  }
  std::string error;
  auto db = store::Database::open(db_path, error);
  if (!db) {
    fmt::print(stderr, "culprit query: {}: {}\n", db_path, error);
    return kExitError;
  }
  auto result = db->query(sql);
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
