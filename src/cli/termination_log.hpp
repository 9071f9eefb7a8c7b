// The Kubernetes termination message of a failed job (`culprit run --termination-log PATH`):
// the kubelet reads at most 4096 bytes of a container's /dev/termination-log and shows them as
// the container's `message` (kubectl describe, `.status.containerStatuses[].state.terminated`),
// so the headline and the culprit go first, terminal-safe, cut on a UTF-8 boundary.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "culprit/culprit.hpp"

namespace culprit::cli {

/// The most the kubelet reads of a termination message (k8s.io/kubernetes pkg/kubelet/kuberuntime,
/// `maxMsgSize = 4 * 1024`).
inline constexpr std::size_t kTerminationLogBytes = 4096;

/// The message: the report's headline, the culprit with its role and host (when one is named),
/// how the job ended and where the incident folder is; each line terminal-safe
/// (core::utf8::one_line), the whole at most kTerminationLogBytes (fit_utf8).
std::string termination_message(const culprit::Analysis& analysis, std::string_view job_end,
                                 std::string_view incident);

/// `text` cut to at most `max_bytes` without splitting a UTF-8 sequence; when cut, it ends with
/// `…` inside the bound.
std::string fit_utf8(std::string text, std::size_t max_bytes);

/// Writes `text` to `path` atomically (a temporary file beside it, renamed over it), or, where the
/// path cannot be replaced so (the kubelet bind-mounts a file at /dev/termination-log: a rename
/// over a mount point fails with EBUSY, and /dev may not be writable), in place with one write
/// of the whole (< 4 KiB, read by the kubelet only after the container ended). Returns an error
/// message or empty.
std::string write_termination_log(const std::string& path, const std::string& text);

}  // namespace culprit::cli
