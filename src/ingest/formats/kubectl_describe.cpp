// `kubectl describe pod` (and `describe node`) text (formats.md §5.6) -> `container_oom` for a
// container whose State or Last State is Terminated with Reason OOMKilled, `signal_exit` for
// one that ended by a signal (Exit Code > 128) without it, with the container's memory limit,
// its id and the node it ran on; the line signals run on the pod's Message and on each row of
// the Events table (OOMKilling, SystemOOM, Evicted).
//
// The text is indentation-structured ("Key:  value", nested by two spaces), and the spacing
// aligns values, so lines are read as (indent, key, value) rather than by columns:
//   0  Name / Namespace / Node (`gpu-node-17/10.0.3.17` -> host) / Reason / Message / Events
//   0  Containers: | Init Containers:
//   2    <container>:
//   4      Container ID (`containerd://<id>`) | Image | State | Last State | Limits
//   6        Reason | Exit Code | Signal | Started | Finished (`Thu, 09 Apr 2026 00:47:22 +0000`)
//   6        memory (under Limits: a Kubernetes quantity, `64Gi`)
#include <fmt/format.h>

#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "container_values.hpp"
#include "culprit/core/size.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/signal_events.hpp"

namespace culprit::ingest {
namespace {

struct KeyLine {
  std::size_t indent = 0;
  std::string_view key, value;
  bool keyed = false;  ///< `Key:` or `Key:  value`
};

KeyLine split(std::string_view raw) {
  KeyLine k;
  while (k.indent < raw.size() && raw[k.indent] == ' ') ++k.indent;
  std::string_view t = text::trim(raw.substr(k.indent));
  std::size_t colon = t.find(':');
  if (colon != std::string_view::npos && colon > 0 && colon < 40 &&
      (colon + 1 == t.size() || t[colon + 1] == ' ' || t[colon + 1] == '\t')) {
    k.key = t.substr(0, colon);
    k.value = text::trim(t.substr(colon + 1));
    k.keyed = true;
  } else {
    k.value = t;
  }
  return k;
}

struct Terminated {
  std::string which;  ///< `State` or `Last State`
  std::string reason, finished, signal;
  std::optional<std::int64_t> exitcode;
  std::int64_t line = 0, reason_line = 0, exit_line = 0;
};

struct Container {
  std::string name, id, image;
  std::optional<std::int64_t> limit;
  std::vector<Terminated> terminated;
  std::int64_t line = 0;
};

class DescribeParser {
 public:
  explicit DescribeParser(ParseContext& ctx) : ctx_(ctx) {}

  void line(std::int64_t n, std::string_view raw) {
    if (text::trim(raw).empty()) return;
    KeyLine k = split(raw);
    if (k.indent == 0 && k.keyed) {
      top(n, k);
      return;
    }
    if (section_ == Section::events) {
      event_row(n, raw);
      return;
    }
    if (section_ != Section::containers) return;
    if (k.indent == 2 && k.keyed && k.value.empty()) {
      finish_container();
      container_ = Container{};
      container_->name = std::string(k.key);
      container_->line = n;
      sub_ = Sub::none;
      return;
    }
    if (!container_) return;
    if (k.indent <= 4 && k.keyed) {
      sub_ = Sub::none;
      if (k.key == "Container ID") container_->id = bare_id(k.value);
      else if (k.key == "Image") container_->image = std::string(k.value);
      else if (k.key == "Limits") sub_ = Sub::limits;
      else if ((k.key == "State" || k.key == "Last State") && k.value == "Terminated") {
        Terminated t;
        t.which = std::string(k.key);
        t.line = n;
        container_->terminated.push_back(t);
        sub_ = Sub::terminated;
      }
      return;
    }
    if (!k.keyed) return;
    if (sub_ == Sub::limits && k.key == "memory") {
      container_->limit = containers::parse_quantity(k.value);
    } else if (sub_ == Sub::terminated) {
      Terminated& t = container_->terminated.back();
      if (k.key == "Reason") {
        t.reason = std::string(k.value);
        t.reason_line = n;
      } else if (k.key == "Exit Code") {
        try {
          t.exitcode = std::stoll(std::string(k.value));
        } catch (...) {
        }
        t.exit_line = n;
      } else if (k.key == "Signal") {
        t.signal = std::string(k.value);
      } else if (k.key == "Finished") {
        t.finished = std::string(k.value);
      }
    }
  }

  void finish() { finish_container(); }

 private:
  enum class Section { other, containers, events };
  enum class Sub { none, limits, terminated };

  static std::string bare_id(std::string_view v) {
    std::string id(v);
    if (auto p = id.find("://"); p != std::string::npos) id = id.substr(p + 3);
    return id;
  }

