// What a kernel OOM report's header and Mem-Info dump add to its event (formats.md §1.3, §1.5):
// kernel version from the CPU line (with 6.11's UID:), the victim's score, zone watermarks, buddy
// zones, slab / shmem / hugepages / swap cache / reserved pages; and /dev/kmsg record numbers.
#include <catch2/catch.hpp>

#include "culprit/ingest/parser.hpp"
#include "ingest/formats/kernel_oom_report.hpp"
#include "ingest/formats/kernel_stamp.hpp"
#include "unit/ingest/recording_sink.hpp"

using culprit::test::RecordingSink;

namespace {

RecordingSink run_kernel(std::string_view text) {
  RecordingSink sink;
  culprit::core::Diagnostics diags;
  culprit::ingest::ParseContext ctx;
  ctx.sink = &sink;
  ctx.diagnostics = &diags;
  ctx.source_id = 1;
  ctx.source_name = "kern.log";
  ctx.format = "kernel_log";
  culprit::ingest::parse_kernel_log(text, ctx);
  return sink;
}

// A 5.4 global OOM (dmesg), Mem-Info as the kernel prints it; zone numbers chosen so that DMA32
// sits between min and low and Normal under min.
constexpr std::string_view kMemInfoReport =
    "[ 7042.118204] python3 invoked oom-killer: gfp_mask=0x100cca(GFP_HIGHUSER_MOVABLE), order=0, oom_score_adj=0\n"
    "[ 7042.118210] CPU: 3 PID: 48213 Comm: python3 Tainted: G           OE     5.4.0-150-generic #167-Ubuntu\n"
    "[ 7042.118212] Hardware name: Supermicro SYS-4029GP-TRT/X11DPG-OT-CPU, BIOS 3.4 05/21/2021\n"
    "[ 7042.118214] Call Trace:\n"
    "[ 7042.118220]  dump_stack+0x6d/0x8b\n"
    "[ 7042.118224]  dump_header+0x4f/0x1eb\n"
    "[ 7042.118240] Mem-Info:\n"
    "[ 7042.118246] active_anon:30412785 inactive_anon:9012 isolated_anon:0\n"
    "                active_file:212 inactive_file:96 isolated_file:0\n"
    "                unevictable:0 dirty:0 writeback:0 unstable:0\n"
    "                slab_reclaimable:21193 slab_unreclaimable:1519283\n"
    "                mapped:5827 shmem:249373 pagetables:64336 bounce:0\n"
    "                free:160215 free_pcp:587 free_cma:0\n"
    "[ 7042.118250] Node 0 DMA free:15908kB min:8kB low:20kB high:32kB active_anon:0kB present:15992kB managed:15908kB\n"
    "[ 7042.118252] lowmem_reserve[]: 0 1933 128891 128891 128891\n"
    "[ 7042.118254] Node 0 DMA32 free:60000kB min:50784kB low:63480kB high:76176kB active_anon:1423716kB present:2080624kB\n"
    "[ 7042.118256] lowmem_reserve[]: 0 0 126958 126958 126958\n"
    "[ 7042.118258] Node 0 Normal free:564952kB min:611240kB low:764048kB high:916856kB active_anon:120227424kB present:132120576kB\n"
    "[ 7042.118260] lowmem_reserve[]: 0 0 0 0 0\n"
    "[ 7042.118262] Node 0 DMA: 1*4kB (U) 0*8kB 0*16kB 1*32kB (U) 2*64kB (U) 1*128kB (U) 1*256kB (U) 0*512kB 1*1024kB (U) 1*2048kB (M) 3*4096kB (M) = 15908kB\n"
    "[ 7042.118264] Node 0 DMA32: 1004*4kB (UM) 1552*8kB (UME) 752*16kB (UME) 404*32kB (UME) 0*64kB 0*128kB 0*256kB 0*512kB 0*1024kB 0*2048kB 0*4096kB = 60000kB\n"
    "[ 7042.118266] Node 0 Normal: 489*4kB (UE) 250*8kB (U) 114*16kB (UME) 0*32kB 0*64kB 0*128kB 0*256kB 0*512kB 0*1024kB 0*2048kB 0*4096kB = 564952kB\n"
    "[ 7042.118268] Node 0 hugepages_total=4 hugepages_free=4 hugepages_surp=0 hugepages_size=1048576kB\n"
    "[ 7042.118270] Node 0 hugepages_total=512 hugepages_free=512 hugepages_surp=0 hugepages_size=2048kB\n"
    "[ 7042.118272] 251124 total pagecache pages\n"
    "[ 7042.118274] 1042 pages in swap cache\n"
    "[ 7042.118276] Swap cache stats: add 13092, delete 12050, find 40/97\n"
    "[ 7042.118278] Free swap  = 0kB\n"
    "[ 7042.118280] Total swap = 8388604kB\n"
    "[ 7042.118282] 33554330 pages RAM\n"
    "[ 7042.118284] 0 pages HighMem/MovableOnly\n"
    "[ 7042.118286] 551002 pages reserved\n"
    "[ 7042.118290] Tasks state (memory values in pages):\n"
    "[ 7042.118292] [  pid  ]   uid  tgid total_vm      rss pgtables_bytes swapents oom_score_adj name\n"
    "[ 7042.118300] [  48213]  1000 48213 31203201 30318450 245817344        0             0 python3\n"
    "[ 7042.118310] Out of memory: Kill process 48213 (python3) score 914 or sacrifice child\n"
    "[ 7042.118320] Killed process 48213 (python3) total-vm:124812804kB, anon-rss:121273800kB, file-rss:0kB, shmem-rss:0kB\n";

}  // namespace

