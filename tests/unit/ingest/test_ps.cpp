// ps listings (ps aux / -ef / -eo … / axjf): the data-driven fixtures under fixtures/formats/ps,
// header recognition, segmentation inside a paste, and bad input (cut rows, missing columns,
// huge values) that must never crash.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "culprit/core/time.hpp"
#include "culprit/ingest/sniff.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/format_detect.hpp"
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
  // Ray's memory monitor's table of memory users (1.x `MEM`, 2.2+ `MEM(GB)`): the app log's.
  CHECK_FALSE(ps::parse_header("PID\tMEM\tCOMMAND"));
  CHECK_FALSE(ps::parse_header("PID\tMEM(GB)\tCOMMAND"));
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

// Header-less rows: `ps aux | grep X` / `ps -ef | grep X` print rows without the header. The
// rows below follow procps-ng's aux (`u`) and `-f` layouts (ps/output.c column widths; START
// `HH:MM` / `MmmDD` / `YYYY`, TIME `M:SS` (aux) or `[DD-]HH:MM:SS` (-f)).
TEST_CASE("ps: header-less rows are told by the shape of the aux and -ef layouts", "[ps]") {
  namespace ps = culprit::ingest::ps;
  const auto* aux = ps::headerless_layout(
      "thomas    1395  1.7 14.4 89506440 28604880 pts/2 Tl May25 147:37 python train.py --device=cuda:0");
  REQUIRE(aux);
  CHECK(aux->names.back() == "COMMAND");
  CHECK(ps::headerless_layout("root         1  0.0  0.0 167720 11840 ?        Ss   2025   0:21 /sbin/init splash"));
  CHECK(ps::headerless_layout("carol   412903  0.0  0.0      0     0 ?        Z    10:02   0:00 [python] <defunct>"));
  CHECK(ps::headerless_layout("alice  2381044  101  3.1 35632140 8234156 tty2  Rl+  09:12 127:33 python3 -u train.py"));
  const auto* ef = ps::headerless_layout("svc-inf+  771203       1 12 Apr08 ?        1-02:11:40 VLLM::EngineCore");
  REQUIRE(ef);
  CHECK(ef->names[2] == "PPID");
  CHECK(ps::headerless_layout("root           1       0  0 Apr06 ?        00:00:21 /sbin/init"));
  // Look-alikes: log lines with numbers, tables of other tools, rows with a column out of shape.
  CHECK_FALSE(ps::headerless_layout("2026-04-09 11:02:51 INFO step 100 loss 0.53 lr 0.0001 tokens 4096 ? done"));
  CHECK_FALSE(ps::headerless_layout("Epoch 1/10 0.5 0.3 1000 2000 pts/1 S 10:00 0:00 training"));    // not a pid
  CHECK_FALSE(ps::headerless_layout("worker 7 0.53 0.31 1000 2000 pts/1 S 10:00 0:00 training"));     // two decimals
  CHECK_FALSE(ps::headerless_layout("alice 2381044 99.6 3.1 35632140 8234156 pts/3 Q 09:12 127:33 x"));  // Q is no state
  CHECK_FALSE(ps::headerless_layout("alice 2381044 99.6 3.1 35632140 8234156 pts/3 R 9am 127:33 x"));    // no START form
  CHECK_FALSE(ps::headerless_layout("alice 2381044 99.6 3.1 35632140 8234156 net0 R 09:12 127:33 x"));   // no TTY form
  CHECK_FALSE(ps::headerless_layout("bob 883120 882977 0 Apr08 ? 4:51 python eval.py"));   // -ef TIME has hours
  CHECK_FALSE(ps::headerless_layout("|    0   N/A  N/A      1395      C   python                          25081MiB |"));
  CHECK_FALSE(ps::headerless_layout("Apr  9 00:47:19 gpu-node-3 kernel: [ 93.118204] python3 invoked oom-killer"));
  // The user column: up to 32 name bytes (useradd's limit) that a blank closes, after any indent.
  const std::string row = " 1395  1.7 14.4 89506440 28604880 pts/2 Tl May25 147:37 python train.py";
  CHECK(ps::headerless_layout(std::string(32, 'u') + row));
  CHECK_FALSE(ps::headerless_layout(std::string(33, 'u') + row));
  CHECK(ps::headerless_layout(" \t thomas" + row));
  CHECK_FALSE(ps::headerless_layout("INFO:root" + row));  // a byte no user name holds ends no token
  CHECK_FALSE(ps::headerless_layout("tho:mas" + row));
}

