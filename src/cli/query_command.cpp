// `culprit query [--db] FILE "SQL"`: runs one read-only SQL statement over a saved timeline and
// prints a table (tab-separated with a header), or the rows as JSON (--json) or CSV (--csv); a
// blob is shown as hex (x'1bff00' in the table and CSV, "1bff00" in JSON), never as its bytes. The
// statement runs through culprit::query (culprit/timeline.hpp): the file is opened read-only, a
// write, ATTACH, PRAGMA or a second statement is refused (exit 2) and nothing on disk changes;
// `--timeout` stops a query that runs too long (Ctrl-C too).
#include <boost/program_options.hpp>
#include <fmt/format.h>

#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <variant>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "culprit/report/csv_writer.hpp"
#include "culprit/report/json_writer.hpp"
#include "culprit/timeline.hpp"

namespace culprit::cli {
namespace po = boost::program_options;

namespace {

struct QueryOptions {
  std::string db_path;
  std::vector<std::string> positional;
  double timeout = culprit::kForeignSqlSeconds;
  bool json = false, csv = false;
};

void add_query_options(po::options_description& opts, QueryOptions& o) {
  opts.add_options()
      ("help,h", "show this help")
      ("db", po::value(&o.db_path)->value_name("FILE"), "timeline database (from diagnose --db)")
      ("timeout", po::value(&o.timeout)->default_value(culprit::kForeignSqlSeconds)->value_name("SECONDS"),
       "stop the query after SECONDS (0: no limit)")
      ("json", po::bool_switch(&o.json), "print the rows as a JSON array of objects keyed by column "
                                         "(integers and reals as numbers, NULL as null, a blob as a hex string)")
      ("csv", po::bool_switch(&o.csv), "print the rows as CSV (RFC 4180) under a header; NULL is an empty field, "
                                       "an empty string \"\"");
}

/// One row as a JSON object: one key per column, in column order, SQLite's types kept (a blob as
/// its bytes in hex, "1bff00": JSON has no bytes, and a blob's are seldom UTF-8).
std::string row_json(const std::vector<std::string>& columns, const std::vector<culprit::Cell>& row) {
  report::JsonWriter w;
  w.begin_object();
  for (std::size_t i = 0; i < columns.size() && i < row.size(); ++i) {
    const auto& v = row[i];
    w.key(columns[i]);
    if (const auto* n = std::get_if<std::int64_t>(&v)) w.value(*n);
    else if (const auto* d = std::get_if<double>(&v)) w.number(*d);
    else if (const auto* t = std::get_if<std::string>(&v)) w.value(*t);
    else if (const auto* b = std::get_if<culprit::Blob>(&v)) w.value(b->hex());
    else w.null();
  }
  w.end_object();
  return w.take();
}

std::string row_csv(const std::vector<culprit::Cell>& row) {
  std::string out;
  std::vector<std::optional<std::string>> fields;
  for (const auto& v : row) {
    const auto* d = std::get_if<double>(&v);
    if (std::holds_alternative<std::monostate>(v)) fields.emplace_back(std::nullopt);
    else if (d && std::isfinite(*d)) fields.emplace_back(report::real_text(*d));
    else fields.emplace_back(culprit::cell_text(v));
  }
  report::append_csv_record(out, fields);
  return out;
}

/// One row as a tab-separated line, each cell through the terminal-safe filter (append_tsv_record).
std::string row_tsv(const std::vector<culprit::Cell>& row) {
  std::vector<std::string> cells;
  cells.reserve(row.size());
  for (const auto& v : row) cells.push_back(culprit::cell_text(v));
  std::string out;
  report::append_tsv_record(out, cells);
  return out;
}

void put(const std::string& text) { std::fwrite(text.data(), 1, text.size(), stdout); }

}  // namespace

void query_option_table(po::options_description& out) {
  static QueryOptions unused;  // the table's values point here; it is only read for documentation
  add_query_options(out, unused);
}

int run_query(const std::vector<std::string>& args) {
  QueryOptions o;
  po::options_description opts("culprit query options");
  add_query_options(opts, o);
  po::options_description hidden;
  hidden.add_options()("arg", po::value(&o.positional)->composing(), "FILE and SQL");
  po::options_description all;
  all.add(opts).add(hidden);
  po::positional_options_description pos;
  pos.add("arg", -1);
  po::variables_map vm;
  try {
    po::store(po::command_line_parser(args).options(all).positional(pos).run(), vm);
    if (vm.count("help")) {
      std::cout << "Usage: culprit query [--db] FILE \"SQL\"   (one read-only statement)\n"
                   "Prints a table (tab-separated, with a header), or --json / --csv.\n"
                << opts;
      return 0;
    }
    po::notify(vm);
  } catch (const po::error& e) {
    fmt::print(stderr, "culprit query: {}\n", e.what());
    return kExitError;
  }
  // `culprit query FILE "SQL"` and `culprit query --db FILE "SQL"` are one command.
  if (o.db_path.empty() && o.positional.size() == 2) {
    o.db_path = o.positional[0];
    o.positional.erase(o.positional.begin());
  }
  if (o.db_path.empty() || o.positional.size() != 1) {
    fmt::print(stderr, "culprit query: give a timeline FILE and one SQL statement: culprit query FILE \"SQL\"\n");
    return kExitError;
  }
  if (o.json && o.csv) {
    fmt::print(stderr, "culprit query: give --json or --csv, not both\n");
    return kExitError;
  }
  if (o.timeout < 0) {
    fmt::print(stderr, "culprit query: --timeout {} is negative (seconds, 0 for no limit)\n", o.timeout);
    return kExitError;
  }
  culprit::QueryOptions options;
  options.timeout_seconds = o.timeout;
  // Each row is printed as SQLite steps it: a result of any size is never held (30 M rows were 11 GB).
  std::vector<std::string> columns;
  const auto rows = culprit::query_each(
      o.db_path, o.positional[0], options,
      [&](const std::vector<std::string>& names) {
        columns = names;
        if (o.json) put("[");
        else if (o.csv) {
          std::string header;
          report::append_csv_record(header, {names.begin(), names.end()});
          put(header);
        } else {
          std::string header;
          report::append_tsv_record(header, names);
          put(header);
        }
      },
      [&, first = true](const std::vector<culprit::Cell>& row) mutable {
        if (o.json) put((first ? "" : ",") + row_json(columns, row));
        else put(o.csv ? row_csv(row) : row_tsv(row));
        first = false;
        return true;
      });
  if (!rows) {
    if (rows.error().code == culprit::Errc::not_found)
      fmt::print(stderr, "culprit query: {}: no such database (write one with `culprit diagnose --db {} …`)\n",
                 o.db_path, o.db_path);
    else
      fmt::print(stderr, "culprit query: {}\n", rows.error().message);
    return kExitError;
  }
  if (o.json) put("]\n");
  return *rows == 0 ? kExitNothing : 0;
}

}  // namespace culprit::cli