TEST_CASE("Mem-Info figures land on the kernel_oom event", "[kernel_log][mem_info]") {
  auto sink = run_kernel(kMemInfoReport);
  auto ooms = sink.of_kind("kernel_oom");
  REQUIRE(ooms.size() == 1);
  const auto& e = ooms[0];
  CHECK(e.field_or("kernel_version") == "5.4.0-150-generic");
  CHECK(e.field_or("victim_score") == "914");
  CHECK(e.field_or("zones") == "Node 0 DMA, Node 0 DMA32, Node 0 Normal");
  CHECK(e.field_or("zones_below_min") == "Node 0 Normal");
  CHECK(e.field_or("zones_below_low") == "Node 0 DMA32");
  CHECK(e.field_or("buddy_zones") == "Node 0 DMA, Node 0 DMA32, Node 0 Normal");
  CHECK(e.field_or("slab_unreclaimable_bytes") == std::to_string(1519283LL * 4096));
  CHECK(e.field_or("shmem_bytes") == std::to_string(249373LL * 4096));
  CHECK(e.field_or("hugepages_1048576kB_total") == "4");
  CHECK(e.field_or("hugepages_2048kB_total") == "512");
  CHECK(e.field_or("swap_cache_bytes") == std::to_string(1042LL * 4096));
  CHECK(e.field_or("ram_bytes") == std::to_string(33554330LL * 4096));
  CHECK(e.field_or("ram_reserved_bytes") == std::to_string(551002LL * 4096));
  CHECK(e.field_or("swap_total_bytes") == std::to_string(8388604LL * 1024));
  CHECK(e.field_or("trigger_pid") == "48213");
}

TEST_CASE("rsyslog's #012 joins the Mem-Info counter record into one line", "[kernel_log][mem_info]") {
  auto sink = run_kernel(
      "Apr 01 14:13:32 mysrv kernel: sed invoked oom-killer: gfp_mask=0x201da, order=0, oom_score_adj=0\n"
      "Apr 01 14:13:32 mysrv kernel: Mem-Info:\n"
      "Apr 01 14:13:32 mysrv kernel: active_anon:7355653 inactive_anon:660960 isolated_anon:0#012 active_file:1263 "
      "inactive_file:1167 isolated_file:32#012 slab_reclaimable:27412 slab_unreclaimable:13708#012 mapped:4818 "
      "shmem:87896 pagetables:25222 bounce:0#012 free:39513 free_pcp:2958 free_cma:0\n"
      "Apr 01 14:13:32 mysrv kernel: Out of memory: Kill process 6576 (mysqld) score 651 or sacrifice child\n"
      "Apr 01 14:13:32 mysrv kernel: Killed process 6576 (mysqld) total-vm:33914892kB, anon-rss:20629004kB, file-rss:0kB\n");
  auto ooms = sink.of_kind("kernel_oom");
  REQUIRE(ooms.size() == 1);
  CHECK(ooms[0].field_or("slab_unreclaimable_bytes") == std::to_string(13708LL * 4096));
  CHECK(ooms[0].field_or("shmem_bytes") == std::to_string(87896LL * 4096));
  CHECK(ooms[0].field_or("victim_score") == "651");
}

