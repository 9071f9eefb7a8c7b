// Optional phrases and template rendering for rule messages; see phrases.hpp for the contract.
#include "phrases.hpp"

#include <fmt/args.h>
#include <fmt/format.h>

namespace culprit::diagnose {

std::string on_host_phrase(std::string_view host) {
  if (host.empty()) return {};
  return " on " + std::string(host);
}

std::string sentence_phrase(std::string_view clause) {
  while (!clause.empty() && clause.back() == ' ') clause.remove_suffix(1);
  if (clause.empty()) return {};
  std::string out = " " + std::string(clause);
  if (out[1] >= 'a' && out[1] <= 'z') out[1] = static_cast<char>(out[1] - 'a' + 'A');
  if (out.back() != '.') out += '.';
  return out;
}

std::string template_value(std::string_view column, std::string_view value) {
  const bool phrase = column.size() >= 7 && column.substr(column.size() - 7) == "_phrase";
  std::string out;
  out.reserve(value.size());
  for (const char c : value) {
    if (c == ' ' && (out.empty() ? !phrase : out.back() == ' ')) continue;
    out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

std::string render_template(const std::string& tmpl, const TemplateArgs& args) {
  fmt::dynamic_format_arg_store<fmt::format_context> store;
  for (const auto& [name, value] : args) store.push_back(fmt::arg(name.c_str(), value));
  try {
    return fmt::vformat(tmpl, store);
  } catch (const fmt::format_error&) {
    return tmpl;
  }
}

}  // namespace culprit::diagnose
