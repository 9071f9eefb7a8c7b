// `nvidia-smi -q -x` XML (formats.md §6.4): <nvidia_smi_log> with <timestamp>, <driver_version>,
// <cuda_version> and one <gpu id="…"> per GPU (<product_name>, <pci><pci_bus_id>,
// <fb_memory_usage><total>/<used>, <processes><process_info><pid>/<type>/<process_name>/
// <used_memory>). No XML library is in the stack and this schema is fixed, flat and
// attribute-free but for gpu/@id, so a small tag scanner reads it: it tracks the element path,
// keeps text only for the elements listed above, decodes the five predefined entities, and
// stops quietly at a cut or malformed tag (what was read so far is still emitted). Depth and
// value sizes are bounded; there is no recursion, so no input can crash or hang it.
#include <algorithm>
#include <string>
#include <vector>

#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/smi_report.hpp"

namespace culprit::ingest {
namespace {

using Sv = std::string_view;

constexpr std::size_t kMaxDepth = 32;
constexpr std::size_t kMaxValue = 4096;

std::string decode(Sv s) {
  std::string out;
  s = text::trim(s.substr(0, kMaxValue));
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '&') {
      static constexpr std::pair<Sv, char> kEntities[] = {
          {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
      bool done = false;
      for (const auto& [name, ch] : kEntities) {
        if (s.substr(i, name.size()) == name) {
          out += ch;
          i += name.size() - 1;
          done = true;
          break;
        }
      }
      if (done) continue;
    }
    out += s[i];
  }
  return out;
}

/// The value of attribute `name` in a start tag's text (`gpu id="00000000:01:00.0"`), or ''.
Sv attribute(Sv tag, Sv name) {
  for (std::size_t at = tag.find(name); at != Sv::npos; at = tag.find(name, at + 1)) {
    if (at == 0 || (tag[at - 1] != ' ' && tag[at - 1] != '\t' && tag[at - 1] != '\n')) continue;
    std::size_t i = at + name.size();
    while (i < tag.size() && tag[i] == ' ') ++i;
    if (i >= tag.size() || tag[i] != '=') continue;
    ++i;
    while (i < tag.size() && tag[i] == ' ') ++i;
    if (i >= tag.size() || (tag[i] != '"' && tag[i] != '\'')) continue;
    const char q = tag[i];
    const std::size_t end = tag.find(q, i + 1);
    if (end == Sv::npos) return {};
    return tag.substr(i + 1, end - i - 1);
  }
  return {};
}

class XmlReader {
 public:
  XmlReader(Sv text, ParseContext& ctx) : text_(text), ctx_(ctx) {}

  void run() {
    std::size_t i = 0;
    while (i < text_.size()) {
      const std::size_t lt = text_.find('<', i);
      if (lt == Sv::npos) break;
      if (text_.substr(lt, 4) == "<!--") {
        const std::size_t end = text_.find("-->", lt + 4);
        if (end == Sv::npos) break;
        i = end + 3;
        continue;
      }
      const std::size_t gt = text_.find('>', lt + 1);
      if (gt == Sv::npos) break;  // cut inside a tag
      Sv tag = text_.substr(lt + 1, gt - lt - 1);
      i = gt + 1;
      if (tag.empty() || tag[0] == '?' || tag[0] == '!') continue;  // prologue, DOCTYPE
      if (tag[0] == '/') {
        close(text::trim(tag.substr(1)), lt);
        continue;
      }
      const bool empty = tag.back() == '/';
      if (empty) tag.remove_suffix(1);
      std::size_t name_end = 0;
      while (name_end < tag.size() && tag[name_end] != ' ' && tag[name_end] != '\t' && tag[name_end] != '\n' &&
             tag[name_end] != '\r')
        ++name_end;
      const Sv name = tag.substr(0, name_end);
      if (name.empty()) continue;
      open(name, tag, lt, gt + 1);
      if (empty) close(name, gt + 1);
    }
    flush();
  }

 private:
  std::int64_t line_of(std::size_t offset) {
    // Lines are counted forward only (offsets only grow), so the whole scan stays linear.
    for (; counted_ < offset && counted_ < text_.size(); ++counted_)
      if (text_[counted_] == '\n') ++line_;
    return line_;
  }

