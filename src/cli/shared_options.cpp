// The shared option definitions (shared_options.hpp).
#include "cli/shared_options.hpp"

#include <fmt/format.h>

namespace culprit::cli {
namespace po = boost::program_options;

void add_format_option(po::options_description& opts, std::string& format, const std::vector<std::string>& choices) {
  // The description is kept in a member of the table, so it may be built here.
  opts.add_options()("format,f", po::value(&format)->default_value(choices.front())->value_name("FORMAT"),
                     fmt::format("output format: {}", fmt::join(choices, " | ")).c_str());
}

void add_output_option(po::options_description& opts, std::string& output) {
  opts.add_options()("output,o", po::value(&output)->value_name("FILE"), "write the output to FILE (atomically) instead of stdout");
}

void add_redact_option(po::options_description& opts, bool& redact) {
  opts.add_options()("redact", po::bool_switch(&redact),
                     "replace host names, IPs, user names, container ids and pod uids with placeholders "
                     "(host-1, ip-1, user-1, …) to share the output");
}

void add_host_option(po::options_description& opts, std::string& host) {
  opts.add_options()("host", po::value(&host)->value_name("NAME"), "host name for inputs that name none");
}

void add_tz_option(po::options_description& opts, std::string& tz) {
  opts.add_options()("tz", po::value(&tz)->value_name("ZONE"), "zone of time stamps that carry none: UTC, +02:00, or a name such as "
                                           "Europe/Berlin (default: each host's own zoned stamps, else UTC)");
}

void add_rules_option(po::options_description& opts, std::vector<std::string>& dirs) {
  opts.add_options()("rules", po::value(&dirs)->composing()->value_name("DIR"), "also load the *.toml rules under DIR (repeatable)");
}

void add_exclude_option(po::options_description& opts, std::vector<std::string>& globs) {
  opts.add_options()("exclude", po::value(&globs)->composing()->value_name("GLOB"), "skip files whose name matches GLOB (repeatable)");
}

void add_year_option(po::options_description& opts, int& year) {
  opts.add_options()("year", po::value(&year)->value_name("YEAR"), "year for time stamps that carry none, when no input gives one");
}

}  // namespace culprit::cli
