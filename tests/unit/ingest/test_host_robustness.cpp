// Bad host-side input never crashes ingest: every kernel, journald, docker and kubectl fixture
// with lines dropped, cut mid-line, two hosts' logs interleaved line by line in one paste,
// invalid UTF-8 and a 1 MiB line spliced in. Each run goes through the whole ingest (sniffing,
// segmentation, parsers) and must yield sane records: event lines inside the text, reports
// tied to events.
#include <catch2/catch.hpp>

#include <algorithm>

#include "culprit/ingest/pipeline.hpp"
#include "culprit/text/lines.hpp"
#include "unit/ingest/fixture_files.hpp"
#include "unit/ingest/host_test_signals.hpp"
#include "unit/ingest/recording_sink.hpp"

namespace {

std::vector<std::string> all_fixtures() {
  std::vector<std::string> out;
  for (const char* f : {"kernel", "journal_json", "docker_inspect", "kubectl_describe", "torch_memory_snapshot"})
    for (const auto& p : culprit::test::format_fixtures(f)) out.push_back(culprit::test::read_fixture(p));
  return out;
}

/// Ingests `text` and checks the records are sane.
void ingest_checked(const std::string& text, const culprit::text::SignalSet& signals) {
  culprit::test::RecordingSink sink;
  culprit::core::Diagnostics diags;
  culprit::ingest::IngestInput in{"paste", "", "paste", text};
  culprit::ingest::ingest(in, signals, sink, diags);
  const auto lines = static_cast<std::int64_t>(culprit::text::split_lines(text).size());
  for (const auto& e : sink.events) {
    CHECK(e.line >= 1);
    CHECK(e.line <= std::max<std::int64_t>(lines, 1));
    CHECK(e.line_end >= e.line);
  }
  for (const auto& r : sink.oom_reports) {
    REQUIRE(r.event_id >= 1);
    REQUIRE(static_cast<std::size_t>(r.event_id) <= sink.events.size());
    CHECK(sink.event_of(r).kind == "kernel_oom");
  }
}

std::string join(const std::vector<std::string_view>& lines) {
  std::string out;
  for (auto l : lines) {
    out.append(l);
    out += '\n';
  }
  return out;
}

}  // namespace

TEST_CASE("host-side fixtures survive dropped lines, cuts, splices and interleaving", "[host_formats][robustness]") {
  const auto signals = culprit::test::host_test_signals();
  const auto texts = all_fixtures();
  REQUIRE(texts.size() >= 20);
  for (std::size_t f = 0; f < texts.size(); ++f) {
    INFO("fixture " << f);
    const std::string& text = texts[f];
    const auto lines = culprit::text::split_lines(text);

    // Every 7th line dropped (a rate-limited or grep'ed log).
    std::vector<std::string_view> kept;
    for (std::size_t i = 0; i < lines.size(); ++i)
      if (i % 7 != 3) kept.push_back(lines[i]);
    ingest_checked(join(kept), signals);

    // Cut mid-line at a few places (a paste that stops anywhere).
    for (std::size_t cut = 1; cut < 6; ++cut) ingest_checked(text.substr(0, text.size() * cut / 6 + 3), signals);

    // Invalid UTF-8, control bytes and a 1 MiB line spliced into the middle.
    std::string spliced = join(std::vector<std::string_view>(lines.begin(), lines.begin() + lines.size() / 2));
    spliced += "\xff\xfe\xc3(garbage \x01\x02\x1b[31m\n";
    spliced += std::string(1 << 20, 'A') + "\n";
    spliced += join(std::vector<std::string_view>(lines.begin() + lines.size() / 2, lines.end()));
    ingest_checked(spliced, signals);

    // Interleaved line by line with the next fixture (two terminals pasted into one).
    const auto other = culprit::text::split_lines(texts[(f + 1) % texts.size()]);
    std::vector<std::string_view> mixed;
    for (std::size_t i = 0; i < std::max(lines.size(), other.size()); ++i) {
      if (i < lines.size()) mixed.push_back(lines[i]);
      if (i < other.size()) mixed.push_back(other[i]);
    }
    ingest_checked(join(mixed), signals);
  }
}

TEST_CASE("a journald entry or docker inspect cut inside a string, or nested absurdly deep, is skipped", "[host_formats][robustness]") {
  const auto signals = culprit::test::host_test_signals();
  ingest_checked("{\"__REALTIME_TIMESTAMP\":\"1775695642123456\",\"_TRANSPORT\":\"kernel\",\"MESSAGE\":\"Out of mem", signals);
  ingest_checked("{\"__REALTIME_TIMESTAMP\":\"1775695642123456\",\"MESSAGE\":[79,117,999,-4]}\n", signals);
  ingest_checked("{\"__REALTIME_TIMESTAMP\":\"x\",\"_SOURCE_MONOTONIC_TIMESTAMP\":\"-12\",\"MESSAGE\":null}\n", signals);
  std::string deep = "[\n" + std::string(5000, '[') + std::string(5000, ']') + "\n]\n";
  ingest_checked(deep, signals);
  std::string deep_inspect = "[\n    {\n        \"Id\": \"a\",\n        \"State\": " + std::string(3000, '{') +
                             std::string(3000, '}') + "\n    }\n]\n";
  ingest_checked(deep_inspect, signals);
  ingest_checked("[\n    {\n        \"Id\": \"a\",\n        \"State\": {\n            \"OOMKilled\": tr", signals);
  ingest_checked("Name:             x\nNamespace:        y\nContainers:\n  c:\n    Last State:     Terminated\n"
                 "      Reason:       OOMKilled\n      Exit Code:    99999999999999999999999\n      Finished:     Thu, 99 Zzz\n",
                 signals);
}
