#include "report/json_allocator.hpp"

namespace culprit::report {

void write_allocator_json(JsonWriter& w, const std::optional<diagnose::AllocatorView>& a) {
  if (!a) return w.null();
  w.begin_object();
  w.key("host"); w.value(a->host);
  w.key("gpu"); w.value(a->gpu);
  w.key("source"); w.value(a->source);
  w.key("line"); w.value(a->line);
  w.key("torch_version"); w.value(a->torch_version);
  w.key("reserved"); w.value(a->reserved);
  w.key("allocated"); w.value(a->allocated);
  w.key("active"); w.value(a->active);
  w.key("unallocated"); w.value(a->unallocated);
  w.key("largest_free"); w.value(a->largest_free);
  w.key("requested"); w.value(a->requested);
  w.key("fragmented"); w.value(diagnose::fragmented(*a));
  w.key("segments"); w.value(a->segments);
  w.key("blocks"); w.value(a->blocks);
  w.key("live_blocks"); w.value(a->live_blocks);
  w.key("free_blocks"); w.value(a->free_blocks);
  w.key("unattributed"); w.value(a->unattributed);
  w.key("site_count"); w.value(a->site_count);
  w.key("cut"); w.value(a->cut);
  w.key("sites");
  w.begin_array();
  for (const auto& s : a->sites) {
    w.begin_object();
    w.key("file"); w.value(s.file);
    w.key("line"); w.value(s.line);
    w.key("function"); w.value(s.function);
    w.key("bytes"); w.value(s.bytes);
    w.key("blocks"); w.value(s.blocks);
    w.key("largest"); w.value(s.largest);
    w.end_object();
  }
  w.end_array();
  w.end_object();
}

}  // namespace culprit::report
