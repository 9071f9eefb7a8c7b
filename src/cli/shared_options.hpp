// The options several subcommands take, each defined once (name, value and help text) so that
// `diagnose`, `scan` and `timeline` cannot drift apart: a command adds the ones it takes to its
// own table. The man page and the completions are generated from those tables (command_table.hpp).
#pragma once

#include <boost/program_options.hpp>

#include <string>
#include <vector>

namespace culprit::cli {

/// --format/-f FORMAT, one of `choices` (the first is the default), e.g. {"text", "markdown", "json"}.
void add_format_option(boost::program_options::options_description& opts, std::string& format,
                       const std::vector<std::string>& choices);
/// --output/-o FILE: the report goes to FILE (written atomically) instead of standard output.
void add_output_option(boost::program_options::options_description& opts, std::string& output);
/// --redact: host names, IPs, user names, container ids and pod uids become placeholders.
void add_redact_option(boost::program_options::options_description& opts, bool& redact);
/// --host NAME: the host of inputs that name none.
void add_host_option(boost::program_options::options_description& opts, std::string& host);
/// --tz ZONE: the zone of time stamps that carry none.
void add_tz_option(boost::program_options::options_description& opts, std::string& tz);
/// --rules DIR (repeatable): rule files loaded beside the built-in ones.
void add_rules_option(boost::program_options::options_description& opts, std::vector<std::string>& dirs);
/// --exclude GLOB (repeatable): files skipped by name.
void add_exclude_option(boost::program_options::options_description& opts, std::vector<std::string>& globs);
/// --year YEAR: the year of stamps that carry none.
void add_year_option(boost::program_options::options_description& opts, int& year);

}  // namespace culprit::cli
