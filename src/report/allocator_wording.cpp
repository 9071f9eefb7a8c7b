#include "report/allocator_wording.hpp"

#include <fmt/format.h>

#include "report/wording.hpp"

namespace culprit::report {

std::string allocator_title(const diagnose::AllocatorView& a) {
  std::string title = "Allocator at the OOM";
  std::string where = a.host;
  if (a.gpu) where += (where.empty() ? "" : " ") + fmt::format("GPU {}", *a.gpu);
  if (!where.empty()) title += " — " + where;
  title += a.torch_version.empty() ? " (PyTorch snapshot)" : " (PyTorch " + a.torch_version + " snapshot)";
  return title;
}

std::vector<AllocatorFigure> allocator_figures(const diagnose::AllocatorView& a) {
  std::vector<AllocatorFigure> out{{"reserved", a.reserved},
                                   {"allocated", a.allocated},
                                   {"reserved − allocated", a.unallocated},
                                   {"largest free block", a.largest_free}};
  if (a.requested) out.push_back({"requested", *a.requested});
  return out;
}

std::vector<std::string> allocator_notes(const diagnose::AllocatorView& a) {
  std::vector<std::string> out;
  if (a.requested) {
    const std::string req = size_text(*a.requested), free_block = size_text(a.largest_free);
    if (diagnose::fragmented(a))
      out.push_back(fmt::format(
          "Fragmentation: the allocator held {} reserved but unallocated, more than the {} asked for, yet its largest "
          "free block is {} (a block never spans two segments). PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True "
          "(PyTorch 2.1+) or max_split_size_mb lets that memory serve large requests.",
          size_text(a.unallocated), req, free_block));
    else if (*a.requested > a.largest_free)
      out.push_back(fmt::format("The request ({}) is larger than all the allocator held unallocated ({}): it needed a "
                                "new segment from the device, which the ledger shows could not be had.",
                                req, size_text(a.unallocated)));
    else
      out.push_back(fmt::format("The largest free block ({}) is as large as the request ({}): this snapshot does not "
                                "show the allocator short of a block (it may have been taken after memory was freed).",
                                free_block, req));
  }
  if (a.sites.empty() && a.live_blocks > 0)
    out.push_back("No Python frame was recorded for the live blocks: the allocation history was not being recorded "
                  "when they were made (culprit.install(memory_history=True) before the model is built).");
  else if (a.unattributed > 0)
    out.push_back(fmt::format("{} of live blocks carry no Python frame (made before the recording started).",
                              size_text(a.unattributed)));
  if (a.cut)
    out.push_back("The snapshot was cut to its bounds: the totals are whole, the blocks are the largest ones.");
  return out;
}

std::string site_place(const diagnose::AllocationSite& s) {
  const auto slash = s.file.rfind('/');
  const std::string file = slash == std::string::npos ? s.file : s.file.substr(slash + 1);
  return fmt::format("{}:{}{}", file.empty() ? std::string("?") : file, s.line, s.function.empty() ? "" : " in " + s.function);
}

}  // namespace culprit::report
