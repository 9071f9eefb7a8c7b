// Xid details (formats.md Part 7): PCI address normal form, the code catalogue, NVLink5 detail
// words, per-code readings, and one Xid 79 per GPU fall whichever way the driver told it.
#include <catch2/catch.hpp>

#include "culprit/ingest/parser.hpp"
#include "ingest/xid_details.hpp"
#include "unit/ingest/recording_sink.hpp"
#include "culprit/core/facts.hpp"
#include "unit/ingest/test_signals.hpp"

namespace xid_details_tests {

using culprit::core::Event;
using culprit::core::Severity;
using culprit::ingest::enrich_xid_event;
using culprit::ingest::normalise_bdf;
using culprit::ingest::parse_nvlink_detail;
using culprit::test::make_signal;
using culprit::test::RecordingSink;

namespace {

Event xid_event(std::string rule, std::initializer_list<std::pair<std::string, std::string>> fields) {
  Event e;
  e.kind = "xid";
  e.rule = std::move(rule);
  for (const auto& [k, v] : fields) e.set(k, v);
  return e;
}

/// The shipped signals the fall-off tracker keys on, with the facts they declare (rules/signals/xid.toml:
/// `provides`, which the tracker reads).
culprit::text::SignalSet driver_signals() {
  culprit::text::SignalSet set;
  const auto providing = [](culprit::text::Signal s, std::string_view fact) {
    s.fields.emplace_back(culprit::core::fact::kField, culprit::core::fact::field_value({std::string(fact)}));
    return s;
  };
  set.add(providing(make_signal("nvrm_xid", "xid", Severity::error,
                      R"(NVRM: Xid \((?:PCI:)?(?P<pci>[0-9a-fA-F]+:[0-9a-fA-F]+(?::[0-9a-fA-F]+)?(?:\.[0-9a-fA-F]+)?)\): (?P<xid>\d+)(?:, pid=(?:'<unknown>'|<unknown>|(?P<pid>\d+)), name=(?:<unknown>|(?P<name>[^,]*)))?(?:,? (?P<detail>.*))?)",
                      {"NVRM: Xid"}), culprit::core::fact::kXidLine));
  set.add(providing(make_signal("nvrm_fallen_off_bus", "xid", Severity::critical,
                      R"(NVRM: GPU (?:at PCI:)?(?P<pci>(?:[0-9a-fA-F]+:)?[0-9a-fA-F]+:[0-9a-fA-F]+(?:\.[0-9a-fA-F]+)?): GPU has fallen off the bus)",
                      {"fallen off the bus"}), culprit::core::fact::kFallenOffBus));
  set.add(providing(make_signal("nvrm_gpu_not_responding", "xid", Severity::critical,
                      R"(has fallen off the bus and is not responding to commands)", {"fallen off the bus"}),
                    culprit::core::fact::kGpuNotResponding));
  set.build();
  return set;
}

struct Run {
  RecordingSink sink;
  culprit::core::Diagnostics diags;
  culprit::text::SignalSet signals = driver_signals();
};

void run_kernel(std::string_view text, Run& r) {
  culprit::ingest::ParseContext ctx;
  ctx.sink = &r.sink;
  ctx.signals = &r.signals;
  ctx.diagnostics = &r.diags;
  ctx.source_id = 1;
  ctx.source_name = "dmesg";
  ctx.format = "kernel_log";
  culprit::ingest::parse_kernel_log(text, ctx);
}

std::vector<Event> xids(const RecordingSink& s) {
  std::vector<Event> out;
  for (const auto& e : s.events)
    if (e.kind == "xid" && e.field("xid") != nullptr) out.push_back(e);
  return out;
}

}  // namespace

TEST_CASE("PCI addresses in every printed form give one normal form", "[xid]") {
  CHECK(normalise_bdf("PCI:0000:05:00") == "0000:05:00");
  CHECK(normalise_bdf("0000:3b:00") == "0000:3b:00");
  CHECK(normalise_bdf("0000:b3:00.0") == "0000:b3:00");          // NVSentinel / fall-off text
  CHECK(normalise_bdf("00000000:3B:00.0") == "0000:3b:00");      // nvidia-smi
  CHECK(normalise_bdf("18:00.0") == "0000:18:00");               // no domain
  CHECK(normalise_bdf("0018:01:00") == "0018:01:00");            // Grace domains
  CHECK_FALSE(normalise_bdf("invalid-bdf.0"));
  CHECK_FALSE(normalise_bdf("invalid"));
  CHECK_FALSE(normalise_bdf("0000:05:00:00:01"));
}

TEST_CASE("catalogue: meaning, class, action and severity per code", "[xid]") {
  const auto* x48 = culprit::ingest::find_xid_code(48);
  REQUIRE(x48 != nullptr);
  CHECK(x48->cls == "hardware");
  CHECK(x48->severity == Severity::critical);
  const auto* x31 = culprit::ingest::find_xid_code(31);
  REQUIRE(x31 != nullptr);
  CHECK(x31->name == "GPU memory page fault");
  CHECK(x31->action == "restart_app");
  CHECK(x31->severity == Severity::error);
  CHECK(culprit::ingest::find_xid_code(79)->action == "reboot_node");
  CHECK(culprit::ingest::find_xid_code(43)->cls == "consequence");
  CHECK(culprit::ingest::find_xid_code(99999) == nullptr);

  Event unknown = xid_event("nvrm_xid", {{"pci", "0000:05:00"}, {"xid", "999"}});
  enrich_xid_event(unknown);
  CHECK(unknown.field_or("xid_class") == "unknown");
  CHECK(unknown.field_or("action") == "contact_support");
  CHECK(unknown.field_or("xid_name").empty());
}

TEST_CASE("NVLink5 detail words (Xid 144-150)", "[xid]") {
  auto d = parse_nvlink_detail("NETIR_LINK_EVT  Fatal   XC0 i0 Link 08 (0x004505c6 0x00000000 0x00000000 0x00000000 0x00000000 0x00000000)");
  REQUIRE(d);
  CHECK(d->unit == "NETIR_LINK_EVT");
  CHECK(d->severity == "Fatal");
  CHECK(d->link == 8);
  CHECK(d->intrinfo == 0x004505c6ul);
  CHECK(d->error_status == 0ul);

  auto neg = parse_nvlink_detail("NETIR Fatal XC0 i0 Link -1 (0x000fe406 0x00000000 0x00000000 0x00000000)");
  REQUIRE(neg);
  CHECK(neg->link == -1);

  auto cut = parse_nvlink_detail("NETIR Fatal XC0 i0 Link -1 (0x000fe406");
  REQUIRE(cut);
  CHECK(cut->intrinfo == 0x000fe406ul);
  CHECK_FALSE(cut->error_status);

  CHECK_FALSE(parse_nvlink_detail("GPU has fallen off the bus."));
  CHECK_FALSE(parse_nvlink_detail("GPU recovery action changed from 0x0 (None) to 0x4 (Drain and Reset)"));
}

TEST_CASE("per-code readings: NVLink5 subcode, recovery action, GPC/TPC/SM, NVLink id", "[xid]") {
  Event nvl = xid_event("nvrm_xid", {{"pci", "0018:01:00"}, {"xid", "149"},
                                     {"detail", "NETIR_LINK_EVT Fatal XC0 i0 Link 09 (0x004525c6 0x00000000 0x00000000)"}});
  enrich_xid_event(nvl);
  CHECK(nvl.field_or("nvlink_unit") == "NETIR_LINK_EVT");
  CHECK(nvl.field_or("nvlink_subcode") == "4");  // (0x004525c6 >> 20) & 0x3F
  CHECK(nvl.field_or("intrinfo") == "0x004525c6");
  CHECK(nvl.field_or("link") == "9");
  CHECK(nvl.severity == Severity::critical);
  CHECK(nvl.field_or("action") == "reset_gpu");

  Event warn = xid_event("nvrm_xid", {{"pci", "0019:01:00"}, {"xid", "145"},
                                      {"detail", "RLW_SRC_TRACK Nonfatal XC1 i0 Link 12 (0x040988e2 0x00000008 0x00000000)"}});
  enrich_xid_event(warn);
  CHECK(warn.field_or("nvlink_subcode") == "0");
  CHECK(warn.field_or("error_status") == "0x00000008");
  CHECK(warn.severity == Severity::warning);

  Event rec = xid_event("nvrm_xid", {{"pci", "0000:01:00"}, {"xid", "154"},
                                     {"detail", "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)"}});
  enrich_xid_event(rec);
  CHECK(rec.field_or("recovery_action") == "Node Reboot Required");
  CHECK(rec.field_or("action") == "reboot_node");

  Event sm = xid_event("nvrm_xid", {{"pci", "0000:b5:00"}, {"xid", "13"},
                                    {"detail", "Graphics SM Warp Exception on (GPC 1, TPC 3, SM 0): Out Of Range Address"}});
  enrich_xid_event(sm);
  CHECK(sm.field_or("gpc") == "1");
  CHECK(sm.field_or("tpc") == "3");
  CHECK(sm.field_or("sm") == "0");
  CHECK(sm.field_or("bdf") == "0000:b5:00");

  Event link = xid_event("nvrm_xid", {{"pci", "0003:00:00"}, {"xid", "74"},
                                      {"detail", "NVLink: fatal error detected on link 14(0x0, 0x0, 0x10000, 0x0, 0x0, 0x0, 0x0)"}});
  enrich_xid_event(link);
  CHECK(link.field_or("link") == "14");
  CHECK(link.severity == Severity::critical);

  Event sx = xid_event("nvswitch_sxid", {{"pci", "0000:c1:00.0"}, {"sxid", "28006"}, {"fatality", "Non-fatal"},
                                         {"detail", "Link 46 MC TS crumbstore MCTO (First)"}});
  enrich_xid_event(sx);
  CHECK(sx.field_or("link") == "46");
  CHECK(sx.field_or("sxid_message") == "MC TS crumbstore MCTO (First)");
  CHECK(sx.field_or("bdf") == "0000:c1:00");
  CHECK(sx.severity == Severity::warning);
}

TEST_CASE("the multi-line fall-off record becomes one Xid 79 with its PCI id", "[xid][fall_off]") {
  Run r;
  run_kernel("[ 1843.308145] NVRM: The NVIDIA GPU 0000:18:00.0\n"
             "[ 1843.308146] NVRM: (PCI ID: 10de:2901) installed in this system has\n"
             "[ 1843.308147] NVRM: fallen off the bus and is not responding to commands.\n"
             "[ 1843.400000] pcieport 0000:17:01.0: AER: Uncorrected (Fatal) error received\n",
             r);
  auto x = xids(r.sink);
  REQUIRE(x.size() == 1);
  CHECK(x[0].field_or("xid") == "79");
  CHECK(x[0].field_or("bdf") == "0000:18:00");
  CHECK(x[0].field_or("pci_id") == "10de:2901");
  CHECK(x[0].field_or("xid_inferred") == "1");
  CHECK(x[0].severity == Severity::critical);
  CHECK(x[0].line == 1);
  CHECK(x[0].line_end == 3);
  CHECK(x[0].ts_value == Approx(1843.308145));
}

TEST_CASE("an Xid 79 line for the same GPU stands for the fall: the text is its echo", "[xid][fall_off]") {
  SECTION("Xid line after the record") {
    Run r;
    run_kernel("[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
               "               NVRM: (PCI ID: 10de:26b5) installed in this system has\n"
               "               NVRM: fallen off the bus and is not responding to commands.\n"
               "NVRM: Xid (PCI:0000:b3:00.0): 79, pid=12345, GPU has fallen off the bus.\n",
               r);
    auto x = xids(r.sink);
    REQUIRE(x.size() == 1);
    CHECK(x[0].rule == "nvrm_xid");
    CHECK(x[0].field("xid_inferred") == nullptr);
  }
  SECTION("Xid line inside the record") {
    Run r;
    run_kernel("[ 1843.308145] NVRM: The NVIDIA GPU 0000:b3:00.0\n"
               "               NVRM: Xid (PCI:0000:b3:00.0): 79\n"
               "               NVRM: fallen off the bus and is not responding to commands.\n",
               r);
    REQUIRE(xids(r.sink).size() == 1);
  }
  SECTION("Xid line earlier in the log") {
    Run r;
    run_kernel("NVRM: Xid (PCI:0000:b3:00.0): 79, pid=1234, name=process\n"
               "systemd[1]: Started Session 4 of user root.\n"
               "NVRM: The NVIDIA GPU 0000:b3:00.0 fallen off the bus and is not responding to commands.\n",
               r);
    REQUIRE(xids(r.sink).size() == 1);
  }
  SECTION("Xid and the text on one line") {
    Run r;
    run_kernel("NVRM: Xid (PCI:0000:b3:00.0): 79, GPU has fallen off the bus and is not responding to commands.\n", r);
    REQUIRE(r.sink.of_kind("xid").size() == 1);
  }
  SECTION("another GPU's Xid does not hide this one's fall") {
    Run r;
    run_kernel("NVRM: Xid (PCI:0000:b3:00.0): 79\n"
               "NVRM: The NVIDIA GPU 0000:b4:00.0 fallen off the bus and is not responding to commands.\n",
               r);
    auto x = xids(r.sink);
    REQUIRE(x.size() == 2);
    CHECK(x[1].field_or("bdf") == "0000:b4:00");
    CHECK(x[1].field_or("xid_inferred") == "1");
  }
}

TEST_CASE("one-line fall-off reports, with and without a PCI domain", "[xid][fall_off]") {
  Run r;
  run_kernel("NVRM: GPU 0000:29:00.0: GPU has fallen off the bus.\nNVRM: GPU 18:00.0: GPU has fallen off the bus.\n", r);
  auto x = xids(r.sink);
  REQUIRE(x.size() == 2);
  CHECK(x[0].field_or("bdf") == "0000:29:00");
  CHECK(x[1].field_or("bdf") == "0000:18:00");
  CHECK(x[1].field_or("xid") == "79");
}

TEST_CASE("a fall-off record without a valid PCI address names no GPU", "[xid][fall_off]") {
  Run r;
  run_kernel("NVRM: The NVIDIA GPU invalid-bdf.0\nNVRM: fallen off the bus and is not responding to commands.\n", r);
  CHECK(xids(r.sink).empty());
}

}  // namespace xid_details_tests
