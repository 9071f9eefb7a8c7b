// Container state as JSON: `docker inspect` (an array of containers, one object, or just the
// State object from `--format '{{json .State}}'`) and Kubernetes pods (`kubectl get pod -o
// json`, a Pod, a PodList or a List) -> `container_oom` / `signal_exit` events the diagnoses
// join on (container, container_id, exitcode, limit_bytes), plus containers and pid sightings.
// formats.md §5.6, §5.7.
//
// Why both flags are kept: OOMKilled means *some* process in the container's memory cgroup was
// OOM-killed (it may be a child while the main process lives on, ExitCode 0 and Running true),
// and a global (host) OOM kill of the main process may leave OOMKilled false with ExitCode 137.
// So OOMKilled true is a container_oom with `running` and `exitcode` saying which case it is,
// and 137 without it is a signal_exit (SIGKILL from someone: the host OOM killer, a probe, a
// `docker kill`) that the diagnoses join with the kernel's records.
//
// Field table — docker: Name (`/x` -> x) -> container | Id -> container_id | Config.Image ->
//   image | State.{Status, Running, OOMKilled, Pid, ExitCode, FinishedAt} -> status, running,
//   oom_killed, pid sighting, exitcode (signal = exitcode - 128), ts | HostConfig.Memory ->
//   limit_bytes (0 = none) | HostConfig.MemorySwap -> memswap_limit_bytes.
// Kubernetes: metadata.{name, namespace} -> pod, namespace | spec.nodeName -> host |
//   spec.containers[].resources.limits.memory -> limit_bytes | status.containerStatuses[]
//   {name, containerID, state.terminated, lastState.terminated {reason, exitCode, finishedAt}}
//   | status.{reason, message} (Evicted: the line signals read the message).
#include <fmt/format.h>
#include <simdjson.h>

#include <map>
#include <string>

#include "container_values.hpp"
#include "culprit/core/size.hpp"
#include "culprit/ingest/parser.hpp"
#include "ingest/signal_events.hpp"
#include "json_spans.hpp"

namespace culprit::ingest {
namespace {

using simdjson::dom::element;

std::string str(element parent, std::string_view key) {
  std::string_view v;
  if (parent[key].get_string().get(v)) return {};
  return std::string(v);
}

std::optional<std::int64_t> integer(element parent, std::string_view key) {
  element e;
  if (parent[key].get(e)) return std::nullopt;
  std::int64_t v = 0;
  if (!e.get_int64().get(v)) return v;
  double d = 0;
  if (!e.get_double().get(d)) return static_cast<std::int64_t>(d);
  return std::nullopt;
}

std::optional<bool> boolean(element parent, std::string_view key) {
  bool v = false;
  if (parent[key].get_bool().get(v)) return std::nullopt;
  return v;
}

/// `containerd://abc…`, `docker://abc…`, `cri-o://…` -> the bare id.
std::string bare_container_id(std::string id) {
  if (auto p = id.find("://"); p != std::string::npos) id = id.substr(p + 3);
  return id;
}

class InspectParser {
 public:
  explicit InspectParser(ParseContext& ctx) : ctx_(ctx) {}

  void value(std::string_view text, std::int64_t line, element v) {
    if (v.is_array()) {
      // One element per container / item: find each element's own text for its line numbers.
      auto inner = text.substr(1, text.size() >= 2 ? text.size() - 2 : 0);
      auto spans = json::split_values(inner, false);
      std::size_t k = 0;
      for (element item : v.get_array()) {
        if (!item.is_object()) continue;
        if (k < spans.size()) {
          const auto& s = spans[k++];
          value(s.text, line + s.line - 1, item);
        } else {
          value(text, line, item);
        }
      }
      return;
    }
    if (!v.is_object()) return;
    const std::string kind = str(v, "kind");
    element items;
    if ((kind == "PodList" || kind == "List") && !v["items"].get(items) && items.is_array()) {
      auto inner_at = text.find("\"items\"");
      std::string_view rest = inner_at == std::string_view::npos ? text : text.substr(inner_at);
      std::int64_t rest_line = line + (inner_at == std::string_view::npos ? 0 : json::line_of(text, "\"items\"") - 1);
      auto open = rest.find('[');
      if (open != std::string_view::npos) {
        auto spans = json::split_values(rest.substr(open + 1), false);
        std::int64_t open_line = rest_line + json::line_of(rest, "[") - 1;
        std::size_t k = 0;
        for (element item : items.get_array()) {
          if (k < spans.size()) {
            const auto& s = spans[k++];
            value(s.text, open_line + s.line - 1, item);
          }
        }
      }
      return;
    }
    if (kind == "Pod") {
      pod(text, line, v);
      return;
    }
    element state;
    if (!v["State"].get(state) && state.is_object()) {
      docker(text, line, &v, state);
      return;
    }
    if (!v["OOMKilled"].get(state)) docker(text, line, nullptr, v);  // `{{json .State}}`
  }

