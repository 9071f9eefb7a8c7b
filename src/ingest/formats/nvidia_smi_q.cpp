// `nvidia-smi -q` text (formats.md §6.3): the `==============NVSMI LOG==============` report,
// alone, repeated (`-l`), restricted (`-d MEMORY,PIDS`) or as a section of nvidia-bug-report.log.
// Lines are `key : value` with a key column whose width varies by driver, or section headers;
// nesting is by indentation (4 spaces a level), so each line is read by its indent and key,
// never by offsets.
//
// Field table: Timestamp -> ts | Driver Version, CUDA Version -> event fields |
//   `GPU 00000000:18:00.0` -> a GPU (index = its order in the report), bus id |
//   Product Name -> model | FB Memory Usage/Total, Used -> mem_total, mem_used (`N/A` /
//   `Not Supported` total -> unified) | Processes: GPU instance ID or Process ID opens a process;
//   Process ID -> pid, Type -> type, Name -> name, Used GPU Memory -> mem_used (`N/A`, WDDM
//   `Not available…` -> absent) | `Processes : None` -> none.
#include <string>
#include <utility>
#include <vector>

#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/smi_report.hpp"

namespace culprit::ingest {
namespace {

using Sv = std::string_view;

struct QLine {
  std::size_t indent = 0;
  Sv key;
  Sv value;
  bool has_value = false;
};

/// `    Used                              : 74012 MiB` -> indent 4, key `Used`, value.
QLine read_line(Sv raw) {
  QLine q;
  while (q.indent < raw.size() && (raw[q.indent] == ' ' || raw[q.indent] == '\t')) ++q.indent;
  Sv rest = text::trim(raw.substr(q.indent));
  const std::size_t sep = rest.find(" : ");
  if (sep != Sv::npos) {
    q.key = text::trim(rest.substr(0, sep));
    q.value = text::trim(rest.substr(sep + 3));
    q.has_value = true;
  } else if (rest.size() >= 2 && rest.substr(rest.size() - 2) == " :") {
    q.key = text::trim(rest.substr(0, rest.size() - 2));
    q.has_value = true;
  } else {
    q.key = rest;
  }
  return q;
}

class QParser {
 public:
  explicit QParser(ParseContext& ctx) : ctx_(ctx) {}

  void line(std::int64_t seg, Sv raw) {
    if (raw.size() > 4096) raw = raw.substr(0, 4096);
    const QLine q = read_line(raw);
    if (q.key.empty()) return;
    if (q.key.find("NVSMI LOG") != Sv::npos) {
      flush();
      report_.first_line = seg;
      report_.last_line = seg;
      return;
    }
    if (report_.first_line == 0) report_.first_line = seg;
    report_.last_line = seg;
    while (!sections_.empty() && sections_.back().first >= q.indent) sections_.pop_back();
    if (!q.has_value) {
      // `GPU 00000000:18:00.0` opens a GPU; any other value-less line is a section header.
      if (q.indent == 0 && text::starts_with(q.key, "GPU ")) {
        const std::string bus = smi_bus_id(q.key.substr(4));
        if (!bus.empty()) {
          core::GpuSnapshot g;
          g.gpu = static_cast<int>(report_.gpus.size());
          g.bus_id = bus;
          g.line = seg;
          report_.gpus.push_back(std::move(g));
          sections_.clear();
          in_gpu_ = true;
          return;
        }
      }
      // Output cut by grep (`nvidia-smi -q | grep -A4 "FB Memory"`) has no GPU line: the
      // sections it shows belong to one GPU, numbered 0.
      if (!in_gpu_ && (q.key == "FB Memory Usage" || q.key == "Processes")) {
        core::GpuSnapshot g;
        g.line = seg;
        report_.gpus.push_back(std::move(g));
        in_gpu_ = true;
      }
      sections_.emplace_back(q.indent, q.key);
      return;
    }
    if (q.indent == 0) {
      if (q.key == "Timestamp") report_.ts_raw = std::string(q.value);
      else if (q.key == "Driver Version") report_.driver = std::string(q.value);
      else if (q.key == "CUDA Version") report_.cuda = std::string(q.value);
      return;
    }
    if (!in_gpu_ || report_.gpus.empty()) return;
    core::GpuSnapshot& g = report_.gpus.back();
    const Sv section = sections_.empty() ? Sv{} : sections_.front().second;
    if (sections_.empty()) {
      if (q.key == "Product Name") g.model = std::string(q.value);
      else if (q.key == "Processes") {}  // `Processes : None`
      return;
    }
    if (section == "FB Memory Usage") {
      if (q.key == "Total") {
        g.mem_total = smi_memory(q.value);
        g.unified = !g.mem_total && smi_memory_unsupported(q.value);
      } else if (q.key == "Used") {
        g.mem_used = smi_memory(q.value);
      }
      return;
    }
    if (section != "Processes") return;
    if (q.key == "GPU instance ID" || (q.key == "Process ID" && (g.processes.empty() || g.processes.back().pid != 0))) {
      g.processes.emplace_back();
    }
    if (g.processes.empty()) return;
    core::GpuProcess& p = g.processes.back();
    if (q.key == "Process ID") {
      std::int64_t pid = 0;
      bool ok = !q.value.empty() && q.value.size() <= 12;
      for (char c : q.value) {
        ok = ok && c >= '0' && c <= '9';
        if (ok) pid = pid * 10 + (c - '0');
      }
      p.pid = ok ? pid : 0;
    } else if (q.key == "Type") {
      p.type = std::string(q.value);
    } else if (q.key == "Name" || q.key == "Process Name") {
      p.name = std::string(q.value);
    } else if (q.key == "Used GPU Memory") {
      p.mem_used = smi_memory(q.value);
    }
  }

  void flush() {
    // A process whose Process ID never came (a cut report) is dropped.
    for (auto& g : report_.gpus) std::erase_if(g.processes, [](const core::GpuProcess& p) { return p.pid == 0; });
    emit_smi_report(report_, ctx_, "nvidia_smi_q", "nvidia-smi -q");
    report_ = SmiReport{};
    sections_.clear();
    in_gpu_ = false;
  }

 private:
  ParseContext& ctx_;
  SmiReport report_;
  std::vector<std::pair<std::size_t, Sv>> sections_;  // (indent, name) of open section headers
  bool in_gpu_ = false;
};

}  // namespace

void parse_nvidia_smi_q(std::string_view text, ParseContext& ctx) {
  QParser parser(ctx);
  std::int64_t seg = 0;
  for (Sv raw : text::split_lines(text)) parser.line(++seg, raw);
  parser.flush();
}

}  // namespace culprit::ingest
