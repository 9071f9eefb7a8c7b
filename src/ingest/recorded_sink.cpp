// RecordedSink: records in arrival order; replay maps local ids to the target's.
#include "culprit/ingest/recorded_sink.hpp"

namespace culprit::ingest {

namespace {
/// Keeps a record other than an event, its place in the arrival order beside it.
template <typename Records, typename Record>
void keep(Records& others, std::vector<std::uint32_t>& order, const Record& record) {
  order.push_back(static_cast<std::uint32_t>(others.size()));
  others.emplace_back(record);
}
}  // namespace

std::int64_t RecordedSink::add_source(const core::SourceInfo& source) {
  keep(others_, order_, source);
  return ++sources_;
}

std::int64_t RecordedSink::add_event(const core::Event& event) {
  if (events_.empty() || events_.back().size() == kEventsPerChunk) {
    events_.emplace_back();
    events_.back().reserve(kEventsPerChunk);
  }
  events_.back().push_back(event);
  order_.push_back(kEventMark);
  return ++event_count_;
}

void RecordedSink::add_gpu_snapshot(const core::GpuSnapshot& snapshot) { keep(others_, order_, snapshot); }
void RecordedSink::add_host_memory(const core::HostMemory& memory) { keep(others_, order_, memory); }
void RecordedSink::add_oom_report(const core::OomReport& report) { keep(others_, order_, report); }
void RecordedSink::add_process(const core::ProcessSighting& process) { keep(others_, order_, process); }
void RecordedSink::add_container(const core::ContainerInfo& container) { keep(others_, order_, container); }

void RecordedSink::replay(core::EventSink& target) {
  std::vector<std::int64_t> source_ids, event_ids;
  source_ids.reserve(static_cast<std::size_t>(sources_));
  event_ids.reserve(static_cast<std::size_t>(event_count_));
  // A local id k maps to the k-th id the target returned; anything else is left as it is.
  auto map = [](const std::vector<std::int64_t>& ids, std::int64_t local) {
    return local >= 1 && local <= static_cast<std::int64_t>(ids.size()) ? ids[static_cast<std::size_t>(local - 1)]
                                                                         : local;
  };
  std::size_t chunk = 0, in_chunk = 0;
  for (const std::uint32_t at : order_) {
    if (at == kEventMark) {
      core::Event& e = events_[chunk][in_chunk];
      e.source_id = map(source_ids, e.source_id);
      event_ids.push_back(target.add_event(e));
      if (++in_chunk == events_[chunk].size()) {
        std::vector<core::Event>().swap(events_[chunk]);  // replayed: its memory goes back now
        ++chunk;
        in_chunk = 0;
      }
      continue;
    }
    auto& record = others_[at];
    if (auto* s = std::get_if<core::SourceInfo>(&record)) {
      source_ids.push_back(target.add_source(*s));
    } else if (auto* g = std::get_if<core::GpuSnapshot>(&record)) {
      g->source_id = map(source_ids, g->source_id);
      target.add_gpu_snapshot(*g);
    } else if (auto* h = std::get_if<core::HostMemory>(&record)) {
      h->source_id = map(source_ids, h->source_id);
      target.add_host_memory(*h);
    } else if (auto* r = std::get_if<core::OomReport>(&record)) {
      r->event_id = map(event_ids, r->event_id);
      target.add_oom_report(*r);
    } else if (auto* p = std::get_if<core::ProcessSighting>(&record)) {
      target.add_process(*p);
    } else if (auto* c = std::get_if<core::ContainerInfo>(&record)) {
      target.add_container(*c);
    }
  }
  events_.clear();
  events_.shrink_to_fit();
  others_.clear();
  others_.shrink_to_fit();
  order_.clear();
  order_.shrink_to_fit();
}

}  // namespace culprit::ingest
