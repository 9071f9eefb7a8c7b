// nvidia-smi -q -x XML (formats.md §6.4): the fixtures under fixtures/formats/nvidia_smi_xml,
// sniffing inside a paste, and malformed / cut / hostile XML that must never crash or hang.
#include "culprit/ingest/sniff.hpp"
#include "culprit/text/lines.hpp"
#include "unit/ingest/gpu_fixture_runner.hpp"

using culprit::test::GpuRecordingSink;

TEST_CASE("nvidia_smi_xml fixtures", "[gpu][fixtures][smi_xml]") {
  culprit::test::run_parser_fixtures("nvidia_smi_xml", "nvidia_smi_xml", &culprit::ingest::parse_nvidia_smi_xml);
}

namespace {
const char* kDoc =
    "<?xml version=\"1.0\" ?>\n"
    "<!DOCTYPE nvidia_smi_log SYSTEM \"nvsmi_device_v12.dtd\">\n"
    "<nvidia_smi_log>\n"
    "\t<timestamp>Thu Apr  9 00:47:22 2026</timestamp>\n"
    "\t<driver_version>535.104.05</driver_version>\n"
    "\t<gpu id=\"00000000:18:00.0\">\n"
    "\t\t<product_name>NVIDIA H100 80GB HBM3</product_name>\n"
    "\t\t<fb_memory_usage>\n"
    "\t\t\t<total>81559 MiB</total>\n"
    "\t\t\t<used>74012 MiB</used>\n"
    "\t\t</fb_memory_usage>\n"
    "\t\t<processes>\n"
    "\t\t\t<process_info>\n"
    "\t\t\t\t<pid>48213</pid>\n"
    "\t\t\t\t<type>C</type>\n"
    "\t\t\t\t<process_name>python3</process_name>\n"
    "\t\t\t\t<used_memory>73990 MiB</used_memory>\n"
    "\t\t\t</process_info>\n"
    "\t\t</processes>\n"
    "\t</gpu>\n"
    "\n"
    "</nvidia_smi_log>\n";
}  // namespace

TEST_CASE("nvidia_smi_xml: a document inside a paste is its own segment", "[gpu][smi_xml][sniff]") {
  const std::string paste = std::string("alice@gpu-node-3:~$ nvidia-smi -q -x\n") + kDoc +
                            "alice@gpu-node-3:~$ python train.py\nTraceback (most recent call last):\n";
  int found = 0;
  for (const auto& s : culprit::ingest::segment_text(paste)) {
    if (s.format != "nvidia_smi_xml") continue;
    ++found;
    CHECK(s.first_line == 2);
    CHECK(s.host == "gpu-node-3");
    CHECK(culprit::text::contains(s.text, "</nvidia_smi_log>"));
  }
  CHECK(found == 1);
  CHECK(culprit::ingest::sniff_format(kDoc) == "nvidia_smi_xml");
  // Cut, then other text: the block stops before the other text.
  const std::string cut = std::string(kDoc).substr(0, 300) + "\n[rank0]: RuntimeError: CUDA error: out of memory\n";
  bool xml = false, app = false;
  for (const auto& s : culprit::ingest::segment_text(cut)) {
    xml = xml || s.format == "nvidia_smi_xml";
    app = app || (s.format == "app_log" && culprit::text::contains(s.text, "[rank0]"));
  }
  CHECK(xml);
  CHECK(app);
}

TEST_CASE("nvidia_smi_xml: malformed, cut and hostile XML never crashes", "[gpu][smi_xml]") {
  const std::string doc(kDoc);
  // Every cut of the document: no crash; a cut after the first <pid> still yields the process.
  for (std::size_t n = 0; n <= doc.size(); n += 7) {
    GpuRecordingSink sink;
    auto ctx = culprit::test::gpu_context(sink, "nvidia_smi_xml");
    culprit::ingest::parse_nvidia_smi_xml(doc.substr(0, n), ctx);
    if (n > doc.find("</pid>") + 6) {
      REQUIRE(sink.snapshots.size() == 1);
      CHECK(sink.snapshots[0].processes.size() == 1);
    }
  }
  GpuRecordingSink sink;
  auto ctx = culprit::test::gpu_context(sink, "nvidia_smi_xml");
  std::string deep = "<nvidia_smi_log><gpu id=\"0000:01:00.0\">";
  for (int i = 0; i < 100000; ++i) deep += "<a>";
  deep += "</gpu><gpu id='bad'><fb_memory_usage><total>12 MiB</total><used>&amp;&bogus;</used></fb_memory_usage>"
          "<processes><process_info><pid>-4</pid></process_info><process_info><pid>77</pid></processes>"
          "</wrong></gpu><<<>>></ \xff\xfe <gpu";
  culprit::ingest::parse_nvidia_smi_xml(deep, ctx);
  REQUIRE(sink.snapshots.size() == 2);
  CHECK(sink.snapshots[0].bus_id == "0000:01:00");
  CHECK(sink.snapshots[1].bus_id.empty());
  CHECK(sink.snapshots[1].mem_total == 12 * 1024 * 1024);
  CHECK_FALSE(sink.snapshots[1].mem_used);
  REQUIRE(sink.snapshots[1].processes.size() == 1);
  CHECK(sink.snapshots[1].processes[0].pid == 77);
}
