// The default `nvidia-smi` table (formats.md §6.1): every driver era (79/89/91 wide, MIG M. row,
// 580+ wide PID column, unified-memory `Not Supported`), `watch` headers, MIG device tables,
// the Processes box alone, and several tables in one text. Parsed by `|` cells and tokens
// anchored on the bus id, `MiB /`, and the process Type column, never by column offsets.
// Output: one GpuSnapshot per GPU row (with its processes), process sightings, and one
// `gpu_snapshot` event per table.
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "culprit/core/size.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/line_prefix.hpp"
#include "ingest/formats/smi_report.hpp"
#include "ingest/formats/smi_rows.hpp"

namespace culprit::ingest {

namespace nvidia_smi_table {
namespace {

using Sv = std::string_view;
using smi_rows::is_type;

// What each part of the table contributes (the field table):
//   ctime line            → snapshot ts / ts_raw, event message
//   `Every Ns: … host: …` → host (watch), ts
//   banner                → event fields smi_version, driver_version, cuda_version
//   GPU row line 1        → gpu index, model, bus_id (`dddd:bb:dd`)
//   GPU row line 2        → mem_used / mem_total (MiB → bytes); `Not Supported` → unified
//   GPU row line 3        → event field gpu<i>_mig_mode
//   MIG devices rows      → event field mig_devices (count)
//   Processes rows        → GpuProcess (gpu, pid, type, name, mem) + ProcessSighting (job=false)

struct Token {
  Sv text;
  std::size_t pos = 0;
};

std::vector<Token> tokens(Sv s) {
  std::vector<Token> out;
  std::size_t i = 0;
  while (i < s.size()) {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
    const std::size_t start = i;
    while (i < s.size() && s[i] != ' ' && s[i] != '\t') ++i;
    if (i > start) out.push_back(Token{s.substr(start, i - start), start});
  }
  return out;
}

// The cells of a `| a | b | c |` row (outer borders dropped).
std::vector<Sv> cells(Sv row) {
  std::vector<Sv> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t bar = row.find('|', start);
    out.push_back(row.substr(start, bar == Sv::npos ? Sv::npos : bar - start));
    if (bar == Sv::npos) break;
    start = bar + 1;
  }
  if (!out.empty() && text::trim_blanks(out.front()).empty()) out.erase(out.begin());
  if (!out.empty() && text::trim_blanks(out.back()).empty()) out.pop_back();
  return out;
}

// `1461MiB` → bytes (also `1461 MiB` split across two tokens by the caller).
std::optional<std::int64_t> mib(Sv tok) {
  if (tok == "N/A" || tok.empty()) return std::nullopt;
  return core::parse_size(tok);
}

struct Gpu {
  std::int64_t line = 0;
  int index = 0;
  std::string name, bus_id, mig_mode;
  std::optional<std::int64_t> used, total;
  bool unified = false;
  int row_lines = 1;
};

struct Proc {
  std::int64_t line = 0;
  std::optional<int> gpu;
  std::int64_t pid = 0;
  std::string name, type;
  std::optional<std::int64_t> mem;
};

enum class Section { none, gpu_header, gpus, mig_header, mig, proc_header, procs };

struct Table {
  std::int64_t first_line = 0, last_line = 0;
  PeeledTime time;
  std::string ts_line;
  std::string host;
  std::string smi_version, driver, cuda;
  bool banner = false;
  bool procs_done = false;
  std::vector<Gpu> gpus;
  std::vector<Proc> procs;
  int mig_devices = 0;

  bool has_content() const { return banner || !gpus.empty() || !procs.empty() || procs_done; }
};

class SmiParser {
 public:
  explicit SmiParser(ParseContext& ctx) : ctx_(ctx) {}
  void line(std::int64_t seg, Sv raw);
  void finish() { flush(); }

 private:
  void flush();
  void touch(std::int64_t seg) {
    if (table_.first_line == 0) table_.first_line = seg;
    table_.last_line = seg;
  }
  void gpu_row(std::int64_t seg, Sv t);
  void proc_row(std::int64_t seg, Sv t);

