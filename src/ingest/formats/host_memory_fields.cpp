#include "ingest/formats/host_memory_fields.hpp"

#include <optional>

namespace culprit::ingest {

void set_host_memory_fields(core::Event& ev, const core::HostMemory& mem) {
  ev.set_int_if("mem_total_bytes", mem.total);
  ev.set_int_if("mem_used_bytes", mem.used);
  ev.set_int_if("mem_free_bytes", mem.free);
  ev.set_int_if("mem_shared_bytes", mem.shared);
  ev.set_int_if("mem_buff_cache_bytes", mem.buff_cache);
  ev.set_int_if("mem_available_bytes", mem.available);
  ev.set_int_if("swap_total_bytes", mem.swap_total);
  ev.set_int_if("swap_used_bytes", mem.swap_used);
  ev.set_int_if("swap_free_bytes", mem.swap_free);
}

}  // namespace culprit::ingest
