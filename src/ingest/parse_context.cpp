// ParseContext helpers and the format dispatch: the format table maps an id to its parser.
#include <fmt/format.h>

#include "culprit/ingest/parser.hpp"
#include "culprit/ingest/sniff.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/format_table.hpp"

namespace culprit::ingest {

core::Event ParseContext::make_event(std::int64_t seg_line) const {
  core::Event e;
  e.source_id = source_id;
  e.line = absolute_line(seg_line);
  e.line_end = absolute_line_end(seg_line);
  e.host = host;
  return e;
}

void ParseContext::note(std::string code, std::int64_t seg_line, std::string message) const {
  if (!diagnostics) return;
  diagnostics->push_back({core::DiagLevel::note, std::move(code),
                          fmt::format("{}:{}", source_name, absolute_line(seg_line)), std::move(message)});
}

std::span<const std::string_view> ParseContext::lines_of(std::string_view text,
                                                         std::vector<std::string_view>& storage) const {
  if (lines_given_for(text)) return lines;
  storage = text::split_lines(text);
  return storage;
}

void ParseContext::unparsed(std::int64_t seg_line, std::string_view line) const {
  ParseContext one = *this;
  one.first_line = first_line + seg_line - 1;
  one.format = std::string(format::kAppLog);
  parse_app_log(line, one);
}

void parse_segment(std::string_view text, ParseContext& ctx) {
  const FormatSpec* f = find_format(ctx.format);
  (f ? f->parse : fallback_format().parse)(text, ctx);
}

}  // namespace culprit::ingest
