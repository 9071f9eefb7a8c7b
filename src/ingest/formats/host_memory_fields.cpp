#include "ingest/formats/host_memory_fields.hpp"

#include <optional>

namespace culprit::ingest {

void set_host_memory_fields(core::Event& ev, const core::HostMemory& mem) {
  auto put = [&](const char* key, const std::optional<std::int64_t>& v) {
    if (v) ev.set_int(key, *v);
  };
  put("mem_total_bytes", mem.total);
  put("mem_used_bytes", mem.used);
  put("mem_free_bytes", mem.free);
  put("mem_shared_bytes", mem.shared);
  put("mem_buff_cache_bytes", mem.buff_cache);
  put("mem_available_bytes", mem.available);
  put("swap_total_bytes", mem.swap_total);
  put("swap_used_bytes", mem.swap_used);
  put("swap_free_bytes", mem.swap_free);
}

}  // namespace culprit::ingest
