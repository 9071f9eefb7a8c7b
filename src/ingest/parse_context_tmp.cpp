// TEMPORARY (wt-kernel): stand-in for the lead's src/ingest/parse_context.cpp so parser tests
// link. Delete after merging main once the real one lands.
#include "culprit/ingest/parser.hpp"

namespace culprit::ingest {

core::Event ParseContext::make_event(std::int64_t seg_line) const {
  core::Event e;
  e.source_id = source_id;
  e.host = host;
  e.line = absolute_line(seg_line);
  e.line_end = e.line;
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
