// Emitting a parsed nvidia-smi report (see smi_report.hpp) and the value helpers the `-q` and
// XML parsers share. The records match what nvidia_smi_table.cpp writes.
#include "ingest/formats/smi_report.hpp"

#include <set>

#include "culprit/core/size.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/line_prefix.hpp"

namespace culprit::ingest {

std::optional<std::int64_t> smi_memory(std::string_view v) {
  v = text::trim(v);
  if (v.empty() || v.size() > 40 || v[0] < '0' || v[0] > '9') return std::nullopt;
  bool digits = true;
  for (char c : v) digits = digits && c >= '0' && c <= '9';
  if (digits) return v.size() > 12 ? std::nullopt : core::parse_size(v, 1024 * 1024);  // nounits: MiB
  return core::parse_size(v, 1024 * 1024);
}

bool smi_memory_unsupported(std::string_view v) {
  v = text::trim(v);
  if (!v.empty() && v.front() == '[' && v.back() == ']') v = v.substr(1, v.size() - 2);
  return v == "N/A" || v == "Not Supported";
}

std::string smi_bus_id(std::string_view tok) {
  tok = text::trim(tok);
  const std::size_t c1 = tok.find(':');
  if (c1 == std::string_view::npos || c1 < 1 || c1 > 8) return {};
  const std::size_t c2 = tok.find(':', c1 + 1);
  if (c2 != c1 + 3) return {};
  const std::size_t dot = tok.find('.', c2 + 1);
  if (dot != c2 + 3 || dot + 2 != tok.size()) return {};
  auto hex = [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); };
  for (std::size_t i = 0; i < tok.size(); ++i)
    if (i != c1 && i != c2 && i != dot && !hex(tok[i])) return {};
  std::string domain(tok.substr(0, c1));
  domain = domain.size() >= 4 ? domain.substr(domain.size() - 4) : std::string(4 - domain.size(), '0') + domain;
  std::string out = domain + ":" + std::string(tok.substr(c1 + 1, 2)) + ":" + std::string(tok.substr(c2 + 1, 2));
  for (char& c : out)
    if (c >= 'A' && c <= 'F') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

void emit_smi_report(SmiReport& r, ParseContext& ctx, std::string_view rule, std::string_view evidence) {
  if (r.first_line == 0 || (r.gpus.empty() && r.driver.empty())) return;
  PeeledTime time;
  std::optional<double> ts;
  if (!r.ts_raw.empty() && read_ctime_stamp(r.ts_raw, time) > 0) ts = stamp_epoch(time, 0);
  if (!ts && r.epoch) {
    ts = static_cast<double>(*r.epoch);
    time.raw = std::to_string(*r.epoch);
    time.kind = core::TsKind::wall;
  }
  if (!ctx.sink) return;
  std::set<std::int64_t> sighted;
  std::int64_t processes = 0;
  bool unified = false;
  for (auto& g : r.gpus) {
    g.source_id = ctx.source_id;
    g.line = ctx.absolute_line(g.line > 0 ? g.line : r.first_line);
    g.host = ctx.host;
    g.ts = ts;
    g.ts_raw = ts ? time.raw : std::string();
    unified = unified || g.unified;
    for (auto& p : g.processes) p.gpu = g.gpu;
    ctx.sink->add_gpu_snapshot(g);
    for (const auto& p : g.processes) {
      ++processes;
      if (!sighted.insert(p.pid).second) continue;
      core::ProcessSighting s;
      s.host = ctx.host;
      s.pid = p.pid;
      s.name = p.name;
      s.ts = ts;
      s.job = false;
      s.evidence = std::string(evidence);
      ctx.sink->add_process(s);
    }
  }
  core::Event ev = ctx.make_event(r.first_line);
  ev.line_end = ctx.absolute_line_end(r.last_line > r.first_line ? r.last_line : r.first_line);
  ev.kind = "gpu_snapshot";
  ev.severity = core::Severity::info;
  ev.rule = std::string(rule);
  ev.message = ts ? time.raw : std::string(rule);
  if (ts) {
    ev.ts = ts;
    ev.ts_raw = time.raw;
    ev.ts_kind = time.kind;
  }
  ev.set_int("gpus", static_cast<std::int64_t>(r.gpus.size()));
  ev.set_int("processes", processes);
  if (!r.driver.empty()) ev.set("driver_version", r.driver);
  if (!r.cuda.empty()) ev.set("cuda_version", r.cuda);
  if (unified) ev.set_int("unified", 1);
  for (const auto& [key, value] : r.counts) ev.set_int(key, value);
  ctx.sink->add_event(ev);
}

}  // namespace culprit::ingest