 private:
  std::int64_t abs_line(std::int64_t span_line, std::string_view text, std::string_view needle,
                        std::size_t from = 0) const {
    std::int64_t l = json::line_of(text, needle, from);
    return l > 0 ? span_line + l - 1 : span_line;
  }

  void docker(std::string_view text, std::int64_t line, const element* whole_container, element state) {
    const bool whole = whole_container != nullptr;
    element c = whole ? *whole_container : state;
    std::string name = whole ? str(c, "Name") : std::string();
    if (!name.empty() && name[0] == '/') name.erase(0, 1);
    const std::string id = whole ? str(c, "Id") : std::string();
    element config, host_config;
    std::string image, command;
    if (whole && !c["Config"].get(config) && config.is_object()) image = str(config, "Image");
    if (whole) {
      command = str(c, "Path");
      element args;
      if (!c["Args"].get(args) && args.is_array())
        for (element a : args.get_array()) {
          std::string_view s;
          if (!a.get_string().get(s)) command += " " + std::string(s);
        }
    }
    std::optional<std::int64_t> limit, memswap;
    if (whole && !c["HostConfig"].get(host_config) && host_config.is_object()) {
      limit = integer(host_config, "Memory");
      memswap = integer(host_config, "MemorySwap");
      if (limit && *limit <= 0) limit.reset();
      if (memswap && *memswap <= 0) memswap.reset();
    }
    const std::string status = str(state, "Status");
    const bool running = boolean(state, "Running").value_or(false);
    const bool oom = boolean(state, "OOMKilled").value_or(false);
    const auto exitcode = integer(state, "ExitCode");
    const auto pid = integer(state, "Pid");
    const std::string finished = str(state, "FinishedAt");

    if (whole && (!id.empty() || !name.empty())) {
      core::ContainerInfo info;
      info.host = ctx_.host;
      info.id = id;
      info.name = name;
      info.image = image;
      info.command = command;
      info.status = status;
      ctx_.sink->add_container(info);
    }
    if (pid && *pid > 0) {
      core::ProcessSighting ps;
      ps.host = ctx_.host;
      ps.pid = *pid;
      ps.container = name;
      ps.evidence = "docker inspect State.Pid";
      ctx_.sink->add_process(ps);
    }

    const std::string who = name.empty() ? (id.empty() ? std::string("the container") : "container " + id.substr(0, 12))
                                         : "container " + name;
    const std::string limit_text = limit ? fmt::format(", memory limit {}", core::format_size(*limit)) : std::string();
    if (oom) {
      core::Event e = event(abs_line(line, text, "\"OOMKilled\""), finished, running);
      e.kind = std::string(core::kind::kContainerOom);
      e.rule = "docker_inspect_oomkilled";
      e.severity = core::Severity::critical;
      e.message = running ? fmt::format("docker inspect: {} is still running but recorded OOMKilled true: a process "
                                        "in its memory cgroup was OOM-killed{}",
                                        who, limit_text)
                          : fmt::format("docker inspect: {} exited with code {} and OOMKilled true{}", who,
                                        exitcode.value_or(0), limit_text);
      fill(e, name, id, image, exitcode, limit, memswap, running);
      e.set_int("oom_killed", 1);
      ctx_.sink->add_event(e);
    } else if (exitcode && *exitcode > 128 && !running) {
      core::Event e = event(abs_line(line, text, "\"ExitCode\""), finished, running);
      e.kind = std::string(core::kind::kSignalExit);
      e.rule = "docker_inspect_exit_signal";
      e.severity = *exitcode == 137 ? core::Severity::error : core::Severity::warning;
      e.message = fmt::format("docker inspect: {} exited with code {}{} and OOMKilled false{}", who, *exitcode,
                              *exitcode == 137 ? " (SIGKILL)" : "", limit_text);
      fill(e, name, id, image, exitcode, limit, memswap, running);
      e.set_int("oom_killed", 0);
      ctx_.sink->add_event(e);
    }
  }