TEST_CASE("ps: a header-less `ps aux | grep` row is its own ps segment, the grep row skipped", "[ps][sniff]") {
  const std::string paste =
      "[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.\n"
      "thomas    1395  1.7 14.4 89506440 28604880 pts/2 Tl May25 147:37 python train.py --device=cuda:0\n"
      "thomas   20931  0.0  0.0   6612  2304 pts/4    S+   11:40   0:00 grep --color=auto train.py\n"
      "The job then stopped.\n";
  const auto segs = culprit::ingest::segment_text(paste);
  bool found = false;
  for (const auto& s : segs) {
    if (s.format != "ps") continue;
    found = true;
    CHECK(s.first_line == 2);
    CHECK(std::count(s.text.begin(), s.text.end(), '\n') == 1);  // two rows
    GpuRecordingSink sink;
    auto ctx = culprit::test::gpu_context(sink, "ps", "h1", 2026);
    culprit::ingest::parse_ps(s.text, ctx);
    REQUIRE(sink.processes.size() == 1);  // not the grep
    CHECK(sink.processes[0].pid == 1395);
    CHECK(sink.processes[0].state == "Tl");
    CHECK(sink.processes[0].user == "thomas");
  }
  CHECK(found);
  // A log line with numbers around it stays an app log.
  CHECK(culprit::ingest::sniff_format("step 100 1.7 14.4 89506440 28604880 loss 0.5\nstep 101 done\n") == "app_log");
}

TEST_CASE("ps: may_open_listing passes every header and row the readers accept, and turns log lines away", "[ps]") {
  namespace ps = culprit::ingest::ps;
  namespace fs = std::filesystem;
  // Every line of every ps fixture, each also behind an indent: what ps_shape (or parse_header,
  // or the header-less layouts) accepts, the pre-check must pass.
  std::size_t accepted = 0;
  for (const auto& entry : fs::directory_iterator(fs::path(CULPRIT_SOURCE_DIR) / "fixtures" / "formats" / "ps")) {
    if (entry.path().extension() != ".txt") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();  // the lines are views of it
    for (const auto line : culprit::text::split_lines(text)) {
      for (const std::string& l : {std::string(line), " \t " + std::string(line)}) {
        const auto t = culprit::text::trim(l);
        const bool reader = culprit::ingest::detect::ps_shape(l) || ps::parse_header(t) || ps::headerless_layout(t);
        if (!reader) continue;
        ++accepted;
        INFO(entry.path().filename().string() << ": " << l);
        CHECK(ps::may_open_listing(l));
      }
    }
  }
  CHECK(accepted > 20);
  CHECK(ps::may_open_listing("USER         PID %CPU %MEM    VSZ   RSS TTY      STAT START   TIME COMMAND"));
  CHECK(ps::may_open_listing("  PID TTY          TIME CMD"));
  CHECK(ps::may_open_listing("%CPU PID COMMAND"));
  CHECK(ps::may_open_listing(std::string(32, 'u') + " 1395  1.7"));
  CHECK(ps::may_open_listing("root 1 0.0"));
  CHECK(ps::may_open_listing("bob 883120 882977 0 Apr08"));
  CHECK_FALSE(ps::may_open_listing("root 1"));  // no third token
  CHECK_FALSE(ps::may_open_listing(std::string(33, 'u') + " 1395  1.7"));
  CHECK_FALSE(ps::may_open_listing("INFO 04-09 00:47:22 [scheduler.py:84] Finished request cmpl-61009ba2cb3179ff."));
  CHECK_FALSE(ps::may_open_listing("Apr  9 00:47:19 gpu-node-3 kernel: [ 93.118204] python3 invoked oom-killer"));
  CHECK_FALSE(ps::may_open_listing("INFO:root 1395  1.7 14.4"));
  CHECK_FALSE(ps::may_open_listing("worker 7a 0.53"));
  CHECK_FALSE(ps::may_open_listing("alone"));
  CHECK_FALSE(ps::may_open_listing("alone   "));
  CHECK_FALSE(ps::may_open_listing(""));
}
