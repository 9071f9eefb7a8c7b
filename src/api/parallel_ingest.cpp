// ingest_sources: the reader runs on the calling thread and hands each source over; a big one is
// parsed by std::async into a RecordedSink while the reader goes on; results are replayed in
// order (a small source first waits for the big ones before it, then is parsed inline).
#include "api/parallel_ingest.hpp"

#include <deque>
#include <future>
#include <memory>

#include "culprit/core/core_share.hpp"
#include "culprit/core/free_heap.hpp"
#include "culprit/ingest/recorded_sink.hpp"

namespace culprit::api {
namespace {

struct Parsed {
  ingest::RecordedSink records;
  core::Diagnostics problems;
  bool read_as_text = false;  ///< ingest skipped none of it and it holds a non-blank byte
};

struct Pending {
  core::Diagnostics before;  ///< the reader's problems that came before this source
  std::future<Parsed> parsed;
  bool last = true;          ///< the input's last piece
};

/// The cores an incident's reading took from a share, given back when it ends, however it ends.
struct CoresHeld {
  core::CoreShare* share;
  unsigned count = 0;
  explicit CoresHeld(core::CoreShare* from) : share(from) {}
  CoresHeld(const CoresHeld&) = delete;
  CoresHeld& operator=(const CoresHeld&) = delete;
  ~CoresHeld() { give_back(); }
  void give_back() {
    for (; count > 0; --count) share->give_back();
  }
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
                           const ingest::IngestOptions& options, unsigned threads, core::CoreShare* share,
                           core::EventSink& sink, core::Diagnostics& problems, const SourceHook& take) {
  // An input counts once, at its last piece, when one of its pieces was read as text: ingest
  // skipped none of it (binary, empty, culprit's own report) and it holds a non-blank byte. Blank
  // lines (`echo | culprit`), binary data or an empty file are no readable input, as an empty
  // folder is. Pieces finish in input order, parsed inline or in parallel.
  std::size_t count = 0;
  bool input_read = false;  // the current input: some piece read as text
  auto piece_done = [&](bool read_as_text, bool last) {
    input_read = input_read || read_as_text;
    if (!last) return;
    if (input_read) ++count;
    input_read = false;
  };
  auto has_text = [](const input::Source& src) {
    return src.text.find_first_not_of(" \t\r\n\f\v") != std::string::npos;
  };
  bool read_in_pieces = false;  // some input was big enough to be read and parsed in pieces
  core::Diagnostics reader_problems;  // since the last source
  std::deque<Pending> pending;
  CoresHeld held(share);
  auto finish_oldest = [&] {
    Pending p = std::move(pending.front());
    pending.pop_front();
    Parsed parsed = p.parsed.get();
    append(problems, p.before);
    parsed.records.replay(sink);
    append(problems, parsed.problems);
    piece_done(parsed.read_as_text, p.last);
  };
  read(reader_problems, [&](input::Source& src) {
    read_in_pieces = read_in_pieces || src.more;
    if (take && src.text.size() < kParallelSourceBytes) {
      while (!pending.empty()) finish_oldest();
      append(problems, reader_problems);
      if (take(src, sink)) {
        piece_done(true, !src.more);
        return;
      }
    }
    // With a share, the incident takes one of its free cores at each big source until it holds
    // all but the one it reads on, and parses beside the reading as with that many threads; it
    // gives them back as its reading ends. (Incidents side by side take them in turn; one left
    // alone takes up those the others freed.)
    const bool big = src.text.size() >= kParallelSourceBytes;
    if (big && threads <= 1 && share != nullptr && held.count + 1 < static_cast<unsigned>(share->cores()) &&
        share->try_take())
      ++held.count;
    const unsigned now = threads > 1 ? threads : 1 + held.count;
    if (big && now > 1) {
      auto source = std::make_shared<input::Source>(std::move(src));
      Pending p;
      p.before = std::move(reader_problems);
      p.last = !source->more;
      reader_problems.clear();
      p.parsed = std::async(std::launch::async, [source, &signals, options, has_text] {
        Parsed out;
        const bool text = has_text(*source);
        out.read_as_text = !ingest::ingest(input_of(*source), signals, out.records, out.problems, options).skipped && text;
        if (source->more) input::give_back_text(std::move(source->text));  // for the input's next pieces
        return out;
      });
      pending.push_back(std::move(p));
      while (pending.size() > now) finish_oldest();
      return;
    }
    while (!pending.empty()) finish_oldest();
    append(problems, reader_problems);
    const bool text = has_text(src);
    piece_done(!ingest::ingest(input_of(src), signals, sink, problems, options).skipped && text, !src.more);
  });
  while (!pending.empty()) finish_oldest();
  held.give_back();  // the diagnosis after the reading runs on this thread alone
  append(problems, reader_problems);
  if (read_in_pieces) {
    // The pieces' buffers and what their parse freed are kept for the next piece; there is none.
    // Given back now, they are not in the peak of what follows (the index builds, the diagnosis:
    // two 128 MiB incidents at once peaked at 161-166 MiB, now 122-124; docs/performance.md,
    // "Sixteenth pass").
    input::drop_spare_texts();
    core::give_back_free_heap();
  }
  return count;
}

}  // namespace culprit::api