  std::string host() const { return node_.empty() ? ctx_.host : node_; }

  void top(std::int64_t n, const KeyLine& k) {
    finish_container();
    section_ = Section::other;
    if (k.key == "Name") {
      pod_ = std::string(k.value);
      namespace_.clear();
      node_.clear();
      kind_node_ = false;
    } else if (k.key == "Namespace") {
      namespace_ = std::string(k.value);
    } else if (k.key == "Roles") {
      kind_node_ = true;  // `kubectl describe node`: Name is the node
      node_ = pod_;
    } else if (k.key == "Node") {
      std::string_view v = k.value;
      node_ = std::string(v.substr(0, v.find('/')));
      if (node_ == "<none>") node_.clear();
    } else if (k.key == "Containers" || k.key == "Init Containers") {
      section_ = Section::containers;
    } else if (k.key == "Events") {
      section_ = Section::events;
    } else if (k.key == "Message" && !k.value.empty()) {
      signals(n, k.value);
    }
  }

  void event_row(std::int64_t n, std::string_view raw) {
    std::string_view row = text::trim(raw);
    if (row.substr(0, 4) == "Type" || row.substr(0, 4) == "----" || row == "<none>") return;
    signals(n, row);
  }

  void signals(std::int64_t n, std::string_view message) {
    if (ctx_.signals == nullptr) return;
    core::Event base = ctx_.make_event(n);
    base.host = host();
    base.message = std::string(message);
    for (auto& e : events_from_signals(base, message, ctx_)) {
      if (!pod_.empty() && !kind_node_) e.set("pod", pod_);
      if (e.comm.empty())
        if (const auto* f = e.field("name")) e.comm = f->value;
      ctx_.sink->add_event(e);
    }
  }

  void finish_container() {
    if (!container_) return;
    const Container& c = *container_;
    for (const auto& t : c.terminated) {
      const bool oom = t.reason == "OOMKilled";
      if (!oom && !(t.exitcode && *t.exitcode > 128)) continue;
      core::Event e = ctx_.make_event(oom && t.reason_line ? t.reason_line : t.exit_line ? t.exit_line : t.line);
      e.host = host();
      if (auto ts = containers::parse_rfc1123(t.finished)) {
        e.ts = *ts;
        e.ts_kind = core::TsKind::wall;
        e.ts_raw = t.finished;
      }
      e.kind = std::string(oom ? core::kind::kContainerOom : core::kind::kSignalExit);
      e.rule = oom ? "kubectl_describe_oomkilled" : "kubectl_describe_exit_signal";
      e.severity = oom ? core::Severity::critical : core::Severity::error;
      e.comm = c.name;
      const std::string limit_text = c.limit ? fmt::format(", memory limit {}", core::format_size(*c.limit)) : "";
      e.message = fmt::format("pod {}{}: container {} {}: Terminated, Reason {}, Exit Code {}{}",
                              namespace_.empty() ? "" : namespace_ + "/", pod_, c.name,
                              t.which == "State" ? "state" : "last state", t.reason.empty() ? "(none)" : t.reason,
                              t.exitcode ? std::to_string(*t.exitcode) : "?", limit_text);
      e.set("container", c.name);
      if (!c.id.empty()) e.set("container_id", c.id);
      if (!c.image.empty()) e.set("image", c.image);
      if (!pod_.empty()) e.set("pod", pod_);
      if (!namespace_.empty()) e.set("namespace", namespace_);
      if (t.exitcode) {
        e.set_int("exitcode", *t.exitcode);
        if (*t.exitcode > 128 && *t.exitcode < 128 + 65) e.set_int("signal", *t.exitcode - 128);
      }
      if (c.limit) e.set_int("limit_bytes", *c.limit);
      e.set_int("oom_killed", oom ? 1 : 0);
      e.set("state", t.which == "State" ? "state" : "lastState");
      e.set_int("running", 0);
      ctx_.sink->add_event(e);
    }
    container_.reset();
  }

  ParseContext& ctx_;
  Section section_ = Section::other;
  Sub sub_ = Sub::none;
  std::string pod_, namespace_, node_;
  bool kind_node_ = false;
  std::optional<Container> container_;
};

}  // namespace

void parse_kubectl_describe(std::string_view text, ParseContext& ctx) {
  if (ctx.sink == nullptr) return;
  DescribeParser parser(ctx);
  std::int64_t n = 0;
  for (std::string_view raw : text::split_lines(text)) {
    ++n;
    if (text::has_ansi(raw)) {
      std::string clean = text::strip_ansi(raw);
      parser.line(n, clean);
    } else {
      parser.line(n, raw);
    }
  }
  parser.finish();
}

}  // namespace culprit::ingest
