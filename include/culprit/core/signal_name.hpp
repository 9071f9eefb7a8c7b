// Signal names by Linux number: the numbers logs and records give (a container's exit code 128+N,
// `culprit run`'s manifest) are Linux's, whatever machine reads them, so this does not ask
// <csignal>. One home for the table that docker_ps and the manifest's job_end event both name.
#pragma once

#include <string_view>

namespace culprit::core {

/// `SIGKILL` for 9 (Linux numbering); "" for a number without a name here.
std::string_view signal_name(int linux_signal);

}  // namespace culprit::core
