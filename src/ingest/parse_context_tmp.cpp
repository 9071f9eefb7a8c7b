// TEMPORARY (wt-gpu): ParseContext::make_event / note until the lead's
// src/ingest/parse_context.cpp lands on main. Delete this file when merging main.
#include "culprit/ingest/parser.hpp"

namespace culprit::ingest {

core::Event ParseContext::make_event(std::int64_t seg_line) const {
  core::Event e;
  e.source_id = source_id;
  e.line = absolute_line(seg_line);
  e.line_end = e.line;
  e.host = host;
  return e;
}

void ParseContext::note(std::string code, std::int64_t seg_line, std::string message) const {
  if (!diagnostics) return;
  core::Diagnostic d;
  d.level = core::DiagLevel::note;
  d.code = std::move(code);
  d.where = source_name + ":" + std::to_string(absolute_line(seg_line));
  d.message = std::move(message);
  diagnostics->push_back(std::move(d));
}

}  // namespace culprit::ingest
