// Evaluators for GPU driver assertions (gpud, NVSentinel, DCGM, gcm): Xid code and PCI address,
// NVLink5 details, SXid, "fallen off the bus", code meanings and actions.
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "conformance/evaluators.hpp"

namespace culprit::conformance {
namespace {

constexpr std::string_view kNone = "(none)";

std::string b(bool v) { return v ? "true" : "false"; }
bool truthy(const Json& j) { return j.is_bool() ? j.boolean : !j.is_null(); }

std::string bdf_of(const core::Event& e) {
  std::string bdf = field(e, "bdf");
  return bdf.empty() ? normalise_bdf(field(e, "pci")) : bdf;
}

std::string code_at(const core::Event& e) { return fmt::format("{}@{}", field(e, "xid"), bdf_of(e)); }

/// NVLink5 unit name up to the first '/' (`NETIR_LINK_EVT/NETIR_LINK_DOWN` -> `NETIR_LINK_EVT`).
std::string first_unit(const std::string& unit) { return unit.substr(0, unit.find('/')); }

/// Xid events culprit inferred from a fall-off report (no Xid line for that GPU).
std::vector<const core::Event*> inferred_falls(const Facts& f) {
  std::vector<const core::Event*> out;
  for (const auto* e : f.xids())
    if (field(*e, "xid_inferred") == "1") out.push_back(e);
  return out;
}

std::string ns_action(const core::Event* e) {
  if (e == nullptr) return std::string(kNone);
  std::string a = field(*e, "action");
  if (a == "restart_app" || a == "ignore") return "NONE";
  if (a == "reset_gpu") return "COMPONENT_RESET";
  if (a == "reboot_node") return "RESTART_BM";
  if (a == "contact_support") return "CONTACT_SUPPORT";
  return a.empty() ? std::string(kNone) : a;
}

}  // namespace

const core::Event* first_xid(const Ctx& ctx) {
  auto x = ctx.facts.xids();
  return x.empty() ? nullptr : x.front();
}

const core::Event* first_sxid(const Ctx& ctx) {
  auto x = ctx.facts.sxids();
  return x.empty() ? nullptr : x.front();
}

void ev_xid_code(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = first_xid(ctx);
  compare(out, key, want.show(), e ? field(*e, "xid") : "0", "");
}

void ev_xid_device(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = first_xid(ctx);
  std::string peer = want.show().empty() ? "" : normalise_bdf(want.show());
  compare(out, key, peer, e ? bdf_of(*e) : "", "");
}

void ev_xid_match(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  compare(out, key, b(truthy(want)), b(first_xid(ctx) != nullptr), "");
}

void ev_xid_detail(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = first_xid(ctx);
  compare(out, key, b(truthy(want)), b(e && !field(*e, "xid_name").empty()), "");
}

void ev_xid_count(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  compare(out, key, want.show(), std::to_string(ctx.facts.xids().size()), "");
}

void ev_xid_list(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  auto xids = ctx.facts.xids();
  for (std::size_t i = 0; i < want.items.size(); ++i) {
    const Json& w = want.items[i];
    std::string dev = w.text("device", w.text("pci_bdf"));
    std::string peer = fmt::format("{}@{}", w.find("xid") ? w.find("xid")->show() : "?", normalise_bdf(dev));
    compare(out, fmt::format("{}[{}]", key, i), peer, i < xids.size() ? code_at(*xids[i]) : std::string(kNone), "");
  }
}

void ev_nvl5_field(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = first_xid(ctx);
  std::string f = key == "subcode" ? "nvlink_subcode"
                  : key == "subcode_name" || key == "subcode_description" ? "nvlink_unit"
                  : key == "severity" ? "nvlink_severity"
                                      : key;  // link, intrinfo, error_status
  compare(out, key, want.show(), e ? field(*e, f) : std::string(kNone), "Xid event `" + f + "`");
}

void ev_nvl5_match(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = first_xid(ctx);
  compare(out, key, b(truthy(want)), b(e && !field(*e, "nvlink_unit").empty()), "");
}

void ev_event_type(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = first_xid(ctx);
  std::string sev = e ? field(*e, "nvlink_severity") : "";
  compare(out, key, want.show(), sev == "Fatal" ? "Fatal" : sev == "Nonfatal" ? "Warning" : std::string(kNone), "");
}

void ev_sxid_code(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = first_sxid(ctx);
  compare(out, key, want.show(), e ? field(*e, "sxid") : "0", "");
}

void ev_sxid_device(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = first_sxid(ctx);
  std::string peer = want.show().empty() ? "" : normalise_bdf(want.show());
  compare(out, key, peer, e ? bdf_of(*e) : "", "first SXid event PCI address, normalised");
}

void ev_sxid_match(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  compare(out, key, b(truthy(want)), b(first_sxid(ctx) != nullptr), "");
}

void ev_sxid_detail(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = first_sxid(ctx);
  compare(out, key, b(truthy(want)), b(e && !field(*e, "detail").empty()), "");
}

void ev_nvlink_event(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  bool got = !ctx.facts.by_rule("nvrm_nvlink_post_rxdetect_failed").empty();
  compare(out, key, want.is_null() ? "none" : want.show(), got ? "EventNamePostRxDetectFailure" : "none", "");
}

void ev_dcgm_time(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  std::string w = want.show();
  std::size_t open = w.find('('), close = w.find(')');
  std::string peer = open != std::string::npos && close > open ? w.substr(open + 1, close - open - 1) : w;
  const core::Event* e = first_xid(ctx);
  std::string got(kNone);
  if (e && e->ts_kind == core::TsKind::boot && e->ts_value)
    got = std::to_string(static_cast<std::int64_t>(std::llround(*e->ts_value * 1e6)));
  compare(out, key, peer, got, "");
}

void ev_dcgm_list(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  static const std::set<std::string> kReaderSet = {"79", "119", "120"};
  std::vector<const core::Event*> xids;
  for (const auto* e : ctx.facts.xids())
    if (kReaderSet.count(field(*e, "xid"))) xids.push_back(e);
  for (std::size_t i = 0; i < want.items.size(); ++i) {
    const Json& w = want.items[i];
    std::string peer = fmt::format("{}@{}", w.find("xid") ? w.find("xid")->show() : "?", normalise_bdf(w.text("pci_bdf")));
    compare(out, fmt::format("{}[{}]", key, i), peer, i < xids.size() ? code_at(*xids[i]) : std::string(kNone), "");
  }
}

void ev_dcgm_count(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  std::size_t n = 0;
  for (const auto* e : ctx.facts.xids()) {
    std::string x = field(*e, "xid");
    n += x == "79" || x == "119" || x == "120";
  }
  compare(out, key, want.show(), std::to_string(n), "");
}

void ev_ns_mnemonic(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = first_xid(ctx);
  std::string peer = want.show();
  if (e && !field(*e, "nvlink_unit").empty()) {
    compare(out, key, first_unit(peer), first_unit(field(*e, "nvlink_unit")), "NVLink5 unit culprit read (first name)");
    return;
  }
  compare(out, key, peer, e ? "XID " + field(*e, "xid") : std::string(kNone), "");
}

void ev_ns_decoded(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = first_xid(ctx);
  std::string got(kNone);
  if (e) {
    got = field(*e, "xid");
    if (!field(*e, "nvlink_unit").empty()) got += "." + first_unit(field(*e, "nvlink_unit"));
  }
  compare(out, key, want.show(), got, "");
}

void ev_ns_action(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  if (ctx.entry.asserts.find("driver_version") != nullptr) {
    put(out, key, Status::not_applicable, want.show(), "",
        "n/a: the peer's action for this line depends on its configured driver version");
    return;
  }
  compare(out, key, want.show(), ns_action(first_xid(ctx)), "");
}

void ev_ns_metadata(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = first_xid(ctx);
  static const std::pair<const char*, const char*> kMap[] = {{"GPC", "gpc"}, {"TPC", "tpc"}, {"SM", "sm"}, {"NVLINK", "link"}};
  if (want.members.empty()) {
    std::vector<std::string> got;
    if (e)
      for (const auto& [p, c] : kMap)
        if (!field(*e, c).empty()) got.push_back(std::string(p) + "=" + field(*e, c));
    compare(out, key, "{}", got.empty() ? "{}" : join(got), "no GPC/TPC/SM/link fields");
    return;
  }
  for (const auto& [name, w] : want.members) {
    const char* f = nullptr;
    for (const auto& [p, c] : kMap)
      if (name == p) f = c;
    if (f == nullptr) {
      put(out, key + "." + name, Status::not_applicable, w.show(), "", "n/a: register dump, culprit does not decode it");
      continue;
    }
    compare(out, key + "." + name, w.show(), e ? field(*e, f) : std::string(kNone), std::string("Xid event `") + f + "`");
  }
}

void ev_ns_gpu_map(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  auto ev = ctx.facts.by_rule("nvrm_gpu_at");
  std::string got = ev.empty() ? "" : field(*ev.front(), key == "pci" ? "pci" : "gpu_uuid");
  compare(out, key, want.show(), got, "");
}

void ev_ns_sxid_event(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = first_sxid(ctx);
  if (want.is_null()) {
    compare(out, key, "null", e ? fmt::format("SXid {} ({})", field(*e, "sxid"), field(*e, "detail")) : "null",
            "an SXid event");
    return;
  }
  for (const auto& [name, w] : want.members) {
    std::string got(kNone);
    if (e) {
      if (name == "nvswitch") got = field(*e, "nvswitch");
      else if (name == "sxid") got = field(*e, "sxid");
      else if (name == "pci") got = field(*e, "pci");
      else if (name == "link") got = field(*e, "link");
      else if (name == "message") got = field(*e, "sxid_message");
      else if (name == "fatal") got = b(field(*e, "fatality") == "Fatal");
    }
    compare(out, key + "." + name, w.show(), got, "");
  }
}

void ev_ns_sxid_line(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  auto sx = ctx.facts.sxids();
  bool fatal = false;
  for (const auto* e : sx) fatal = fatal || field(*e, "fatality") == "Fatal";
  if (key == "events") {
    compare(out, key, want.show(), std::to_string(sx.size()), "number of SXid events");
  } else if (key == "error_code") {
    std::vector<std::string> peer, got;
    for (const auto& i : want.items) peer.push_back(i.show());
    for (const auto* e : sx) got.push_back(field(*e, "sxid"));
    compare(out, key, join(peer), join(got), "SXid codes");
  } else if (key == "fatal") {
    compare(out, key, want.show(), b(fatal), "an SXid with `fatality` Fatal");
  } else if (key == "healthy") {
    compare(out, key, want.show(), b(!fatal), "no fatal SXid");
  } else if (key == "event") {
    const Json* err = ctx.entry.asserts.find("error");
    if (err && err->is_bool() && err->boolean) {
      put(out, key, Status::not_applicable, want.show(), "", "n/a: the peer failed for lack of NVSwitch topology");
      return;
    }
    compare(out, key, b(truthy(want)), b(!sx.empty()), "an SXid event");
  } else {
    put(out, key, Status::not_applicable, want.show(), "", "n/a");
  }
}

void ev_ns_fallen(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  auto falls = inferred_falls(ctx.facts);
  const core::Event* e = falls.empty() ? nullptr : falls.front();
  if (key == "event") {
    compare(out, key, b(truthy(want)), b(e != nullptr), "");
  } else if (key == "pci") {
    compare(out, key, want.show().empty() ? "" : normalise_bdf(want.show()), e ? bdf_of(*e) : "", "inferred Xid 79 `bdf`");
  } else if (key == "pci_id") {
    compare(out, key, want.show(), e ? field(*e, "pci_id") : "", "inferred Xid 79 `pci_id`");
  } else if (key == "fatal") {
    compare(out, key, want.show(), b(e && e->severity == core::Severity::critical), "inferred Xid 79 severity critical");
  } else if (key == "healthy") {
    compare(out, key, want.show(), b(e == nullptr), "no inferred fall-off");
  } else if (key == "recommended_action") {
    compare(out, key, want.show(), ns_action(e), "inferred Xid 79 `action`");
  } else if (key == "error_code") {
    std::vector<std::string> peer;
    for (const auto& i : want.items) peer.push_back(i.show());
    compare(out, key, join(peer), e && field(*e, "xid") == "79" ? "GPU_FALLEN_OFF_BUS" : std::string(kNone),
            "Xid 79 = GPU_FALLEN_OFF_BUS");
  } else if (key == "entities") {
    for (std::size_t i = 0; i < want.items.size(); ++i) {
      const Json& w = want.items[i];
      std::string type = w.text("type"), value = w.text("value");
      std::string got(kNone);
      if (e && type == "PCI") {
        got = bdf_of(*e);
        value = normalise_bdf(value);
      } else if (e && type == "PCI_ID") {
        got = field(*e, "pci_id");
      }
      compare(out, fmt::format("{}[{}].{}", key, i, type), value, got, "");
    }
  } else {
    put(out, key, Status::not_applicable, want.show(), "", "n/a");
  }
}

void ev_ns_results_in_order(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  auto falls = inferred_falls(ctx.facts);
  for (std::size_t i = 0; i < want.items.size(); ++i) {
    int n = 0;
    for (const auto* e : falls) n += ctx.facts.part_of(e->line) == static_cast<int>(i);
    compare(out, fmt::format("{}[{}]", key, i), want.items[i].show(), n == 0 ? "no event" : fmt::format("{} event", n), "");
  }
}

void ev_gcm_exit(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const Json* rc = ctx.entry.asserts.find("fake_command_returncode");
  if (ctx.entry.test.find("link_flap") != std::string::npos) {
    put(out, key, Status::not_applicable, want.show(), "", "n/a: network link flaps are outside culprit's scope");
    return;
  }
  if (rc && rc->as_int().value_or(0) != 0) {
    put(out, key, Status::not_applicable, want.show(), "", "n/a: the faked command itself failed");
    return;
  }
  auto xids = ctx.facts.xids();
  bool critical = false;
  for (const auto* e : xids) critical = critical || e->severity == core::Severity::critical;
  std::string got = xids.empty() ? "OK (0)" : critical ? "CRITICAL (2)" : "WARN (1)";
  compare(out, key, want.show(), got, "");
}

void ev_gcm_xids(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  std::vector<std::string> peer, got;
  for (const auto& i : want.items) peer.push_back(i.show());
  for (const auto* e : ctx.facts.xids()) got.push_back(field(*e, "xid"));
  compare(out, key, join(peer), join(got), "");
}

}  // namespace culprit::conformance
