// The allocator section's words, shared by the text and Markdown reports (and so the HTML, which
// shows the Markdown): its title, its figures, the sentence that reads them and each site's place.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "culprit/diagnose/allocator_view.hpp"

namespace culprit::report {

/// `Allocator at the OOM — spark-b GPU 0 (PyTorch 2.1.0 snapshot)`. Raw text (callers clean or escape).
std::string allocator_title(const diagnose::AllocatorView& a);

/// The figures in order: reserved, allocated, reserved − allocated, largest free block, and the
/// request when it is known.
struct AllocatorFigure {
  std::string label;
  std::int64_t bytes = 0;
};
std::vector<AllocatorFigure> allocator_figures(const diagnose::AllocatorView& a);

/// What the figures say: fragmentation (the cache held enough, no free block did), a request
/// larger than all the cache held, a free block the request fitted in; what no recorded frame
/// means; that a bound cut the snapshot. Empty when there is nothing to say.
std::vector<std::string> allocator_notes(const diagnose::AllocatorView& a);

/// `train.py:42 in forward` (the file's last component). Raw text.
std::string site_place(const diagnose::AllocationSite& s);

/// The heading above the sites.
inline constexpr const char* kSitesHeading = "Largest live allocations by Python frame";

}  // namespace culprit::report
