// The pieces of `cat /proc/PID/stack` output (proc_stack.cpp) the detector shares.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace culprit::ingest::proc_stack {

/// The pid of a command line that prints a process's kernel stack (`sudo cat /proc/77/stack`,
/// a prompt's `$ cat /proc/77/stack`); nullopt for any other line.
std::optional<std::int64_t> stack_command_pid(std::string_view line);

/// One frame, `[<0>] uvm_spin_loop+0xb4/0x100 [nvidia_uvm]` (leading blanks allowed).
struct Frame {
  std::string function;  ///< `uvm_spin_loop`
  std::string module;    ///< `nvidia_uvm`; '' for the kernel's own code
};
std::optional<Frame> parse_frame(std::string_view line);

}  // namespace culprit::ingest::proc_stack
