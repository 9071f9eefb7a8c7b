// Reading and ingesting an incident's inputs, with big sources parsed on worker threads.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "culprit/core/core_share.hpp"
#include "culprit/core/diagnostic.hpp"
#include "culprit/core/event_sink.hpp"
#include "culprit/ingest/pipeline.hpp"
#include "culprit/input/reader.hpp"
#include "culprit/text/signal_set.hpp"

namespace culprit::api {

/// Sources this big or bigger are parsed on a worker thread when `threads` > 1; smaller ones
/// inline (a thread per small file would cost more than it saves: 10^5 tiny sources).
inline constexpr std::size_t kParallelSourceBytes = 1 << 20;

/// Produces the sources of an incident in order (input::read_inputs over paths, texts held in
/// memory), each handed to `on_source`; the reader's own problems go to `problems` as they come.
using SourceReader = std::function<void(core::Diagnostics& problems, const input::SourceHandler& on_source)>;

/// Ingests every source `read` produces into `sink`. With `threads` > 1, up to that many big
/// sources are parsed at once (while the calling thread reads the next) into recorded sinks and
/// replayed into `sink` in input order, so the timeline and the problems (the reader's and
/// ingest's, in input order) are the same for any thread count. With `threads` 1 and a `share`,
/// the incident takes a free core of the share at each big source (up to all but the one it
/// reads on) and parses as with that many threads; it gives them back when its reading ends.
/// `options.budget` needs input order: give threads = 1 and no share with an event limit.
/// Returns the number of inputs read that hold a non-blank byte (the pieces of a big one are its sources: each is ingested
/// as it comes, a big one in parallel with the next). `take`, when given, sees each source first (in input order,
/// after every source before it reached `sink`); a source it returns true for is not ingested
/// (culprit's own snapshot manifest, culprit/api/snapshot_manifest.hpp).
using SourceHook = std::function<bool(const input::Source&, core::EventSink&)>;
std::size_t ingest_sources(const SourceReader& read, const text::SignalSet& signals,
                           const ingest::IngestOptions& options, unsigned threads, core::CoreShare* share,
                           core::EventSink& sink, core::Diagnostics& problems, const SourceHook& take = {});

}  // namespace culprit::api
