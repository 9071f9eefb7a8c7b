// Giving the heap's free pages back to the system, between the phases of a big incident.
#pragma once

namespace culprit::core {

/// Returns the pages of the heap's free blocks to the system (glibc's malloc_trim: every arena's
/// free stretches and its top; nothing elsewhere). The executable's heap policy keeps what is
/// freed (cli/main.cpp: a big input's pieces reuse what the last one freed), which is right while
/// an incident reads and wrong once its reading ends: the diagnosis after it takes SQLite's own
/// chunks, and what the parse freed stayed in the peak RSS (14 MiB of a 128 MiB incident's 81).
/// Costs a walk of the arenas, and a page fault for each page given back that is used again.
void give_back_free_heap();

}  // namespace culprit::core
