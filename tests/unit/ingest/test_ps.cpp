// ps listings (ps aux / -ef / -eo … / axjf): the data-driven fixtures under fixtures/formats/ps,
// header recognition, segmentation inside a paste, and bad input (cut rows, missing columns,
// huge values) that must never crash.
#include <algorithm>

#include "culprit/core/time.hpp"
#include "culprit/ingest/sniff.hpp"
#include "ingest/formats/ps_columns.hpp"
#include "unit/ingest/gpu_fixture_runner.hpp"

using culprit::test::GpuRecordingSink;

TEST_CASE("ps fixtures", "[ps][fixtures]") {
  culprit::test::run_parser_fixtures("ps", "ps", &culprit::ingest::parse_ps);
}

TEST_CASE("ps: headers are recognised by their column names, not other tables", "[ps]") {
  namespace ps = culprit::ingest::ps;
  CHECK(ps::parse_header("USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND"));
  CHECK(ps::parse_header("UID          PID    PPID  C STIME TTY          TIME CMD"));
  CHECK(ps::parse_header("    PID USER     STAT                  STARTED   RSS CMD"));
  CHECK(ps::parse_header("  PID TTY          TIME CMD"));
  CHECK_FALSE(ps::parse_header("CONTAINER ID   IMAGE     COMMAND                  CREATED        STATUS    PORTS     NAMES"));
  CHECK_FALSE(ps::parse_header("|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |"));
  CHECK_FALSE(ps::parse_header("The PID of the COMMAND was printed above"));
  const auto h = ps::parse_header("  PID USER     STAT                  STARTED   RSS CMD");
  REQUIRE(h);
  const auto row = ps::split_row("4242 alice    Sl   Thu Apr  9 09:12:44 2026 8234156 python3 -u train.py", *h);
  REQUIRE(row.ok);
  CHECK(row.cells[3] == "Thu Apr  9 09:12:44 2026");
  CHECK(row.cells[4] == "8234156");
  CHECK(row.cells[5] == "python3 -u train.py");
  // `ps -o start`: `Apr 08` is two tokens.
  const auto h2 = ps::parse_header("    PID  STARTED USER     CMD");
  REQUIRE(h2);
  const auto r2 = ps::split_row("883120   Apr 08 bob      python eval.py", *h2);
  CHECK(r2.cells[1] == "Apr 08");
  CHECK(r2.cells[2] == "bob");
}

TEST_CASE("ps: a listing inside a paste is its own segment", "[ps][sniff]") {
  const std::string paste =
      "alice@gpu-node-3:~$ ps aux | grep python\n"
      "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n"
      "bob       883120  0.3  1.9 31884220 5120344 ?    Sl   Apr08   4:51 /home/bob/miniconda3/envs/exp/bin/python eval_sweep.py\n"
      "alice    2381044 99.6  3.1 35632140 8234156 pts/3 Rl+ 09:12 127:33 /home/alice/venv/bin/python3 -u train.py\n"
      "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
      "[rank0]: more text\n";
  const auto segs = culprit::ingest::segment_text(paste);
  bool found = false;
  for (const auto& s : segs) {
    if (s.format != "ps") continue;
    found = true;
    CHECK(s.first_line == 2);
    CHECK(s.host == "gpu-node-3");
    CHECK(std::count(s.text.begin(), s.text.end(), '\n') == 2);  // header + 2 rows, no trailing newline
  }
  CHECK(found);
  CHECK(culprit::ingest::sniff_format(
            "UID          PID    PPID  C STIME TTY          TIME CMD\n"
            "root           1       0  0 Apr06 ?        00:00:21 /sbin/init\n"
            "bob       883120  882977  0 Apr08 ?        00:04:51 python eval_sweep.py --gpu 2\n") == "ps");
}

TEST_CASE("ps: cut rows, missing columns, huge values never crash", "[ps]") {
  GpuRecordingSink sink;
  culprit::core::Diagnostics diags;
  auto ctx = culprit::test::gpu_context(sink, "ps", "h1", 2026, &diags);
  const std::string huge(200000, 'x');
  const std::string text =
      "USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND\n"
      "alice    2381044 99.6\n"                                                     // cut: pid only
      "bob\n"                                                                       // no pid
      "carol    99999999999999999999 0 0 0 0 ? S Apr08 0:00 x\n"                  // pid too big
      "dave     77 0.0 0.0 1 99999999999999999999 ? S Feb30 0:00 /bin/" + huge + "\n"  // huge rss, bad date
      "erin     78 0.0 0.0 1 1 ? T 2025 0:00 \xff\xfe\n"
      "USER PID\n";                                                                 // a new header, no rows
  culprit::ingest::parse_ps(text, ctx);
  REQUIRE(sink.processes.size() == 3);
  CHECK(sink.processes[0].pid == 2381044);
  CHECK(sink.processes[0].state.empty());
  CHECK(sink.processes[1].pid == 77);
  CHECK_FALSE(sink.processes[1].rss);
  CHECK(sink.processes[2].state == "T");
  CHECK(sink.processes[2].started == culprit::core::civil_to_epoch(2026, 1, 1, 0, 0, 0));
  CHECK(!diags.empty());
  GpuRecordingSink empty;
  auto ctx2 = culprit::test::gpu_context(empty, "ps");
  culprit::ingest::parse_ps("", ctx2);
  culprit::ingest::parse_ps("\n\n  PID\n", ctx2);
  CHECK(empty.processes.empty());
}
