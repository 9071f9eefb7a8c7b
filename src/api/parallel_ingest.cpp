// ingest_sources: the reader runs on the calling thread and hands each source over; a big one is
// parsed by std::async into a RecordedSink while the reader goes on; results are replayed in
// order (a small source first waits for the big ones before it, then is parsed inline).
#include "api/parallel_ingest.hpp"

#include <deque>
#include <future>
#include <memory>

#include "culprit/ingest/recorded_sink.hpp"

namespace culprit::api {
namespace {

struct Parsed {
  ingest::RecordedSink records;
  core::Diagnostics problems;
};

struct Pending {
  core::Diagnostics before;  ///< the reader's problems that came before this source
  std::future<Parsed> parsed;
};

ingest::IngestInput input_of(const input::Source& src) {
  return {src.name, src.host, src.origin, src.text, src.first_line, src.host_from, src.size(), src.cut_line,
          src.cut_line_bytes, src.more};
}

void append(core::Diagnostics& to, core::Diagnostics& from) {
  to.insert(to.end(), std::make_move_iterator(from.begin()), std::make_move_iterator(from.end()));
  from.clear();
}

}  // namespace

std::size_t ingest_sources(const SourceReader& read, const text::SignalSet& signals,
                           const ingest::IngestOptions& options, unsigned threads, core::EventSink& sink,
                           core::Diagnostics& problems, const SourceHook& take) {
  std::size_t count = 0;
  core::Diagnostics reader_problems;  // since the last source
  std::deque<Pending> pending;
  auto finish_oldest = [&] {
    Pending p = std::move(pending.front());
    pending.pop_front();
    Parsed parsed = p.parsed.get();
    append(problems, p.before);
    parsed.records.replay(sink);
    append(problems, parsed.problems);
  };
  read(reader_problems, [&](input::Source& src) {
    if (!src.more) ++count;  // an input read in pieces counts once, at its last
    if (take && src.text.size() < kParallelSourceBytes) {
      while (!pending.empty()) finish_oldest();
      append(problems, reader_problems);
      if (take(src, sink)) return;
    }
    if (threads > 1 && src.text.size() >= kParallelSourceBytes) {
      auto source = std::make_shared<input::Source>(std::move(src));
      Pending p;
      p.before = std::move(reader_problems);
      reader_problems.clear();
      p.parsed = std::async(std::launch::async, [source, &signals, options] {
        Parsed out;
        ingest::ingest(input_of(*source), signals, out.records, out.problems, options);
        if (source->more) input::give_back_text(std::move(source->text));  // for the input's next pieces
        return out;
      });
      pending.push_back(std::move(p));
      while (pending.size() > threads) finish_oldest();
      return;
    }
    while (!pending.empty()) finish_oldest();
    append(problems, reader_problems);
    ingest::ingest(input_of(src), signals, sink, problems, options);
  });
  while (!pending.empty()) finish_oldest();
  append(problems, reader_problems);
  return count;
}

}  // namespace culprit::api
