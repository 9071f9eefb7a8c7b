// Reads the table of the node's largest memory users that Ray's memory monitor prints with its
// kill (messages-host.md G5, formats.md §5.5): 1.x `PID\tMEM\tCOMMAND` with rows
// `4758\t7.3GB\tray_ImpalaTrainer:train()` (GB, later GiB), 2.2+ `PID\tMEM(GB)\tCOMMAND` with rows
// `12345\t30.10\tray::MyActor.train` (a bare number of GB). Tabs or the spaces a terminal
// expanded them to; the app-log parser peels any `(Actor pid=N, ip=…)` prefix first.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::ingest {

/// One row: a process and its resident memory as Ray measured it. Lines are 1-based in the segment.
struct RayMemoryUser {
  std::int64_t line = 0;
  std::int64_t pid = 0;
  std::int64_t bytes = 0;
  std::string command;  ///< as printed (Ray cuts the command line at 100 characters), at most kMaxCommand bytes
  /// A bound on what one row keeps, whatever a line holds.
  static constexpr std::size_t kMaxCommand = 256;
};

/// Whose a row's process is.
enum class RayProcessClass {
  worker,  ///< a worker or actor of the Ray job (`ray::Name`, 1.x `ray_Name`, default_worker.py)
  driver,  ///< a Python program that is none of Ray's daemons: most likely the job's driver
  daemon,  ///< one of Ray's own daemons (dashboard, agent, raylet, GCS, monitors): cluster infrastructure
  other,   ///< another program
};

/// A row's command line read: its class, a short name (`ray::RolloutWorker`, `python3`) and
/// words for a message (`Ray's dashboard agent`, `a Ray worker of the job`).
struct RayProcessKind {
  RayProcessClass cls = RayProcessClass::other;
  std::string name;
  std::string label;
};

/// Classifies a command line as Ray's table prints it (cut short or not).
RayProcessKind classify_ray_command(std::string_view command);
/// `worker`, `driver`, `daemon`, `other`: the words the timeline stores.
std::string_view ray_class_word(RayProcessClass cls);

/// Collects the rows of one table while it lasts.
class RayMemoryTable {
 public:
  /// At most this many rows are read (Ray prints 5 or 10); a longer run of rows is no table of Ray's.
  static constexpr std::size_t kMaxRows = 32;

  /// True for the header line: exactly `PID`, `MEM` or `MEM(GB)`, `COMMAND` between blanks.
  static bool opens(std::string_view message);

  RayMemoryTable(std::int64_t seg_line, std::string_view header);

  enum class Offer {
    consumed,  ///< a row (or the blank line before the first row)
    ended,     ///< not part of it: the table is over; the caller handles the line
  };
  Offer offer(std::int64_t seg_line, std::string_view message);

  /// Reads one row in this table's units; false when `message` is not a row.
  bool read_row(std::string_view message, RayMemoryUser& row) const;

  std::int64_t first_line() const { return first_line_; }
  std::int64_t last_line() const { return last_line_; }
  const std::vector<RayMemoryUser>& rows() const { return rows_; }

 private:
  std::int64_t first_line_ = 0, last_line_ = 0;
  bool bare_gb_ = false;  ///< 2.x `MEM(GB)`: the sizes are bare numbers
  bool blank_seen_ = false;
  std::vector<RayMemoryUser> rows_;
};

}  // namespace culprit::ingest