TEST_CASE("CPU line: pid, comm with spaces, 6.11 UID, kernel version after the taint flags", "[kernel_log][mem_info]") {
  using culprit::ingest::kernel::parse_cpu_line;
  auto a = parse_cpu_line("CPU: 0 PID: 19163 Comm: kworker/0:0 Tainted: G           OE     5.4.0-80-lowlatency #90~18.04.1-Ubuntu");
  REQUIRE(a);
  CHECK(a->pid == 19163);
  CHECK(a->comm == "kworker/0:0");
  CHECK(a->kernel_version == "5.4.0-80-lowlatency");
  auto b = parse_cpu_line("CPU: 4 UID: 123456 PID: 29481 Comm: sed Not tainted 6.12.0 #1");
  REQUIRE(b);
  CHECK(b->uid == 123456);
  CHECK(b->kernel_version == "6.12.0");
  auto c = parse_cpu_line("CPU: 1 PID: 77 Comm: Plex Media Server Not tainted 3.10.0-1062.9.1.el7.x86_64 #1");
  REQUIRE(c);
  CHECK(c->comm == "Plex Media Server");
  CHECK(c->kernel_version == "3.10.0-1062.9.1.el7.x86_64");
  CHECK_FALSE(parse_cpu_line("CPU: 4 PID: x Comm: sed"));
  CHECK_FALSE(parse_cpu_line("Hardware name: QEMU Standard PC"));
}

TEST_CASE("/dev/kmsg records keep their priority and sequence number", "[kernel_stamp][kmsg]") {
  using culprit::ingest::kernel::parse_kernel_line;
  auto kl = parse_kernel_line("6,2565,102258085667,-;docker0: port 2(vethc1bb733) entered blocking state", 0);
  REQUIRE(kl.kmsg);
  CHECK(kl.kmsg_priority == 6);
  CHECK(kl.kmsg_seq == 2565);
  CHECK(*kl.ts_value == Approx(102258.085667));
  CHECK(kl.message == "docker0: port 2(vethc1bb733) entered blocking state");
  auto extra = parse_kernel_line("4,1227,437812449,c,1,-;NVRM: Xid (PCI:0000:01:00): 43, pid=1814139", 0);
  REQUIRE(extra.kmsg);
  CHECK(extra.kmsg_priority == 4);
  CHECK(extra.message.substr(0, 9) == "NVRM: Xid");
  CHECK(parse_kernel_line("3,123,5000,-;Message with; semicolons; in it", 0).message == "Message with; semicolons; in it");
  CHECK_FALSE(parse_kernel_line("6,2565;message", 0).kmsg);
  CHECK_FALSE(parse_kernel_line("6,2565,102258085667", 0).kmsg);
  CHECK_FALSE(parse_kernel_line("-1,100,5000,-;Negative priority message", 0).kmsg);
}

// fuzz_ingest found a signed overflow (UBSan): `kmem: usage …, limit 90507199254740988kB` (a digit
// more than cgroup v1's "unlimited") times 1024. Sizes past 2^63 bytes, in kB or in pages, are
// now left out as unknown; the report and the rest of its figures still come through.
TEST_CASE("fuzz_ingest: kB and page counts past 2^63 bytes are unknown, not a signed overflow",
          "[kernel_log][mem_info][fuzz]") {
  std::string text(kMemInfoReport);
  auto swap = [&](std::string_view from, std::string_view to) {
    const auto at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  swap("Total swap = 8388604kB", "Total swap = 90507199254740988kB");
  swap("33554330 pages RAM", "9007199254740988000 pages RAM");
  swap("slab_unreclaimable:1519283", "slab_unreclaimable:9007199254740988000");
  swap("anon-rss:121273800kB", "anon-rss:90507199254740988kB");
  auto sink = run_kernel(text);
  auto ooms = sink.of_kind("kernel_oom");
  REQUIRE(ooms.size() == 1);
  const auto& e = ooms[0];
  CHECK(e.field_or("swap_total_bytes").empty());
  CHECK(e.field_or("ram_bytes").empty());
  CHECK(e.field_or("slab_unreclaimable_bytes").empty());
  CHECK(e.field_or("victim_anon_rss_bytes").empty());
  CHECK(e.field_or("shmem_bytes") == std::to_string(249373LL * 4096));
  CHECK(e.field_or("ram_reserved_bytes") == std::to_string(551002LL * 4096));
  CHECK(e.field_or("trigger_pid") == "48213");
}
