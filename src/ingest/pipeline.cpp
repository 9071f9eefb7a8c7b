// The ingest pipeline for one input: binary/empty check, segmentation, one source row per
// segment, then the segment's parser.
#include "culprit/ingest/pipeline.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "culprit/ingest/parser.hpp"
#include "culprit/ingest/sniff.hpp"

namespace culprit::ingest {

IngestStats ingest(const IngestInput& input, const text::SignalSet& signals, core::EventSink& sink,
                   core::Diagnostics& diagnostics, const IngestOptions& options) {
  IngestStats stats;
  const std::string kind = sniff_format(input.text.substr(0, std::min<size_t>(input.text.size(), 65536)));
  if (kind == format::kBinary || kind == format::kEmpty) {
    stats.skipped = true;
    diagnostics.push_back({core::DiagLevel::warning, kind == format::kBinary ? "input-binary" : "input-empty",
                           input.name,
                           kind == format::kBinary
                               ? std::string("binary data (NUL or control bytes), not a log; skipped")
                               : std::string("empty input; nothing to read")});
    core::SourceInfo info;
    info.name = input.name;
    info.host = input.host;
    info.format = kind;
    info.bytes = static_cast<std::int64_t>(input.text.size());
    info.origin = input.origin;
    sink.add_source(info);
    return stats;
  }
  const auto segments = segment_text(input.text);
  for (const auto& seg : segments) {
    core::SourceInfo info;
    info.name = input.name;
    info.host = seg.host.empty() ? input.host : seg.host;
    info.format = seg.format;
    info.bytes = static_cast<std::int64_t>(seg.text.size());
    info.lines = static_cast<std::int64_t>(std::count(seg.text.begin(), seg.text.end(), '\n')) + 1;
    info.first_line = seg.first_line;
    info.origin = input.origin;
    ParseContext ctx;
    ctx.sink = &sink;
    ctx.signals = &signals;
    ctx.diagnostics = &diagnostics;
    ctx.source_id = sink.add_source(info);
    ctx.source_name = input.name;
    ctx.host = info.host;
    ctx.format = seg.format;
    ctx.first_line = seg.first_line;
    ctx.year_hint = options.year_hint;
    parse_segment(seg.text, ctx);
    stats.lines += info.lines;
    ++stats.segments;
  }
  return stats;
}

}  // namespace culprit::ingest
