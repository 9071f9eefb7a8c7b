// Ingest of one input's text: segment (pastes), sniff each segment, parse it into the sink.
#pragma once

#include <string>
#include <string_view>

#include "culprit/core/diagnostic.hpp"
#include "culprit/core/event_sink.hpp"
#include "culprit/text/signal_set.hpp"

namespace culprit::ingest {

struct IngestInput {
  std::string name;    ///< display name used in evidence (`spark-b/worker.log`, `<stdin>`)
  std::string host;    ///< host from the input layout or --host ('' unknown)
  std::string origin;  ///< the input path
  std::string_view text;
};

struct IngestOptions {
  int year_hint = 0;   ///< year for stamps without one (0: leave to clock alignment)
};

/// What ingest did with one input, for the report's sources list and skip notes.
struct IngestStats {
  std::int64_t lines = 0;
  std::int64_t segments = 0;
  bool skipped = false;
};

/// Segments `input.text`, gives every segment its own source row (format, host, first line)
/// and parses it. Binary or empty inputs are skipped with a diagnostic naming the input.
IngestStats ingest(const IngestInput& input, const text::SignalSet& signals, core::EventSink& sink,
                   core::Diagnostics& diagnostics, const IngestOptions& options = {});

}  // namespace culprit::ingest
