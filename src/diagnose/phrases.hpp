// Rule messages and advice are fmt templates over named values (rules/README.md, "Message
// phrases"). A value that can be missing is passed as an optional phrase — empty, or complete
// with its own leading separator (" on gpu07", " Another process holds 10 GiB.") — so every
// rendering is already well-formed and nothing mends the text afterwards.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace culprit::diagnose {

/// A template's named values, in lookup order (a name appears once).
using TemplateArgs = std::vector<std::pair<std::string, std::string>>;

/// `{on_host}`: " on <host>", or empty when the host is unknown (a paste without one).
std::string on_host_phrase(std::string_view host);

/// `{ledger_sentence}`: a clause as a sentence of its own — " <Clause>." with a capital and one
/// full stop — or empty when the clause is.
std::string sentence_phrase(std::string_view clause);

/// A query column's value as a template takes it: one space for each run of spaces (a quoted log
/// line keeps its words, not its alignment), no trailing space, and no leading one unless the
/// column is a phrase (`*_phrase`: its leading space is its separator).
std::string template_value(std::string_view column, std::string_view value);

/// `tmpl` rendered with `args`; a template the loader let through but fmt rejects (a name with no
/// value) is returned as written, so the report shows it rather than nothing.
std::string render_template(const std::string& tmpl, const TemplateArgs& args);

}  // namespace culprit::diagnose
