// How the culprit process ends: its output flushed, and its memory given back to the system with
// the address space, not object by object. Freeing a paste's rules (their compiled regexes), its
// analysis and the spare timeline took ~2.5 M of its ~48 M instructions, just before exit.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace culprit::cli {

/// Flushes every C stream and ends the process with `code`, without running the destructors of
/// statics and thread-locals. Under AddressSanitizer it exits as usual, so LeakSanitizer still
/// checks every run the sanitizer suite makes.
[[noreturn]] void end_process(int code);

namespace detail {
void keep(std::shared_ptr<void> object);
}  // namespace detail

/// Moves `value` into storage the process never frees and returns it there: for what a command
/// builds once and uses to its end. It stays reachable, so LeakSanitizer does not call it lost.
template <class T>
std::decay_t<T>& keep_until_exit(T&& value) {
  auto object = std::make_shared<std::decay_t<T>>(std::forward<T>(value));
  std::decay_t<T>& kept = *object;
  detail::keep(std::move(object));
  return kept;
}

}  // namespace culprit::cli
