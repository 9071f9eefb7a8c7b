// Reads what placement.hpp decides from: a process's recorded /proc facts and its host's
// container listings, one process at a time (a report names a culprit and a victim).
#pragma once

#include "culprit/diagnose/finding.hpp"
#include "culprit/store/database.hpp"

namespace culprit::diagnose {

/// Fills `p.place` (and `p.container` when empty, with the listed name) from the timeline, for a
/// process with a pid; leaves it as it is when nothing recorded places it.
void attach_place(store::Database& db, ProcessRef& p);

}  // namespace culprit::diagnose
