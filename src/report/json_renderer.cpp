// The JSON contract (schema_version 3): one compact object with keys in a fixed order, sizes
// in bytes as integers, times as ISO 8601 UTC strings, absent values as null. The schema is
// schema/culprit-report.schema.json (keys in this order, enumerations, types), documented field
// by field in docs/json.md ("JSON output"); tests/schema checks output, schema and docs agree.
// Change all three together and bump the version.
#include <cmath>
#include <string>

#include "culprit/core/time.hpp"
#include "culprit/report/json_writer.hpp"
#include "report/json_allocator.hpp"
#include "report/renderers.hpp"

namespace culprit::report {
namespace {

constexpr std::int64_t kSchemaVersion = 3;

// A time that is unknown or not a finite number is null, never "".
void write_ts(JsonWriter& w, const std::optional<double>& ts) {
  if (ts && std::isfinite(*ts)) w.value(core::format_iso(*ts));
  else w.null();
}

void write_strings(JsonWriter& w, const std::vector<std::string>& items) {
  w.begin_array();
  for (const auto& s : items) w.value(s);
  w.end_array();
}

void write_culprit(JsonWriter& w, const std::optional<diagnose::ProcessRef>& p) {
  if (!p) return w.null();
  w.begin_object();
  w.key("host"); w.value(p->host);
  w.key("pid"); w.value(p->pid);
  w.key("name"); w.value(p->name);
  w.key("role"); w.value(p->role.empty() ? std::string("unknown") : p->role);
  w.key("why"); w.value(p->why);
  w.key("container"); w.value(p->container);
  // Where it ran (a recorded /proc and cgroup; null when nothing places it).
  w.key("place");
  if (!p->place) {
    w.null();
  } else {
    const auto& pl = *p->place;
    w.begin_object();
    w.key("nspid"); w.value(pl.nspid);
    w.key("runtime"); w.value(pl.runtime);
    w.key("container_id"); w.value(pl.container_id);
    w.key("container_name"); w.value(pl.container_name);
    w.key("pod_namespace"); w.value(pl.pod_namespace);
    w.key("pod_name"); w.value(pl.pod_name);
    w.key("pod_uid"); w.value(pl.pod_uid);
    w.key("cgroup"); w.value(pl.cgroup);
    w.key("gone"); w.value(pl.gone);
    w.end_object();
  }
  w.end_object();
}

void write_victim(JsonWriter& w, const std::optional<diagnose::ProcessRef>& p) {
  if (!p) return w.null();
  w.begin_object();
  w.key("host"); w.value(p->host);
  w.key("pid"); w.value(p->pid);
  w.key("name"); w.value(p->name);
  w.end_object();
}

void write_evidence(JsonWriter& w, const diagnose::Evidence& e) {
  w.begin_object();
  w.key("source"); w.value(e.source);
  w.key("line"); w.value(e.line);
  w.key("text"); w.value(e.text);
  w.key("host"); w.value(e.host);
  w.key("ts"); write_ts(w, e.ts);
  w.end_object();
}

void write_evidence_list(JsonWriter& w, const std::vector<diagnose::Evidence>& list) {
  w.begin_array();
  for (const auto& e : list) write_evidence(w, e);
  w.end_array();
}

void write_finding(JsonWriter& w, const diagnose::Finding& f) {
  w.begin_object();
  w.key("rule"); w.value(f.rule);
  w.key("verdict"); w.value(f.verdict);
  w.key("confidence"); w.value(diagnose::to_string(f.confidence));
  w.key("title"); w.value(f.title);
  w.key("host"); w.value(f.host);
  w.key("ts"); write_ts(w, f.ts);
  w.key("summary"); w.value(f.summary);
  w.key("advice"); w.value(f.advice);
  w.key("culprit"); write_culprit(w, f.culprit);
  w.key("victim"); write_victim(w, f.victim);
  w.key("echo"); w.value(f.echo);
  w.key("evidence"); write_evidence_list(w, f.evidence);
  w.end_object();
}

void write_budget(JsonWriter& w, const std::optional<diagnose::Budget>& b) {
  if (!b) return w.null();
  w.begin_object();
  w.key("host"); w.value(b->host);
  w.key("gpu"); w.value(b->gpu);
  w.key("unified"); w.value(b->unified);
  w.key("domain"); w.value(b->domain);
  w.key("rule"); w.value(b->rule);
  w.key("total"); w.value(b->total);
  w.key("free"); w.value(b->free);
  w.key("requested"); w.value(b->requested);
  w.key("shortfall"); w.value(b->shortfall);
  w.key("job"); w.value(b->job);
  w.key("foreign"); w.value(b->foreign);
  w.key("unattributed"); w.value(b->unattributed);
  w.key("host_processes"); w.value(b->host_processes);
  w.key("kernel"); w.value(b->kernel);
  w.key("unexplained"); w.value(b->unexplained);
  w.key("torch_allocated"); w.value(b->torch_allocated);
  w.key("torch_reserved"); w.value(b->torch_reserved);
  w.key("context_bound"); w.value(b->context_bound);
  w.key("holders");
  w.begin_array();
  for (const auto& g : b->holders) {
    w.begin_object();
    w.key("group"); w.value(g.group);
    w.key("role"); w.value(g.role);
    w.key("pids");
    w.begin_array();
    for (auto pid : g.pids) w.value(pid);
    w.end_array();
    w.key("bytes"); w.value(g.bytes);
    w.end_object();
  }
  w.end_array();
  w.key("entries");
  w.begin_array();
  for (const auto& e : b->entries) {
    w.begin_object();
    w.key("label"); w.value(e.label);
    w.key("role"); w.value(e.role);
    w.key("pid"); w.value(e.pid);
    w.key("bytes"); w.value(e.bytes);
    w.end_object();
  }
  w.end_array();
  w.key("arithmetic"); write_strings(w, b->arithmetic);
  w.end_object();
}

/// The root's kernel OOM report parts (docs/json.md "oom_parts object"), or null.
void write_oom_parts(JsonWriter& w, const std::optional<diagnose::OomReportParts>& p) {
  if (!p) return w.null();
  w.begin_object();
  w.key("host"); w.value(p->host);
  w.key("seen"); write_strings(w, p->seen);
  w.key("missing"); write_strings(w, p->missing);
  w.key("notes"); write_strings(w, p->notes);
  w.end_object();
}

}  // namespace

std::string render_json(const diagnose::Verdict& v) {
  JsonWriter w;
  w.begin_object();
  w.key("schema_version"); w.value(kSchemaVersion);
  w.key("verdict"); w.value(v.verdict.empty() ? std::string(diagnose::verdict::kUnknown) : v.verdict);
  w.key("confidence"); w.value(diagnose::to_string(v.confidence));
  w.key("summary"); w.value(v.summary);
  w.key("culprit"); write_culprit(w, v.culprit);
  w.key("victim"); write_victim(w, v.victim);
  w.key("budget"); write_budget(w, v.budget);
  w.key("allocator"); write_allocator_json(w, v.data.allocator);
  w.key("oom_parts"); write_oom_parts(w, v.data.oom_parts);
  w.key("root");
  if (v.root) write_finding(w, *v.root);
  else w.null();
  w.key("echoes");
  w.begin_array();
  for (const auto& f : v.echoes) write_finding(w, f);
  w.end_array();
  w.key("findings");
  w.begin_array();
  for (const auto& f : v.findings) write_finding(w, f);
  w.end_array();
  w.key("evidence"); write_evidence_list(w, v.evidence);
  w.key("advice"); write_strings(w, v.advice);
  w.key("ruled_out"); write_strings(w, v.ruled_out);
  w.key("sources");
  w.begin_array();
  for (const auto& s : v.sources) {
    w.begin_object();
    w.key("name"); w.value(s.name);
    w.key("host"); w.value(s.host);
    w.key("host_from"); w.value(s.host_from);
    w.key("format"); w.value(s.format);
    w.key("formats");
    if (!s.formats.empty() || s.format.empty()) write_strings(w, s.formats);
    else write_strings(w, {s.format});
    w.key("lines"); w.value(s.lines);
    w.key("bytes"); w.value(s.bytes);
    w.key("clock"); w.value(s.clock.empty() ? std::string("none") : s.clock);
    w.key("clock_note"); w.value(s.clock_note);
    w.key("files"); w.value(s.files);
    w.end_object();
  }
  w.end_array();
  w.key("skipped"); write_strings(w, v.skipped);
  w.end_object();
  std::string out = w.take();
  out.push_back('\n');
  return out;
}

}  // namespace culprit::report
