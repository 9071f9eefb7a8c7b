// /proc/PID/stack (fs/proc/base.c proc_pid_stack: `[<%pK>] %pB` per frame): the data-driven
// fixtures under fixtures/formats/proc_stack, frame parsing with look-alikes, and the pid taken
// from a prompt's command when the output follows a prompt.
#include "culprit/ingest/sniff.hpp"
#include "ingest/formats/proc_stack.hpp"
#include "unit/ingest/gpu_fixture_runner.hpp"

using culprit::test::GpuRecordingSink;
namespace stack = culprit::ingest::proc_stack;

TEST_CASE("proc_stack fixtures", "[proc_stack][fixtures]") {
  culprit::test::run_parser_fixtures("proc_stack", "proc_stack", &culprit::ingest::parse_proc_stack);
}

TEST_CASE("proc_stack: frames and the command that names the pid", "[proc_stack]") {
  auto f = stack::parse_frame("      [<0>] uvm_tracker_wait+0xa2/0x1c0 [nvidia_uvm]");
  REQUIRE(f);
  CHECK(f->function == "uvm_tracker_wait");
  CHECK(f->module == "nvidia_uvm");
  f = stack::parse_frame("[<ffffffffa1b2c3d4>] do_exit+0x365/0xaf0");
  REQUIRE(f);
  CHECK(f->module.empty());
  CHECK(stack::parse_frame("[<0>] release_pages.constprop.0+0x10/0x20")->function == "release_pages.constprop.0");
  // Look-alikes: a kernel log's stack trace (`? func+0x…`, ` func+0x…/0x…` without `[<…>]`),
  // an Xid line, prose with brackets.
  CHECK_FALSE(stack::parse_frame(" ? uvm_spin_loop+0xb4/0x100 [nvidia_uvm]"));
  CHECK_FALSE(stack::parse_frame("  dump_stack_lvl+0x4a/0x63"));
  CHECK_FALSE(stack::parse_frame("[<0>] see below"));
  CHECK_FALSE(stack::parse_frame("[<0x>] f+0x1/0x2"));
  CHECK_FALSE(stack::parse_frame("[<0>] f+0x1/0x2 nvidia_uvm"));
  CHECK(stack::stack_command_pid("sudo cat /proc/77/stack") == 77);
  CHECK(stack::stack_command_pid("cat /proc/4242/stack | head") == 4242);
  CHECK_FALSE(stack::stack_command_pid("cat /proc/self/stack"));
  CHECK_FALSE(stack::stack_command_pid("cat /proc/77/status"));
  CHECK_FALSE(stack::stack_command_pid("ls /proc/77/stackdump"));
}

TEST_CASE("proc_stack: output after a prompt takes the pid from the prompt's command", "[proc_stack][sniff]") {
  const std::string paste =
      "root@gpu-node-7:~# cat /proc/48211/stack\n"
      "[<0>] uvm_va_space_destroy+0x3c1/0x4d0 [nvidia_uvm]\n"
      "[<0>] do_exit+0x365/0xaf0\n"
      "root@gpu-node-7:~# uptime\n";
  const auto segs = culprit::ingest::segment_text(paste);
  bool found = false;
  for (const auto& s : segs) {
    if (s.format != "proc_stack") continue;
    found = true;
    CHECK(s.first_line == 2);
    GpuRecordingSink sink;
    auto ctx = culprit::test::gpu_context(sink, "proc_stack", "gpu-node-7");
    ctx.command = s.command;
    culprit::ingest::parse_proc_stack(s.text, ctx);
    REQUIRE(sink.events.size() == 1);
    CHECK(sink.events[0].pid == 48211);
    CHECK(sink.events[0].message == "/proc/48211/stack: uvm_va_space_destroy [nvidia_uvm]");
  }
  CHECK(found);
  // Frames with no command naming the pid are not read as a stack.
  GpuRecordingSink none;
  auto ctx = culprit::test::gpu_context(none, "proc_stack");
  culprit::ingest::parse_proc_stack("[<0>] uvm_spin_loop+0xb4/0x100 [nvidia_uvm]\n", ctx);
  CHECK(none.events.empty());
}
