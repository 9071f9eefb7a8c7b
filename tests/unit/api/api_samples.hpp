// Texts the API tests analyse in memory, and the built-in rules loaded once for all of them.
#pragma once

#include "culprit/culprit.hpp"

namespace culprit::test {

// PyTorch's CUDA OOM as torch >= 2.1 raises it (c10/cuda/CUDACachingAllocator.cpp, the
// "CUDA out of memory. Tried to allocate {}. GPU {} has a total capacity of {} of which {} is
// free. {}Of the allocated memory …" format string), at the end of a Python traceback.
inline constexpr const char* kTorchOom =
    "Traceback (most recent call last):\n"
    "  File \"/opt/job/train.py\", line 41, in <module>\n"
    "    loss = model(batch).sum()\n"
    "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
    "79.15 GiB of which 1.06 GiB is free. Including non-PyTorch memory, this process has 78.08 GiB memory in "
    "use. Of the allocated memory 76.50 GiB is allocated by PyTorch, and 1.01 GiB is reserved by PyTorch but "
    "unallocated. If reserved but unallocated memory is large try setting "
    "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory "
    "Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)\n";

// A job's ordinary output: names CUDA and memory, but nothing failed (the look-alike).
inline constexpr const char* kHealthy =
    "step 100 | loss 2.31 | CUDA memory allocated 12.00 GiB, reserved 14.00 GiB\n"
    "step 200 | loss 2.05 | CUDA memory allocated 12.00 GiB, reserved 14.00 GiB\n"
    "training finished\n";

/// The built-in rules, loaded once (analyses share one Rules).
inline const Rules& builtin_rules() {
  static const Rules r = Rules::load();
  return r;
}

}  // namespace culprit::test