  void pod(std::string_view text, std::int64_t line, element p) {
    element meta, spec, status;
    std::string pod_name, ns, node;
    if (!p["metadata"].get(meta)) {
      pod_name = str(meta, "name");
      ns = str(meta, "namespace");
    }
    std::map<std::string, std::int64_t> limits;
    if (!p["spec"].get(spec)) {
      node = str(spec, "nodeName");
      for (const char* list : {"containers", "initContainers"}) {
        element cs;
        if (spec[list].get(cs) || !cs.is_array()) continue;
        for (element c : cs.get_array()) {
          std::string_view mem;
          if (!c.at_pointer("/resources/limits/memory").get_string().get(mem))
            if (auto q = containers::parse_quantity(mem)) limits[str(c, "name")] = *q;
        }
      }
    }
    if (p["status"].get(status)) return;
    const std::string host = node.empty() ? ctx_.host : node;
    for (const char* list : {"initContainerStatuses", "containerStatuses"}) {
      element cs;
      if (status[list].get(cs) || !cs.is_array()) continue;
      // Each status element's own text, for the line of its `reason` / `exitCode`.
      std::vector<json::Span> spans;
      std::int64_t spans_line = line;
      if (auto at = text.find(fmt::format("\"{}\"", list)); at != std::string_view::npos) {
        if (auto open = text.find('[', at); open != std::string_view::npos) {
          spans = json::split_values(text.substr(open + 1), false);
          spans_line = line + json::line_of(text, "[", open) - 1;
        }
      }
      std::size_t index = 0;
      for (element c : cs.get_array()) {
        const json::Span* own = index < spans.size() ? &spans[index] : nullptr;
        ++index;
        const std::string name = str(c, "name");
        const std::string id = bare_container_id(str(c, "containerID"));
        for (const char* which : {"lastState", "state"}) {
          element term;
          if (c[which].get(term) || term["terminated"].get(term) || !term.is_object()) continue;
          const std::string reason = str(term, "reason");
          const auto exitcode = integer(term, "exitCode");
          const bool oom = reason == "OOMKilled";
          if (!oom && !(exitcode && *exitcode > 128)) continue;
          const auto limit = limits.count(name) ? std::optional<std::int64_t>(limits[name]) : std::nullopt;
          std::int64_t at_line = own ? spans_line + own->line - 1 : line;
          if (own) {
            const std::size_t key = own->text.find(fmt::format("\"{}\"", which));
            const std::int64_t l = json::line_of(own->text, oom ? "\"reason\"" : "\"exitCode\"",
                                                 key == std::string_view::npos ? 0 : key);
            if (l > 0) at_line += l - 1;
          }
          core::Event e = event(at_line, str(term, "finishedAt"), false);
          e.host = host;
          e.kind = std::string(oom ? core::kind::kContainerOom : core::kind::kSignalExit);
          e.rule = oom ? "k8s_pod_oomkilled" : "k8s_pod_exit_signal";
          e.severity = oom ? core::Severity::critical : core::Severity::error;
          const std::string limit_text =
              limit ? fmt::format(", memory limit {}", core::format_size(*limit)) : std::string();
          e.message = fmt::format("pod {}{}: container {} terminated with reason {} and exit code {}{}",
                                  ns.empty() ? "" : ns + "/", pod_name, name, reason.empty() ? "(none)" : reason,
                                  exitcode.value_or(0), limit_text);
          fill(e, name, id, str(c, "image"), exitcode, limit, std::nullopt, false);
          e.set_int("oom_killed", oom ? 1 : 0);
          if (!pod_name.empty()) e.set("pod", pod_name);
          if (!ns.empty()) e.set("namespace", ns);
          e.set("state", which);
          ctx_.sink->add_event(e);
        }
      }
    }
    // An evicted pod: the kubelet's message names the pressure; the line signals read it.
    const std::string message = str(status, "message");
    if (!message.empty() && ctx_.signals != nullptr) {
      core::Event base = ctx_.make_event(abs_line(line, text, "\"message\""));
      base.host = host;
      for (auto& e : events_from_signals(base, message, ctx_)) {
        if (!pod_name.empty()) e.set("pod", pod_name);
        ctx_.sink->add_event(e);
      }
    }
  }

  core::Event event(std::int64_t seg_line, const std::string& finished, bool running) const {
    core::Event e = ctx_.make_event(seg_line);
    if (!running) {
      if (auto t = containers::parse_rfc3339(finished)) {
        e.ts = *t;
        e.ts_kind = core::TsKind::wall;
        e.ts_raw = finished;
      }
    }
    return e;
  }

  static void fill(core::Event& e, const std::string& name, const std::string& id, const std::string& image,
                   std::optional<std::int64_t> exitcode, std::optional<std::int64_t> limit,
                   std::optional<std::int64_t> memswap, bool running) {
    e.comm = name;
    if (!name.empty()) e.set("container", name);
    if (!id.empty()) e.set("container_id", id);
    if (!image.empty()) e.set("image", image);
    if (exitcode) {
      e.set_int("exitcode", *exitcode);
      if (*exitcode > 128 && *exitcode < 128 + 65) e.set_int("signal", *exitcode - 128);
    }
    if (limit) e.set_int("limit_bytes", *limit);
    if (memswap) e.set_int("memswap_limit_bytes", *memswap);
    e.set_int("running", running ? 1 : 0);
  }

  ParseContext& ctx_;
};

}  // namespace

void parse_docker_inspect(std::string_view text, ParseContext& ctx) {
  if (ctx.sink == nullptr) return;
  InspectParser parser(ctx);
  simdjson::dom::parser json;
  std::int64_t bad = 0, first_bad = 0;
  for (const auto& span : json::split_values(text, true)) {
    simdjson::padded_string padded(span.text);
    element root;
    if (json.parse(padded).get(root)) {
      if (bad++ == 0) first_bad = span.line;
      continue;
    }
    parser.value(span.text, span.line, root);
  }
  if (bad > 0)
    ctx.note("docker_inspect_bad_json", first_bad, fmt::format("{} JSON value(s) could not be read and were skipped", bad));
}

}  // namespace culprit::ingest