  ParseContext& ctx_;
  Table table_;
  Section section_ = Section::none;
  bool gpu_open_ = false;  // the last GPU row block is still open (lines 2 and 3 attach to it)
  bool noted_bad_row_ = false;  // one note per segment for process rows not understood
  std::set<std::pair<std::string, std::int64_t>> sighted_;
};

void SmiParser::line(std::int64_t seg, Sv raw) {
  const std::string clean = text::strip_ansi(raw);
  const Sv t = text::trim_blanks(clean);
  if (t.empty()) return;

  // `watch` header: `Every 2.0s: nvidia-smi      host: Thu Apr  9 00:47:22 2026`
  if (t.substr(0, 6) == "Every " && t.find("s: ") != Sv::npos) {
    for (std::size_t i = t.find("s: "); i != Sv::npos && i < t.size(); i = t.find(' ', i + 1)) {
      PeeledTime pt;
      const Sv at = text::trim_blanks(t.substr(i));
      if (read_ctime_stamp(at, pt) == 0) continue;
      if (table_.has_content()) flush();
      touch(seg);
      table_.time = pt;
      const Sv before = text::trim_blanks(t.substr(0, i));
      if (!before.empty() && before.back() == ':') {
        const auto toks = tokens(before);
        if (toks.size() >= 3) {
          Sv h = toks.back().text;
          h.remove_suffix(1);
          table_.host = std::string(h);
        }
      }
      return;
    }
  }
  {
    PeeledTime pt;
    if (read_ctime_stamp(t, pt) == t.size()) {
      if (table_.has_content()) flush();
      touch(seg);
      table_.time = pt;
      table_.ts_line = std::string(t);
      return;
    }
  }
  if (t.find("NVIDIA-SMI ") != Sv::npos &&
      (t.find("Driver Version") != Sv::npos || t.find("Version:") != Sv::npos)) {
    if (table_.has_content()) flush();
    touch(seg);
    table_.banner = true;
    const auto toks = tokens(t);
    for (std::size_t i = 0; i + 1 < toks.size(); ++i) {
      if (toks[i].text == "NVIDIA-SMI") table_.smi_version = std::string(toks[i + 1].text);
      if (toks[i].text == "Version:" && i > 0) {
        if (toks[i - 1].text == "Driver") table_.driver = std::string(toks[i + 1].text);
        if (toks[i - 1].text == "CUDA") table_.cuda = std::string(toks[i + 1].text);
      }
    }
    section_ = Section::gpu_header;
    return;
  }
  if (t[0] != '|' && t[0] != '+') return;  // not a table line
  touch(seg);
  if (t.substr(0, 2) == "|=" || t.substr(0, 2) == "+=") {
    if (section_ == Section::gpu_header) section_ = Section::gpus;
    else if (section_ == Section::mig_header) section_ = Section::mig;
    else if (section_ == Section::proc_header) section_ = Section::procs;
    return;
  }
  if (t.substr(0, 2) == "+-" || t.substr(0, 2) == "|-") {
    if (section_ == Section::procs) {
      section_ = Section::none;
      table_.procs_done = true;
    } else if (section_ == Section::gpus || section_ == Section::mig) {
      gpu_open_ = false;
    }
    return;
  }
  if (t.find("Processes:") != Sv::npos) {
    if (table_.procs_done || !table_.procs.empty()) {
      flush();
      touch(seg);
    }
    section_ = Section::proc_header;
    return;
  }
  if (t.find("MIG devices:") != Sv::npos) {
    section_ = Section::mig_header;
    return;
  }
  if (t.find("GPU  Name") != Sv::npos || t.find("Bus-Id") != Sv::npos) {
    if (section_ == Section::none || section_ == Section::procs) {
      if (!table_.gpus.empty() || table_.procs_done) {
        flush();
        touch(seg);
      }
      section_ = Section::gpu_header;
    }
    return;
  }
  // Rows pasted without the banner or headers above them: their own shape opens the section
  // (smi_rows.hpp). A GPU row after a finished Processes box starts the next table.
  if (section_ != Section::gpus && section_ != Section::mig && smi_rows::is_gpu_row(t)) {
    if (!table_.procs.empty() || table_.procs_done) {
      flush();
      touch(seg);
    }
    section_ = Section::gpus;
  } else if (section_ != Section::procs && section_ != Section::mig && smi_rows::is_process_row(t)) {
    if (!table_.procs.empty() || table_.procs_done) {
      flush();
      touch(seg);
    }
    section_ = Section::procs;
    gpu_open_ = false;
  }
  switch (section_) {
    case Section::gpus: gpu_row(seg, t); break;
    case Section::mig: {
      const auto c = cells(t);
      if (!c.empty()) {
        const auto toks = tokens(c[0]);
        if (toks.size() == 4 && text::is_decimal(toks[0].text, 12) && text::is_decimal(toks[3].text, 12)) ++table_.mig_devices;
      }
      break;
    }
    case Section::procs: proc_row(seg, t); break;
    default: break;
  }
}

void SmiParser::gpu_row(std::int64_t seg, Sv t) {
  const auto c = cells(t);
  if (c.size() < 2) return;
  // Line 1 holds the bus id: `|   0  NVIDIA H100 80GB HBM3   On  | 00000000:18:00.0 Off |   0 |`
  // (Jetson prints `N/A` there: then the first row of a block that starts with an index.)
  std::string bus;
  for (const auto& tok : tokens(c[1])) {
    bus = smi_bus_id(tok.text);
    if (!bus.empty()) break;
  }
  const auto toks = tokens(c[0]);
  const bool indexed = !toks.empty() && text::is_decimal(toks[0].text, 12);
  const bool block_start = !gpu_open_ && c[1].find("MiB") == Sv::npos &&
                           c[1].find("Not Supported") == Sv::npos;
  if (indexed && (!bus.empty() || block_start)) {
    Gpu g;
    g.line = seg;
    g.index = static_cast<int>(text::decimal_value(toks[0].text));
    g.bus_id = bus;
    std::size_t name_end = c[0].size();
    const Sv persistence = toks.back().text;
    if (toks.size() >= 3 && (persistence == "On" || persistence == "Off" || persistence == "N/A"))
      name_end = toks.back().pos;
    if (toks.size() >= 2) {
      const std::size_t name_start = toks[1].pos;
      if (name_end > name_start) g.name = std::string(text::trim_blanks(c[0].substr(name_start, name_end - name_start)));
    }
    table_.gpus.push_back(std::move(g));
    gpu_open_ = true;
    return;
  }
  if (!bus.empty()) return;
  if (!gpu_open_ || table_.gpus.empty()) return;
  Gpu& g = table_.gpus.back();
  ++g.row_lines;
  const Sv mem = text::trim_blanks(c[1]);
  if (g.row_lines == 2) {
    // Line 2: `| N/A 44C P0 59W / 300W |  15852MiB / 16160MiB |  98%  Default |`
    if (mem.find("Not Supported") != Sv::npos) {
      g.unified = true;
      return;
    }
    const std::size_t slash = mem.find('/');
    if (slash != Sv::npos) {
      std::string used, total;
      for (char ch : mem.substr(0, slash))
        if (ch != ' ') used += ch;
      for (char ch : mem.substr(slash + 1))
        if (ch != ' ') total += ch;
      g.used = mib(used);
      g.total = mib(total);
    }
    return;
  }
  if (g.row_lines == 3 && c.size() >= 3) {
    const Sv mig = text::trim_blanks(c[2]);  // `Disabled`, `Enabled`, `N/A`
    if (!mig.empty()) g.mig_mode = std::string(mig);
  }
}

void SmiParser::proc_row(std::int64_t seg, Sv t) {
  if (t.find("No running processes found") != Sv::npos) return;
  Sv inner = t.substr(1);
  if (!inner.empty() && inner.back() == '|') inner.remove_suffix(1);
  const auto toks = tokens(inner);
  // ≤ 440: GPU PID Type Name Mem; 450+: GPU GI CI PID Type Name Mem.
  std::size_t type_at = 0;
  if (toks.size() >= 4 && is_type(toks[2].text)) type_at = 2;
  else if (toks.size() >= 6 && is_type(toks[4].text)) type_at = 4;
  if (type_at == 0 || !text::is_decimal(toks[0].text, 12) || !text::is_decimal(toks[type_at - 1].text, 12)) {
    // A row without its Type column (cut, or an edited table): say so once, keep going.
    if (!toks.empty() && text::is_decimal(toks[0].text, 12) && !noted_bad_row_) {
      noted_bad_row_ = true;
      ctx_.note("nvidia_smi_row_skipped", seg,
                "nvidia-smi process row not understood (columns missing: GPU, PID, Type, name, memory "
                "expected); skipped");
    }
    return;
  }
  Proc p;
  p.line = seg;
  p.gpu = static_cast<int>(text::decimal_value(toks[0].text));
  p.pid = text::decimal_value(toks[type_at - 1].text);
  p.type = std::string(toks[type_at].text);
  const Token& last = toks.back();
  std::size_t name_end = inner.size();
  if (toks.size() > type_at + 1 &&
      (last.text == "N/A" || last.text.find("MiB") != Sv::npos || last.text.find("GiB") != Sv::npos)) {
    p.mem = mib(last.text);
    name_end = last.pos;
    if (toks.size() == type_at + 2) name_end = last.pos;  // no name at all
  }
  const std::size_t name_start = toks[type_at].pos + toks[type_at].text.size();
  if (name_end > name_start) p.name = std::string(text::trim_blanks(inner.substr(name_start, name_end - name_start)));
  table_.procs.push_back(std::move(p));
}

void SmiParser::flush() {
  section_ = Section::none;
  gpu_open_ = false;
  Table t = std::move(table_);
  table_ = Table{};
  if (t.gpus.empty() && t.procs.empty() && !t.banner && !t.procs_done) return;
  const std::string host = t.host.empty() ? ctx_.host : t.host;
  const std::optional<double> ts = stamp_epoch(t.time, 0);

  auto make_snapshot = [&](std::int64_t seg_line, int index) {
    core::GpuSnapshot s;
    s.source_id = ctx_.source_id;
    s.line = ctx_.absolute_line(seg_line);
    s.host = host;
    s.ts = ts;
    s.ts_raw = t.time.raw;
    s.gpu = index;
    return s;
  };
  auto attach = [&t](core::GpuSnapshot& s) {
    for (const auto& p : t.procs) {
      if (!p.gpu || *p.gpu != s.gpu) continue;
      core::GpuProcess gp;
      gp.pid = p.pid;
      gp.name = p.name;
      gp.type = p.type;
      gp.mem_used = p.mem;
      gp.gpu = p.gpu;
      s.processes.push_back(std::move(gp));
    }
  };

  std::set<int> listed;
  bool unified = false;
  core::Event ev = ctx_.make_event(t.first_line);
  for (const auto& g : t.gpus) {
    core::GpuSnapshot s = make_snapshot(g.line, g.index);
    s.model = g.name;
    s.bus_id = g.bus_id;
    s.unified = g.unified;
    if (!g.unified) {
      s.mem_used = g.used;
      s.mem_total = g.total;
    }
    attach(s);
    listed.insert(g.index);
    unified = unified || g.unified;
    if (!g.mig_mode.empty() && g.mig_mode != "N/A")
      ev.set("gpu" + std::to_string(g.index) + "_mig_mode", g.mig_mode);
    if (ctx_.sink) ctx_.sink->add_gpu_snapshot(s);
  }
  // Processes of GPUs without a row (a Processes box pasted alone, or `-i`).
  std::map<int, std::int64_t> orphan_gpus;
  for (const auto& p : t.procs)
    if (p.gpu && !listed.count(*p.gpu) && !orphan_gpus.count(*p.gpu)) orphan_gpus[*p.gpu] = p.line;
  for (const auto& [index, line] : orphan_gpus) {
    core::GpuSnapshot s = make_snapshot(line, index);
    attach(s);
    if (ctx_.sink) ctx_.sink->add_gpu_snapshot(s);
  }
  for (const auto& p : t.procs) {
    if (!ctx_.sink || !sighted_.emplace(host, p.pid).second) continue;
    core::ProcessSighting s;
    s.host = host;
    s.pid = p.pid;
    s.name = p.name;
    s.ts = ts;
    s.job = false;
    s.evidence = "nvidia-smi";
    ctx_.sink->add_process(s);
  }

  ev.line_end = ctx_.absolute_line_end(t.last_line);
  ev.host = host;
  ev.kind = "gpu_snapshot";
  ev.severity = core::Severity::info;
  ev.rule = "nvidia_smi_table";
  ev.message = t.ts_line.empty() ? std::string("nvidia-smi table") : t.ts_line;
  if (t.time.kind != core::TsKind::none) {
    ev.ts_kind = t.time.kind;
    ev.ts_raw = t.time.raw;
    ev.ts = ts;
  }
  ev.set_int("gpus", static_cast<std::int64_t>(t.gpus.size()));
  ev.set_int("processes", static_cast<std::int64_t>(t.procs.size()));
  if (!t.smi_version.empty()) ev.set("smi_version", t.smi_version);
  if (!t.driver.empty()) ev.set("driver_version", t.driver);
  if (!t.cuda.empty()) ev.set("cuda_version", t.cuda);
  if (unified) ev.set_int("unified", 1);
  if (t.mig_devices > 0) ev.set_int("mig_devices", t.mig_devices);
  if (ctx_.sink) ctx_.sink->add_event(ev);
}

}  // namespace
}  // namespace nvidia_smi_table

void parse_nvidia_smi_table(std::string_view text, ParseContext& ctx) {
  nvidia_smi_table::SmiParser parser(ctx);
  std::int64_t seg = 0;
  for (std::string_view raw : text::split_lines(text)) parser.line(++seg, raw);
  parser.finish();
}

}  // namespace culprit::ingest
