// docker ps parser: every fixtures/formats/docker/<variant>.txt against its .expect.json, plus
// focused cases for status wording, offsets vs. 2+-space splitting, and bad input.
#include <simdjson.h>

#include <catch2/catch.hpp>

#include "culprit/ingest/parser.hpp"
#include "unit/ingest/fixture_files.hpp"
#include "unit/ingest/recording_sink.hpp"
#include "unit/json_values.hpp"

using culprit::test::RecordingSink;

namespace {

struct DockerPsRun {
  RecordingSink sink;
  culprit::core::Diagnostics diags;
};

void run_ps(std::string_view text, DockerPsRun& r, const std::string& host = "h1") {
  culprit::ingest::ParseContext ctx;
  ctx.sink = &r.sink;
  ctx.diagnostics = &r.diags;
  ctx.source_name = "docker-ps.txt";
  ctx.host = host;
  ctx.format = "docker_ps";
  culprit::ingest::parse_docker_ps(text, ctx);
}

using culprit::test::as_str;

}  // namespace

TEST_CASE("docker ps fixtures parse as their .expect.json says", "[docker_ps][fixtures]") {
  auto files = culprit::test::format_fixtures("docker");
  REQUIRE(files.size() >= 4);
  for (const auto& txt : files) {
    SECTION(txt.filename().string()) {
      auto expect_path = txt;
      expect_path.replace_extension(".expect.json");
      simdjson::dom::parser jp;
      simdjson::dom::element doc = jp.load(expect_path.string());
      DockerPsRun r;
      std::string host = as_str(doc["context"]["host"]);
      run_ps(culprit::test::read_fixture(txt), r, host);
      auto want_c = doc["containers"].get_array();
      REQUIRE(r.sink.containers.size() == want_c.size());
      std::size_t i = 0;
      for (auto want : want_c) {
        const auto& c = r.sink.containers[i++];
        CHECK(c.host == host);
        for (auto [key, v] : want.get_object()) {
          std::string k(key);
          INFO(txt.filename().string() << " container " << i << " key " << k);
          if (k == "id") CHECK(c.id == as_str(v));
          else if (k == "name") CHECK(c.name == as_str(v));
          else if (k == "image") CHECK(c.image == as_str(v));
          else if (k == "command") CHECK(c.command == as_str(v));
          else if (k == "status") CHECK(c.status == as_str(v));
          else if (k == "pod") CHECK(c.pod == as_str(v));
          else if (k == "pod_namespace") CHECK(c.pod_namespace == as_str(v));
          else if (k == "up_seconds") {
            if (v.is_null()) CHECK_FALSE(c.up_seconds.has_value());
            else { REQUIRE(c.up_seconds.has_value()); CHECK(*c.up_seconds == Approx(double(v.get_double().value()))); }
          } else FAIL("unknown key " << k);
        }
      }
      auto exits = r.sink.of_kind("signal_exit");
      auto want_e = doc["signal_exits"].get_array();
      REQUIRE(exits.size() == want_e.size());
      CHECK(r.sink.events.size() == exits.size());
      i = 0;
      for (auto want : want_e) {
        const auto& e = exits[i++];
        CHECK(e.rule == "docker_ps_exited");
        CHECK(e.line == want["line"].get_int64().value());
        CHECK(e.comm == as_str(want["comm"]));
        for (auto [key, v] : want["fields"].get_object()) {
          INFO("field " << key);
          const auto* f = e.field(key);
          REQUIRE(f != nullptr);
          if (v.is_string()) CHECK(f->value == as_str(v));
          else { CHECK(f->numeric); CHECK(std::stod(f->value) == Approx(double(v.get_double().value()))); }
        }
      }
      CHECK(std::int64_t(r.diags.size()) == doc["notes"].get_int64().value());
    }
  }
}

TEST_CASE("docker ps: status wording to up_seconds and exit events", "[docker_ps]") {
  const char* header =
      "CONTAINER ID   IMAGE     COMMAND   CREATED         STATUS                       PORTS     NAMES\n";
  auto one = [&](const std::string& status) {
    std::string status_cell = status + std::string(status.size() < 29 ? 29 - status.size() : 1, ' ');
    DockerPsRun r;
    run_ps(std::string(header) + "0123456789ab   img       \"sh\"      2 hours ago     " + status_cell +
               "          web\n",
           r);
    REQUIRE(r.sink.containers.size() == 1);
    CHECK(r.sink.containers[0].status == status);
    CHECK(r.sink.containers[0].name == "web");
    return r;
  };
  CHECK(one("Up 2 days").sink.containers[0].up_seconds == Approx(172800));
  CHECK(one("Up 15 seconds").sink.containers[0].up_seconds == Approx(15));
  CHECK(one("Up About an hour").sink.containers[0].up_seconds == Approx(3600));
  CHECK(one("Up About a minute").sink.containers[0].up_seconds == Approx(60));
  CHECK(one("Up 3 hours (healthy)").sink.containers[0].up_seconds == Approx(10800));
  CHECK(one("Up 5 minutes (Paused)").sink.containers[0].up_seconds == Approx(300));
  CHECK(one("Up 4 weeks").sink.containers[0].up_seconds == Approx(4 * 7 * 86400));
  {
    auto r = one("Exited (137) 5 minutes ago");
    CHECK_FALSE(r.sink.containers[0].up_seconds.has_value());
    auto ev = r.sink.of_kind("signal_exit");
    REQUIRE(ev.size() == 1);
    CHECK(ev[0].field_or("exitcode") == "137");
    CHECK(ev[0].field_or("signal_name") == "SIGKILL");
    CHECK(ev[0].field_or("container_name") == "web");
    CHECK(ev[0].severity == culprit::core::Severity::error);
  }
  CHECK(one("Exited (1) 5 minutes ago").sink.events.empty());
  CHECK(one("Exited (0) 2 days ago").sink.events.empty());
  CHECK(one("Restarting (137) 2 seconds ago").sink.of_kind("signal_exit").size() == 1);
  CHECK(one("Created").sink.events.empty());
}

TEST_CASE("docker ps: names with spaces in the command and an empty PORTS column", "[docker_ps]") {
  DockerPsRun r;
  run_ps("CONTAINER ID   IMAGE          COMMAND                  CREATED       STATUS       PORTS     NAMES\n"
         "a1b2c3d4e5f6   python:3.11    \"python -c 'import…\"   2 hours ago   Up 2 hours             my  app\n",
         r);
  REQUIRE(r.sink.containers.size() == 1);
  CHECK(r.sink.containers[0].command == "python -c 'import…");
  CHECK(r.sink.containers[0].image == "python:3.11");
}

TEST_CASE("docker ps: no header, garbage and huge lines are handled", "[docker_ps]") {
  DockerPsRun r;
  run_ps("Error response from daemon: dial unix /var/run/docker.sock: connect: permission denied\n", r);
  CHECK(r.sink.containers.empty());
  REQUIRE(r.diags.size() == 1);
  CHECK(r.diags[0].code == "docker_ps_no_header");
  DockerPsRun g;
  run_ps("CONTAINER ID   IMAGE   STATUS   NAMES\nonly-one-cell\n" + std::string(200000, ' ') + "x\n\xe2\x80\n", g);
  SUCCEED();
}
