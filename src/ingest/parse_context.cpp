// ParseContext helpers and the format dispatch: one switch from format id to parser.
#include <fmt/format.h>

#include "culprit/ingest/parser.hpp"
#include "culprit/ingest/sniff.hpp"

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

void parse_segment(std::string_view text, ParseContext& ctx) {
  const std::string_view f = ctx.format;
  if (f == format::kKernelLog) parse_kernel_log(text, ctx);
  else if (f == format::kNvidiaSmiTable) parse_nvidia_smi_table(text, ctx);
  else if (f == format::kNvidiaSmiCsv) parse_nvidia_smi_csv(text, ctx);
  else if (f == format::kNvidiaSmiQ) parse_nvidia_smi_q(text, ctx);
  else if (f == format::kNvidiaSmiXml) parse_nvidia_smi_xml(text, ctx);
  else if (f == format::kFree) parse_free(text, ctx);
  else if (f == format::kPs) parse_ps(text, ctx);
  else if (f == format::kDockerPs) parse_docker_ps(text, ctx);
  else if (f == format::kJournalJson) parse_journal_json(text, ctx);
  else if (f == format::kDockerInspect) parse_docker_inspect(text, ctx);
  else if (f == format::kKubectlDescribe) parse_kubectl_describe(text, ctx);
  else parse_app_log(text, ctx);
}

}  // namespace culprit::ingest
