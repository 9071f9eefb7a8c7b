// RecordedSink: records in arrival order; replay maps local ids to the target's.
#include "culprit/ingest/recorded_sink.hpp"

namespace culprit::ingest {

std::int64_t RecordedSink::add_source(const core::SourceInfo& source) {
  records_.emplace_back(source);
  return ++sources_;
}

std::int64_t RecordedSink::add_event(const core::Event& event) {
  records_.emplace_back(event);
  return ++events_;
}

void RecordedSink::add_gpu_snapshot(const core::GpuSnapshot& snapshot) { records_.emplace_back(snapshot); }
void RecordedSink::add_host_memory(const core::HostMemory& memory) { records_.emplace_back(memory); }
void RecordedSink::add_oom_report(const core::OomReport& report) { records_.emplace_back(report); }
void RecordedSink::add_process(const core::ProcessSighting& process) { records_.emplace_back(process); }
void RecordedSink::add_container(const core::ContainerInfo& container) { records_.emplace_back(container); }

void RecordedSink::replay(core::EventSink& target) {
  std::vector<std::int64_t> source_ids, event_ids;
  source_ids.reserve(static_cast<std::size_t>(sources_));
  event_ids.reserve(static_cast<std::size_t>(events_));
  // A local id k maps to the k-th id the target returned; anything else is left as it is.
  auto map = [](const std::vector<std::int64_t>& ids, std::int64_t local) {
    return local >= 1 && local <= static_cast<std::int64_t>(ids.size()) ? ids[static_cast<std::size_t>(local - 1)]
                                                                         : local;
  };
  for (auto& record : records_) {
    if (auto* s = std::get_if<core::SourceInfo>(&record)) {
      source_ids.push_back(target.add_source(*s));
    } else if (auto* e = std::get_if<core::Event>(&record)) {
      e->source_id = map(source_ids, e->source_id);
      event_ids.push_back(target.add_event(*e));
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
  records_.clear();
  records_.shrink_to_fit();
}

}  // namespace culprit::ingest
