// Rule messages are templates over columns that may be empty (no host in a paste, no ledger
// reason) or end with their own full stop (a quoted error): tidy_message() mends what that
// leaves behind, so a report never reads "failed on : …" or "engine. . no other …".
#pragma once

#include <string>

namespace culprit::diagnose {

/// Drops an `on` left before an empty host (`on` then two spaces, or `on` before `:` `;` `,`
/// `.`); collapses runs of spaces; drops a space before `.` `,` `:` `;` and a doubled full stop
/// (an ellipsis stays); starts a sentence after a full stop with a capital (not after `e.g.` /
/// `i.e.`, nor a word with `_`, digits or a path; the first word may be a name and stays); trims.
std::string tidy_message(std::string text);

}  // namespace culprit::diagnose
