#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <cstdlib>
#include <iostream>
#include "culprit/ingest/parser.hpp"
#include "culprit/ingest/sniff.hpp"
#include "unit/ingest/fixture_files.hpp"
#include "unit/ingest/recording_sink.hpp"
#include "unit/ingest/host_test_signals.hpp"
TEST_CASE("zz dump", "[.][dump]") {
  const char* f = std::getenv("DUMP_FILE");
  const char* fmt_ = std::getenv("DUMP_FORMAT");
  if (!f) return;
  auto signals = culprit::test::host_test_signals();
  std::string text = culprit::test::read_fixture(f);
  std::cout << "sniff=" << culprit::ingest::sniff_format(text) << " segments=" << culprit::ingest::segment_text(text).size() << "\n";
  culprit::test::RecordingSink sink;
  culprit::core::Diagnostics diags;
  culprit::ingest::ParseContext ctx;
  ctx.sink = &sink; ctx.signals = &signals; ctx.diagnostics = &diags; ctx.source_id = 3; ctx.source_name = "f";
  ctx.host = std::getenv("DUMP_HOST") ? std::getenv("DUMP_HOST") : "";
  ctx.format = fmt_ ? fmt_ : culprit::ingest::sniff_format(text);
  culprit::ingest::parse_segment(text, ctx);
  for (auto& e : sink.events) {
    std::cout << e.kind << " rule=" << e.rule << " line=" << e.line << "-" << e.line_end << " host=" << e.host << " pid=" << (e.pid ? std::to_string(*e.pid) : "-")
              << " comm=" << e.comm << " ts=" << (e.ts ? fmt::format("{:.6f}", *e.ts) : "-") << " kind=" << to_string(e.ts_kind) << " tsv=" << (e.ts_value ? fmt::format("{:.6f}", *e.ts_value) : "-") << " raw=" << e.ts_raw << "\n   msg=" << e.message << "\n   ";
    for (auto& fl : e.fields) std::cout << fl.key << "=" << fl.value << (fl.numeric ? "#" : "") << " ";
    std::cout << "\n";
  }
  for (auto& r : sink.oom_reports) std::cout << "REPORT host=" << r.host << " victim=" << (r.victim_pid ? *r.victim_pid : -1) << " " << r.victim_comm << " constraint=" << r.constraint << " memcg=" << r.memcg << " tasks=" << r.tasks.size() << " trigger=" << (r.trigger_pid?*r.trigger_pid:-1) << " task_memcg=" << r.task_memcg << "\n";
  for (auto& c : sink.containers) std::cout << "CONTAINER host=" << c.host << " name=" << c.name << " id=" << c.id << " image=" << c.image << " status=" << c.status << "\n";
  for (auto& p : sink.processes) std::cout << "PROC " << p.host << " " << p.pid << " " << p.name << " " << p.container << " " << p.evidence << "\n";
  for (auto& d : diags) std::cout << "DIAG " << d.to_string() << "\n";
}
