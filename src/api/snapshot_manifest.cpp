// The manifest as JSON: a handful of fields written with report::json_quote, read with simdjson.
#include "culprit/api/snapshot_manifest.hpp"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <ctime>

#include "culprit/core/job_output.hpp"
#include "culprit/report/json_writer.hpp"

namespace culprit::api {
namespace {

std::string text_of(simdjson::dom::object o, std::string_view key) {
  std::string_view v;
  if (o[key].get_string().get(v)) return {};
  return std::string(v);
}

}  // namespace

std::string manifest_json(const Manifest& m) {
  std::string s = "{\n";
  s += fmt::format("  \"culprit_snapshot\": 1,\n  \"made_by\": {},\n  \"host\": {},\n  \"taken\": {},\n  \"taken_utc\": {},\n",
                   report::json_quote(m.made_by), report::json_quote(m.host), fmt::format("{:.6f}", m.taken), report::json_quote(iso_utc(m.taken)));
  if (m.job) {
    const auto& j = *m.job;
    std::string cmd;
    for (const auto& a : j.command) cmd += (cmd.empty() ? "" : ", ") + report::json_quote(a);
    s += fmt::format(
        "  \"job\": {{\"pid\": {}, \"user\": {}, \"started\": {:.6f}, \"started_utc\": {}, \"command\": [{}], "
        "\"ended\": {:.6f}, \"exit_code\": {}, \"signal\": {}}},\n",
        j.pid, report::json_quote(j.user), j.started, report::json_quote(iso_utc(j.started, true)), cmd, j.ended,
        j.exit_code, j.signal);
  }
  s += fmt::format("  \"kernel_log\": {},\n", report::json_quote(m.kernel_log));
  s += "  \"tools\": [";
  for (std::size_t i = 0; i < m.tools.size(); ++i) {
    const auto& t = m.tools[i];
    s += fmt::format("{}\n    {{\"tool\": {}, \"file\": {}, \"status\": {}, \"detail\": {}}}", i ? "," : "", report::json_quote(t.tool),
                     report::json_quote(t.file), report::json_quote(t.status), report::json_quote(t.detail));
  }
  s += "\n  ]\n}\n";
  return s;
}

std::optional<Manifest> parse_manifest(std::string_view text) {
  simdjson::dom::parser parser;
  simdjson::dom::element doc;
  if (parser.parse(text.data(), text.size()).get(doc)) return std::nullopt;
  simdjson::dom::object o;
  if (doc.get_object().get(o)) return std::nullopt;
  std::int64_t version = 0;
  if (o["culprit_snapshot"].get_int64().get(version) || version != 1) return std::nullopt;
  Manifest m;
  m.made_by = text_of(o, "made_by");
  m.host = text_of(o, "host");
  double taken = 0;
  if (!o["taken"].get_double().get(taken)) m.taken = taken;
  simdjson::dom::object job;
  if (!o["job"].get_object().get(job)) {
    JobRecord j;
    std::int64_t v = 0;
    if (!job["pid"].get_int64().get(v)) j.pid = v;
    j.user = text_of(job, "user");
    double started = 0;
    if (!job["started"].get_double().get(started)) j.started = started;
    double ended = 0;
    if (!job["ended"].get_double().get(ended)) j.ended = ended;
    if (!job["exit_code"].get_int64().get(v)) j.exit_code = static_cast<int>(v);
    if (!job["signal"].get_int64().get(v)) j.signal = static_cast<int>(v);
    simdjson::dom::array cmd;
    if (!job["command"].get_array().get(cmd))
      for (auto a : cmd) {
        std::string_view arg;
        if (!a.get_string().get(arg)) j.command.emplace_back(arg);
      }
    if (j.pid > 0) m.job = j;
  }
  m.kernel_log = text_of(o, "kernel_log");
  simdjson::dom::array tools;
  if (!o["tools"].get_array().get(tools))
    for (auto t : tools) {
      simdjson::dom::object to;
      if (t.get_object().get(to)) continue;
      m.tools.push_back({text_of(to, "tool"), text_of(to, "file"), text_of(to, "status"), text_of(to, "detail")});
    }
  return m;
}

bool is_manifest_name(std::string_view source_name) {
  return core::job_output::base_name_is(source_name, kManifestName);
}

std::string iso_utc(double seconds, bool fraction) {
  const auto whole = static_cast<std::time_t>(std::floor(seconds));
  std::tm tm{};
  ::gmtime_r(&whole, &tm);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  if (!fraction) return std::string(buf) + "Z";
  const auto micros = static_cast<long>((seconds - static_cast<double>(whole)) * 1e6);
  return fmt::format("{}.{:06d}Z", buf, std::min(micros, 999999L));
}

}  // namespace culprit::api