  void open(Sv name, Sv tag, std::size_t lt, std::size_t content) {
    if (name == "nvidia_smi_log") {
      flush();
      report_.first_line = line_of(lt);
    }
    if (stack_.size() >= kMaxDepth) {
      ++overflow_;
      return;
    }
    stack_.push_back({name, content});
    if (name == "gpu" && stack_.size() >= 2 && stack_[stack_.size() - 2].name == "nvidia_smi_log") {
      core::GpuSnapshot g;
      g.gpu = static_cast<int>(report_.gpus.size());
      g.bus_id = smi_bus_id(attribute(tag, "id"));
      g.line = line_of(lt);
      report_.gpus.push_back(std::move(g));
      if (report_.first_line == 0) report_.first_line = report_.gpus.back().line;
    } else if (name == "process_info" && in_gpu() && !report_.gpus.empty()) {
      report_.gpus.back().processes.emplace_back();
    }
  }

  bool in_gpu() const {
    for (const auto& e : stack_)
      if (e.name == "gpu") return true;
    return false;
  }

  Sv parent(std::size_t up) const { return stack_.size() > up ? stack_[stack_.size() - 1 - up].name : Sv{}; }

  void close(Sv name, std::size_t lt) {
    // A close tag that matches nothing open is ignored (or ends one of the elements too deep to
    // track); one that matches an open element closes everything inside it, tracked or not
    // (malformed, hand-edited or hostile XML: this schema never nests deeper than 5).
    std::size_t k = stack_.size();
    while (k > 0 && stack_[k - 1].name != name) --k;
    if (k == 0) {
      if (overflow_ > 0) --overflow_;
      return;
    }
    overflow_ = 0;
    while (stack_.size() > k) stack_.pop_back();
    const Sv value = lt >= stack_.back().content ? text_.substr(stack_.back().content, lt - stack_.back().content) : Sv{};
    if (value.find('<') == Sv::npos) take(name, value);
    stack_.pop_back();
    if (name == "nvidia_smi_log") {
      report_.last_line = line_of(lt);
      flush();
    }
  }

  void take(Sv name, Sv raw) {
    report_.last_line = std::max(report_.last_line, line_of(stack_.back().content));
    const Sv up = parent(1);
    if (up == "nvidia_smi_log") {
      if (name == "timestamp") report_.ts_raw = decode(raw);
      else if (name == "driver_version") report_.driver = decode(raw);
      else if (name == "cuda_version") report_.cuda = decode(raw);
      return;
    }
    if (report_.gpus.empty() || !in_gpu()) return;
    core::GpuSnapshot& g = report_.gpus.back();
    if (up == "gpu" && name == "product_name") g.model = decode(raw);
    else if (up == "pci" && name == "pci_bus_id" && g.bus_id.empty()) g.bus_id = smi_bus_id(decode(raw));
    else if (up == "fb_memory_usage" && parent(2) == "gpu") {
      const std::string v = decode(raw);
      if (name == "total") {
        g.mem_total = smi_memory(v);
        g.unified = !g.mem_total && smi_memory_unsupported(v);
      } else if (name == "used") {
        g.mem_used = smi_memory(v);
      }
    } else if (up == "process_info" && !g.processes.empty()) {
      core::GpuProcess& p = g.processes.back();
      const std::string v = decode(raw);
      if (name == "pid") {
        std::int64_t pid = 0;
        bool ok = !v.empty() && v.size() <= 12;
        for (char c : v) {
          ok = ok && c >= '0' && c <= '9';
          if (ok) pid = pid * 10 + (c - '0');
        }
        p.pid = ok ? pid : 0;
      } else if (name == "type") {
        p.type = v;
      } else if (name == "process_name") {
        p.name = v;
      } else if (name == "used_memory") {
        p.mem_used = smi_memory(v);
      }
    }
  }

  void flush() {
    for (auto& g : report_.gpus) std::erase_if(g.processes, [](const core::GpuProcess& p) { return p.pid == 0; });
    emit_smi_report(report_, ctx_, "nvidia_smi_xml", "nvidia-smi -q -x");
    report_ = SmiReport{};
  }

  struct Open {
    Sv name;
    std::size_t content = 0;  // offset just after the start tag
  };

  Sv text_;
  ParseContext& ctx_;
  SmiReport report_;
  std::vector<Open> stack_;
  std::size_t overflow_ = 0;  // start tags not pushed because the stack was full
  std::size_t counted_ = 0;
  std::int64_t line_ = 1;
};

}  // namespace

void parse_nvidia_smi_xml(std::string_view text, ParseContext& ctx) { XmlReader(text, ctx).run(); }

}  // namespace culprit::ingest
