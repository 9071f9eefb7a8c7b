#include "cli/process_end.hpp"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "culprit/core/address_sanitizer.hpp"

namespace culprit::cli {

void end_process(int code) {
  std::fflush(nullptr);
#if CULPRIT_ADDRESS_SANITIZER
  std::exit(code);
#else
  std::_Exit(code);
#endif
}

namespace detail {
void keep(std::shared_ptr<void> object) {
  static std::mutex mutex;
  // Never deleted: what it holds lives until the process ends (a static vector would free it at
  // exit, which is the work this saves).
  static auto* const kept = new std::vector<std::shared_ptr<void>>();
  const std::lock_guard<std::mutex> lock(mutex);
  kept->push_back(std::move(object));
}
}  // namespace detail

}  // namespace culprit::cli
