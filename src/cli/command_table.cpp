// The subcommand table and the readers of option tables (command_table.hpp).
#include "cli/command_table.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>
#include <regex>
#include <sstream>

#include "cli/commands.hpp"
#include "cli/scan_support.hpp"

namespace culprit::cli {
namespace po = boost::program_options;
namespace {

std::function<std::vector<OptionDoc>()> from_table(void (*fill)(po::options_description&)) {
  return [fill] {
    po::options_description table;
    fill(table);
    return option_docs(table);
  };
}

}  // namespace

const std::vector<CommandDoc>& command_table() {
  static const std::vector<CommandDoc> table = {
      {"diagnose", "culprit [diagnose] [options] INPUT...", "diagnose logs (files, folders, archives, - for stdin)",
       Operands::files, from_table(diagnose_option_table)},
      {"scan", "culprit scan [options] PATH...", "one verdict per incident (archive or folder) of a batch",
       Operands::files, from_table(scan_option_table)},
      {"merge", "culprit merge FILE...", "join `scan` shard outputs (JSON Lines or --db)", Operands::files,
       from_table(merge_option_table)},
      {"timeline", "culprit timeline [options] INPUT...", "the merged cross-host timeline (or --db FILE)",
       Operands::files, from_table(timeline_option_table)},
      {"query", "culprit query [options] FILE \"SQL\"", "run SQL over a saved timeline (--json, --csv)",
       Operands::files, from_table(query_option_table)},
      // `run` and `collect` keep their tables inside their parsers: read from their --help.
      {"run", "culprit run [options] -- CMD [ARGS...]", "run a job; when it fails, snapshot the node and diagnose",
       Operands::command, [] { return options_from_help(run_run); }},
      {"collect", "culprit collect [--ssh HOST]... [-o DIR]", "snapshot this node (or HOSTs over ssh) for diagnosis",
       Operands::none, [] { return options_from_help(run_collect); }},
      {"rules check", "culprit rules check [DIR...]", "validate the built-in rules (and those in DIR)",
       Operands::files, from_table(rules_option_table)},
      {"rules literals", "culprit rules literals [DIR...]", "print the rules' prefilter literals, one per line",
       Operands::files, from_table(rules_option_table)},
  };
  return table;
}

std::vector<std::string> choices_in(const std::string& description) {
  static const std::regex list(R"(([a-z][a-z0-9_-]*)((?: \| [a-z][a-z0-9_-]*)+))");
  std::smatch m;
  if (!std::regex_search(description, m, list)) return {};
  std::vector<std::string> out{m[1].str()};
  const std::string rest = m[2].str();
  static const std::regex word(R"([a-z][a-z0-9_-]*)");
  for (std::sregex_iterator it(rest.begin(), rest.end(), word), end; it != end; ++it) out.push_back(it->str());
  return out;
}

std::vector<OptionDoc> option_docs(const po::options_description& table) {
  std::vector<OptionDoc> out;
  for (const auto& option : table.options()) {
    OptionDoc doc;
    doc.long_name = option->long_name();
    // `-f [ --format ]` or `--format`: the short name is the letter after the first dash.
    const std::string shown = option->format_name();
    if (shown.size() > 1 && shown[0] == '-' && shown[1] != '-') doc.short_name = shown.substr(1, 1);
    if (option->semantic()->max_tokens() > 0) {
      // `FILE` or `arg (=text)`
      std::string name = option->semantic()->name();
      if (const auto eq = name.find(" (="); eq != std::string::npos) {
        doc.default_value = name.substr(eq + 3, name.size() - eq - 4);
        name.erase(eq);
      }
      doc.value_name = name;
    }
    doc.description = option->description();
    doc.choices = doc.value_name.empty() ? std::vector<std::string>{} : choices_in(doc.description);
    out.push_back(std::move(doc));
  }
  return out;
}

std::vector<OptionDoc> options_from_help(const std::function<int(const std::vector<std::string>&)>& run_help) {
  std::ostringstream captured;
  std::streambuf* const saved = std::cout.rdbuf(captured.rdbuf());
  run_help({"--help"});
  std::cout.rdbuf(saved);
  // Boost prints `  -o [ --output ] arg (=x)   description` with the description wrapped under
  // its own column; a long name can push the description to the next line.
  static const std::regex head(R"(^  (?:-([A-Za-z0-9]) \[ --([A-Za-z0-9-]+) \]|--([A-Za-z0-9-]+))(?: ([A-Za-z]+)(?: \(=([^)]*)\))?)?(?:\s+(.*))?$)");
  std::vector<OptionDoc> out;
  std::istringstream lines(captured.str());
  std::string line;
  while (std::getline(lines, line)) {
    std::smatch m;
    if (std::regex_match(line, m, head)) {
      OptionDoc doc;
      doc.short_name = m[1].str();
      doc.long_name = m[2].matched ? m[2].str() : m[3].str();
      doc.value_name = m[4].str();
      doc.default_value = m[5].str();
      doc.description = m[6].str();
      out.push_back(std::move(doc));
    } else if (!out.empty() && line.size() > 4 && line.compare(0, 4, "    ") == 0) {
      const auto start = line.find_first_not_of(' ');
      auto& d = out.back().description;
      if (!d.empty()) d += ' ';
      d.append(line, start);
    } else if (!out.empty() && line.empty()) {
      break;  // the end of the table
    }
  }
  for (auto& doc : out)
    if (!doc.value_name.empty()) doc.choices = choices_in(doc.description);
  return out;
}

std::string usage_text() {
  std::size_t width = 0;
  for (const auto& c : command_table()) width = std::max(width, c.synopsis.size());
  std::string out = "culprit — post-mortem failure diagnosis for GPU and ML jobs\n\nUsage:\n";
  for (const auto& c : command_table()) out += fmt::format("  {:<{}}   {}\n", c.synopsis, width, c.summary);
  out += "  culprit --help | --version\n\n"
         "With no INPUT, standard input is read when it is a pipe or a file (`pbpaste | culprit`).\n"
         "Run `culprit COMMAND --help` for a command's options (`culprit diagnose --help` for diagnose).\n\n"
         "Exit codes: 0 a verdict was reached, 1 nothing known was found, 2 errors (no readable input\n"
         "among them). `culprit run` exits with the job's own status instead.\n";
  return out;
}

}  // namespace culprit::cli
