// The table of culprit's subcommands: what `culprit --help` lists, and what the man page and the
// shell completions are generated from (`culprit --generate …`, run by the build). Each
// subcommand's options are read from the same Boost.Program_options table its parser uses, so an
// option added to a parser is in the help, the man page and the completions without more work.
#pragma once

#include <boost/program_options.hpp>

#include <functional>
#include <string>
#include <vector>

namespace culprit::cli {

/// One option as the documentation shows it.
struct OptionDoc {
  std::string long_name;    ///< `format` (without dashes); never empty
  std::string short_name;   ///< `f`, or empty
  std::string value_name;   ///< `arg`, `FILE`…; empty for a switch that takes no value
  std::string default_value;
  std::string description;
  std::vector<std::string> choices;  ///< `text | markdown | json` named in the description, if any
};

/// What a subcommand's free arguments are, for the completions.
enum class Operands { files, none, command };

struct CommandDoc {
  std::string name;      ///< `diagnose`, `rules check` (a two-word command)
  std::string synopsis;  ///< `culprit [diagnose] [options] INPUT...`
  std::string summary;   ///< one line
  Operands operands = Operands::files;
  std::function<std::vector<OptionDoc>()> options;  ///< the command's options, from its parser's table
};

/// Every subcommand, in the order `culprit --help` lists them.
const std::vector<CommandDoc>& command_table();

/// The options of a parser's table, as documented (hidden positional tables are not passed).
std::vector<OptionDoc> option_docs(const boost::program_options::options_description& table);

/// The options listed by a subcommand's `--help` (Boost's printed table), for the subcommands
/// whose table is not exposed; `run_help` is the subcommand called with {"--help"}.
std::vector<OptionDoc> options_from_help(const std::function<int(const std::vector<std::string>&)>& run_help);

/// The words of a choice list in a description (`output format: text | markdown | json`).
std::vector<std::string> choices_in(const std::string& description);

/// `culprit --help`: the usage, one line per subcommand.
std::string usage_text();

/// The option tables of the subcommands that expose theirs (defined beside each parser).
void diagnose_option_table(boost::program_options::options_description& out);
void scan_option_table(boost::program_options::options_description& out);
void timeline_option_table(boost::program_options::options_description& out);
void query_option_table(boost::program_options::options_description& out);
void merge_option_table(boost::program_options::options_description& out);
void rules_option_table(boost::program_options::options_description& out);

/// `culprit --generate man | complete-bash | complete-zsh | complete-fish` (hidden; the build runs it).
int run_generate(const std::vector<std::string>& args);
std::string generate_man_page();
std::string generate_bash_completion();
std::string generate_zsh_completion();
std::string generate_fish_completion();

}  // namespace culprit::cli
