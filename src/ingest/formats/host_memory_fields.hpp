// The fields a host-memory reading's event carries (`mem_total_bytes`, …, `swap_free_bytes`):
// one name per core::HostMemory column, written the same way by every format that reads host
// memory (`free`, /proc/meminfo), so rules and queries see one vocabulary.
#pragma once

#include "culprit/core/event.hpp"
#include "culprit/core/records.hpp"

namespace culprit::ingest {

/// Sets on `ev` the fields of every column `mem` knows (unknown ones are left out).
void set_host_memory_fields(core::Event& ev, const core::HostMemory& mem);

}  // namespace culprit::ingest
