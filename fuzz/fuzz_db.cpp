// libFuzzer target: a `--db` file someone sent (redteam findings 8, 13, 14). Its bytes are written
// to a temporary file and read as culprit reads every database it did not write — opened
// read-only and immutable, checked for culprit's application id and schema — through `culprit
// query` (streamed, blobs included) and `culprit timeline` (every event asked for, and a window
// around an id). Checks that a bad file is an error value, that the timeline keeps its row cap,
// and that neither the file nor anything beside it (a journal, -wal or -shm) is written.
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/diagnose/report_data.hpp"
#include "culprit/timeline.hpp"
#include "fuzz_support.hpp"

namespace {

/// One file per fuzzing process, in memory where the system has a tmpfs.
const std::string& db_path() {
  static const std::string path = [] {
    const char* tmp = std::getenv("TMPDIR");
    const std::string dir = ::access("/dev/shm", W_OK) == 0 ? "/dev/shm" : tmp ? tmp : "/tmp";
    return dir + "/culprit-fuzz-db-" + std::to_string(::getpid()) + ".db";
  }();
  return path;
}

bool exists(const std::string& path) { return ::access(path.c_str(), F_OK) == 0; }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& path = db_path();
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  }
  culprit::QueryOptions options;
  options.timeout_seconds = 2;
  auto table = culprit::query(path, "SELECT kind, count(*) AS n, max(length(message)) FROM events GROUP BY kind",
                              options);
  if (table)
    for (const auto& row : table->rows) CULPRIT_FUZZ_CHECK(row.size() == 3);
  (void)culprit::query_each(
      path, "SELECT * FROM sources", options, [](const std::vector<std::string>&) {},
      [](const std::vector<culprit::Cell>& row) {
        for (const auto& cell : row) (void)culprit::cell_text(cell);
        return true;
      });

  culprit::TimelineSelection all;
  all.limit = 0;  // every event: the loader's own cap must hold
  all.include_log = true;
  if (auto timeline = culprit::read_timeline(path, all))
    CULPRIT_FUZZ_CHECK(timeline->events.size() <= culprit::diagnose::kTimelineRowLimit);
  culprit::TimelineSelection around;
  around.limit = 5;
  around.around = "3";
  if (auto timeline = culprit::read_timeline(path, around)) CULPRIT_FUZZ_CHECK(timeline->events.size() <= 5);

  // Read only: the bytes are as written, and no journal, WAL or shared-memory file appeared.
  std::ifstream in(path, std::ios::binary);
  const std::string back((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CULPRIT_FUZZ_CHECK(back == bytes);
  for (const char* side : {"-journal", "-wal", "-shm"}) CULPRIT_FUZZ_CHECK(!exists(path + side));
  return 0;
}
