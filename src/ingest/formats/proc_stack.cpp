// A process's kernel stack, `cat /proc/PID/stack` (Linux fs/proc/base.c proc_pid_stack: one
// `[<%pK>] %pB` line per frame — `[<0>] uvm_spin_loop+0xb4/0x100 [nvidia_uvm]`, the address
// hidden as 0 without kptr access, a module name in brackets when the symbol is in a module).
// Read only after the command that names the pid — typed at a prompt (the segment's command) or
// a line of its own before the frames (the detector's anchor) — and the pid comes from it. One `process_stack` event per stack: fields `pid`, `frames`, and `driver_frame`
// (`uvm_spin_loop [nvidia_uvm]`), the first frame in an nvidia module, when there is one: a
// process that cannot leave the NVIDIA driver (roles.cpp: "stuck in the NVIDIA driver").
#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <string>

#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/formats/proc_stack.hpp"

namespace culprit::ingest {

using Sv = std::string_view;

namespace proc_stack {

std::optional<std::int64_t> stack_command_pid(Sv line) {
  const auto at = line.find("/proc/");
  if (at == Sv::npos) return std::nullopt;
  std::size_t i = at + 6;
  std::int64_t pid = 0;
  std::size_t digits = 0;
  while (i < line.size() && line[i] >= '0' && line[i] <= '9' && digits < 10) {
    pid = pid * 10 + (line[i] - '0');
    ++i;
    ++digits;
  }
  if (digits == 0 || line.substr(i, 6) != "/stack") return std::nullopt;
  const std::size_t end = i + 6;
  if (end < line.size() && line[end] != ' ' && line[end] != '\t' && line[end] != '\r' && line[end] != ';' &&
      line[end] != '|')
    return std::nullopt;  // `/proc/N/stackfoo`
  return pid;
}

std::optional<Frame> parse_frame(Sv line) {
  Sv t = text::trim(line);
  if (t.size() < 8 || t.substr(0, 2) != "[<") return std::nullopt;
  const auto close = t.find(">] ");
  if (close == Sv::npos || close < 3) return std::nullopt;
  for (char c : t.substr(2, close - 2))
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
  Sv rest = t.substr(close + 3);
  const auto plus = rest.find("+0x");
  if (plus == Sv::npos || plus == 0) return std::nullopt;
  Frame f;
  f.function = std::string(rest.substr(0, plus));
  for (char c : f.function)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.')) return std::nullopt;
  rest = rest.substr(plus + 1);
  const auto space = rest.find(' ');
  const Sv offset = rest.substr(0, space);  // `0xb4/0x100`
  if (offset.find('/') == Sv::npos) return std::nullopt;
  if (space != Sv::npos) {
    Sv mod = text::trim(rest.substr(space + 1));
    if (mod.size() < 3 || mod.front() != '[' || mod.back() != ']') return std::nullopt;
    f.module = std::string(mod.substr(1, mod.size() - 2));
  }
  return f;
}

}  // namespace proc_stack

void parse_proc_stack(std::string_view text, ParseContext& ctx) {
  std::optional<std::int64_t> pid = proc_stack::stack_command_pid(ctx.command);  // `$ cat /proc/N/stack`
  std::int64_t first = 0, last = 0, frames = 0, seg = 0;
  std::string driver_frame, top;
  auto flush = [&]() {
    if (pid && frames > 0 && ctx.sink) {
      core::Event ev = ctx.make_event(first);
      ev.line_end = ctx.absolute_line_end(last);
      ev.kind = "process_stack";
      ev.severity = core::Severity::info;
      ev.rule = "proc_stack";
      ev.pid = *pid;
      ev.message = fmt::format("/proc/{}/stack: {}", *pid, top);
      ev.set_int("pid", *pid);
      ev.set_int("frames", frames);
      if (!driver_frame.empty()) ev.set("driver_frame", driver_frame);
      ctx.sink->add_event(ev);
    }
    pid.reset();
    first = 0;
    frames = 0;
    driver_frame.clear();
    top.clear();
  };
  for (Sv line : text::split_lines(text)) {
    ++seg;
    if (auto p = proc_stack::stack_command_pid(line)) {
      flush();
      pid = p;
      first = last = seg;
      continue;
    }
    auto f = proc_stack::parse_frame(line);
    if (!f || !pid) continue;
    if (first == 0) first = seg;
    last = seg;
    ++frames;
    const std::string shown = f->module.empty() ? f->function : fmt::format("{} [{}]", f->function, f->module);
    if (top.empty()) top = shown;
    if (driver_frame.empty() && f->module.rfind("nvidia", 0) == 0) driver_frame = shown;
  }
  flush();
}

}  // namespace culprit::ingest
