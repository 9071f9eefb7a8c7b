// Segmenting keeps a kernel OOM report in one kernel_log segment when its lines carry no stamp
// (console capture, `dmesg -t`, /dev/kmsg bodies), a prefix the stamp regex does not know
// (`host: `, `<kern.warning> kernel:`), or a 5.3+ memory.stat record; app logs stay app logs.
#include <catch2/catch.hpp>

#include "culprit/ingest/sniff.hpp"

using culprit::ingest::segment_text;

TEST_CASE("an unstamped OOM report with stack, registers and Mem-Info is one kernel segment", "[sniff]") {
  constexpr std::string_view kText =
      "doxygen invoked oom-killer: gfp_mask=0x140dca(GFP_HIGHUSER_MOVABLE|__GFP_COMP|__GFP_ZERO), order=0, oom_score_adj=0\n"
      "CPU: 1 PID: 473206 Comm: doxygen Not tainted 6.1.1-arch1-1 #1 ab8d1a2ef3bbd4a8bb3c2cd0f9d6d6e4a0c5c0b1\n"
      "Hardware name: Gigabyte Technology Co., Ltd. B450 AORUS ELITE/B450 AORUS ELITE, BIOS F63a 02/17/2022\n"
      "Call Trace:\n"
      " <TASK>\n"
      " dump_stack_lvl+0x48/0x60\n"
      " dump_header+0x4a/0x211\n"
      " oom_kill_process.cold+0xb/0x10\n"
      " out_of_memory+0x1f1/0x520\n"
      " __alloc_pages_slowpath.constprop.0+0xcbd/0xe10\n"
      " ? sched_clock_cpu+0xd/0xb0\n"
      " exc_page_fault+0x74/0x170\n"
      " asm_exc_page_fault+0x26/0x30\n"
      "RIP: 0033:0x7f5ba27c6d6f\n"
      "Code: Unable to access opcode bytes at 0x7f5ba27c6d45.\n"
      "RSP: 002b:00007ffd84637ec0 EFLAGS: 00010206\n"
      "RAX: 0000000000015fd1 RBX: 0000000000001010 RCX: 00005658cf73d030\n"
      "RDX: 0000000000001011 RSI: 00005658cf73e030 RDI: 0000000000000004\n"
      "RBP: 00007f5ba2909ba0 R08: 0000000000001001 R09: 00007f5ba2909c70\n"
      "R10: 00007f5ba2909c70 R11: 0000000000000000 R12: 0000000000001001\n"
      "R13: 0000000000000063 R14: ffffffffffffff78 R15: 00007f5ba2909c00\n"
      " </TASK>\n"
      "Mem-Info:\n"
      "active_anon:1413442 inactive_anon:1509191 isolated_anon:0\n"
      " active_file:29 inactive_file:186 isolated_file:0\n"
      " unevictable:2047 dirty:56 writeback:20\n"
      " slab_reclaimable:130091 slab_unreclaimable:89303\n"
      " mapped:1293 shmem:19540 pagetables:25704\n"
      " sec_pagetables:0 bounce:0\n"
      " kernel_misc_reclaimable:0\n"
      " free:34629 free_pcp:0 free_cma:0\n"
      "Node 0 DMA free:13312kB boost:0kB min:64kB low:80kB high:96kB reserved_highatomic:0KB\n"
      "lowmem_reserve[]: 0 3191 15659 15659 15659\n"
      "Free swap  = 84kB\n"
      "Total swap = 25165820kB\n"
      "4115400 pages RAM\n"
      "Out of memory: Killed process 473206 (doxygen) total-vm:30290680kB, anon-rss:9234320kB, file-rss:4kB, shmem-rss:0kB, UID:504 pgtables:59264kB oom_score_adj:0\n";
  auto segs = segment_text(kText);
  REQUIRE(segs.size() == 1);
  CHECK(segs[0].format == "kernel_log");
}

TEST_CASE("syslog prefixes without a kernel tag still make kernel text", "[sniff]") {
  constexpr std::string_view kText =
      "Apr 01 14:13:32 mysrv: sed invoked oom-killer: gfp_mask=0x201da, order=0, oom_score_adj=0\n"
      "Apr 01 14:13:32 mysrv: sed cpuset=/ mems_allowed=0-1\n"
      "Apr 01 14:13:32 mysrv: CPU: 4 PID: 29481 Comm: sed Not tainted 3.10.0-514.6.1.el7.x86_64 #1\n"
      "Apr 01 14:13:32 mysrv <kern.warning> kernel: Hardware name: HP ProLiant DL385 G7, BIOS A18 12/08/2012\n"
      "Apr 01 14:13:32 mysrv <kern.warning> kernel: Call Trace:\n"
      "Apr 01 14:13:32 mysrv: Mem-Info:\n"
      "Apr 01 14:13:32 mysrv: Out of memory: Kill process 6576 (mysqld) score 651 or sacrifice child\n"
      "Apr 01 14:13:32 mysrv: Killed process 6576 (mysqld) total-vm:33914892kB, anon-rss:20629004kB, file-rss:0kB\n";
  auto segs = segment_text(kText);
  REQUIRE(segs.size() == 1);
  CHECK(segs[0].format == "kernel_log");
}

TEST_CASE("a memory.stat record after `Memory cgroup stats for` stays in the report", "[sniff]") {
  std::string text =
      "[Di Aug 12 03:54:03 2025] memory: usage 31211520kB, limit 31211520kB, failcnt 83420\n"
      "[Di Aug 12 03:54:03 2025] Memory cgroup stats for /lxc/39004:\n"
      "[Di Aug 12 03:54:03 2025] anon 31154200576\n";
  for (const char* key : {"file", "kernel_stack", "pagetables", "percpu", "sock", "shmem", "file_mapped", "file_dirty",
                          "file_writeback", "swapcached", "anon_thp", "inactive_anon", "active_anon", "slab", "pgfault"})
    text += std::string("                          ") + key + " 688283648\n";
  text += "[Di Aug 12 03:54:03 2025] Tasks state (memory values in pages):\n";
  auto segs = segment_text(text);
  REQUIRE(segs.size() == 1);
  CHECK(segs[0].format == "kernel_log");
}

TEST_CASE("training logs with key value words stay app logs", "[sniff]") {
  constexpr std::string_view kText =
      "epoch 3\n"
      "step 100 loss 0.5\n"
      "free: 12 GB on /data\n"
      "OK: 3 checks passed\n"
      "ID: 1234 started\n"
      "Code: 200 from /v1/models\n"
      "memory: usage 30%\n"
      "Out of memory: retrying with a smaller batch\n"
      "Traceback (most recent call last):\n"
      "  File \"train.py\", line 12, in <module>\n"
      "    main()\n"
      "RuntimeError: CUDA error: an illegal memory access was encountered\n";
  auto segs = segment_text(kText);
  REQUIRE(segs.size() == 1);
  CHECK(segs[0].format == "app_log");
}
