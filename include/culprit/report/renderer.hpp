// Turns a diagnose::Verdict into what people and programs read: terminal text, a Markdown
// incident report, the versioned JSON contract (documented in docs/json.md), or a self-contained
// HTML report with pictures. Pure functions: no I/O, no SQL, thread-safe.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "culprit/diagnose/finding.hpp"

namespace culprit::report {

enum class Format { text, markdown, json, html };

/// Layout knobs. `color` adds ANSI colours (text only; markdown and json ignore it).
/// `width` is the terminal width in columns for text; values below 40 are raised to 40,
/// and 0 or less means "no limit" (nothing is cut or wrapped).
struct RenderOptions {
  bool color = false;
  int width = 100;
};

/// The whole report in one string, ending with a newline. JSON is one compact line
/// (so `scan` can write it as JSON Lines), keys in the documented order.
///   std::string out = render(verdict, Format::text, {.color = isatty(1), .width = 100});
std::string render(const diagnose::Verdict& verdict, Format format, const RenderOptions& options = {});

/// `text` (or `txt`) | `markdown` (or `md`) | `json` | `html` (or `htm`), case-insensitive;
/// anything else -> nullopt.
std::optional<Format> parse_format(std::string_view name);

/// The canonical name: `text`, `markdown`, `json`, `html`.
std::string_view to_string(Format format);

/// Untrusted text (a path, a host, a name) as one line of Markdown inline text, escaped as the
/// Markdown report escapes it: controls and escape sequences dropped (utf8::clean), invisible
/// format characters shown, Markdown punctuation (`|` included: a safe table cell, `<`, `[`,
/// `!`, backticks) backslash-escaped, so no tag, link, image or code span can start.
std::string markdown_inline(std::string_view raw);

}  // namespace culprit::report
