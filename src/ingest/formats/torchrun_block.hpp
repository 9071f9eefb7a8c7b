// Reads torchrun's ChildFailedError summary (formats.md §5.1.3): the `Failures:` and
// `Root Cause (first observed failure):` sections with one `[i]:` entry per failed rank, in the
// current layout and the early torchelastic one (`Root Cause:` / `Other Failures:` / `msg:`).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::ingest {

/// One `[i]:` entry. Lines are 1-based in the segment.
struct TorchrunFailure {
  std::int64_t first_line = 0, last_line = 0;
  int index = 0;
  bool root_cause = false;
  std::string entrypoint;            ///< `train.py` from the `train.py FAILED` title
  std::string time;                  ///< `2026-04-09_00:47:20` (local time, no zone)
  std::string host;                  ///< the agent host's FQDN
  std::string error_file;            ///< '' for `<N/A>`
  std::string traceback;             ///< first line of the `traceback :` (or `msg:`) value
  std::optional<int> rank, local_rank, exitcode;
  std::optional<std::int64_t> pid;
  std::optional<int> signal;         ///< from a negative exit code or `Signal 9 (SIGKILL)`
  std::string signal_name;           ///< `SIGKILL` when the traceback names it
};

/// Collects entries line by line while the block lasts.
class TorchrunFailureBlock {
 public:
  /// True for a section header that opens the block.
  static bool opens(std::string_view message);
  /// True for a title line `<entrypoint> FAILED` (kept for the entries that follow).
  static bool is_title(std::string_view message, std::string* entrypoint = nullptr);

  TorchrunFailureBlock(std::int64_t seg_line, std::string_view message, std::string entrypoint);

  enum class Offer {
    consumed,      ///< part of the block
    pass_through,  ///< inside an entry's multi-line traceback: the caller still scans the text
    ended,         ///< not part of it: the block is over; the caller handles the line
  };
  Offer offer(std::int64_t seg_line, std::string_view message);

  /// Entries read so far (all of them once the block has ended).
  std::vector<TorchrunFailure> finish();

 private:
  void section(std::string_view header);
  void close_entry();

  std::vector<TorchrunFailure> done_;
  std::optional<TorchrunFailure> cur_;
  bool root_section_ = false;
  std::string entrypoint_;
};

}  // namespace culprit::ingest
