// give_back_free_heap (see free_heap.hpp).
#include "culprit/core/free_heap.hpp"

#include <cstdlib>  // defines __GLIBC__ where the C library is glibc

#ifdef __GLIBC__
#include <malloc.h>
#endif

namespace culprit::core {

void give_back_free_heap() {
#ifdef __GLIBC__
  malloc_trim(0);
#endif
}

}  // namespace culprit::core
