// Evaluators for kernel OOM assertions (cadvisor, gpud's port of it, the exporters, hotsos,
// OOMAnalyser, parseoom): victim, trigger, cgroups, constraint, Mem-Info figures, task table.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "conformance/evaluators.hpp"
#include "ingest/formats/kernel_oom_report.hpp"
#include "ingest/formats/kernel_stamp.hpp"

namespace culprit::conformance {
namespace {

constexpr std::string_view kNone = "(none)";

std::string b(bool v) { return v ? "true" : "false"; }

/// gpud's "System OOM": no limiting cgroup was named (victim container "/" or none).
bool no_limit_cgroup(const core::Event& e) {
  std::string m = field(e, "oom_memcg");
  return m.empty() || m == "/";
}

bool is_global(const core::Event& e) { return field(e, "memcg") != "1" && field(e, "constraint") != "CONSTRAINT_MEMCG"; }

std::optional<std::int64_t> num(const core::Event* e, std::string_view key) {
  return e == nullptr ? std::nullopt : field_int(*e, key);
}

std::string opt(const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string(kNone); }

/// Integers written in `text`, in order ("69 % (11513452 kBytes out of …)" -> 69, 11513452, …).
std::vector<std::int64_t> numbers_in(std::string_view text) {
  std::vector<std::int64_t> out;
  std::size_t i = 0;
  while (i < text.size()) {
    if (!std::isdigit(static_cast<unsigned char>(text[i]))) {
      ++i;
      continue;
    }
    std::size_t j = i;
    while (j < text.size() && std::isdigit(static_cast<unsigned char>(text[j]))) ++j;
    out.push_back(std::stoll(std::string(text.substr(i, j - i))));
    i = j;
  }
  return out;
}

std::string join_numbers(const std::vector<std::int64_t>& v) {
  std::vector<std::string> s;
  for (auto x : v) s.push_back(std::to_string(x));
  return join(s, " ");
}

/// Zone names of a `zones`-style field ("Node 0 DMA, Node 0 DMA32, Node 1 Normal"), without
/// node numbers and duplicates, in order.
std::vector<std::string> zone_names(const std::string& list) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i <= list.size()) {
    std::size_t j = list.find(',', i);
    if (j == std::string::npos) j = list.size();
    std::string item = list.substr(i, j - i);
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    if (item.rfind("Node ", 0) == 0) {
      std::size_t sp = item.find(' ', 5);
      item = sp == std::string::npos ? "" : item.substr(sp + 1);
    }
    if (!item.empty() && std::find(out.begin(), out.end(), item) == out.end()) out.push_back(item);
    i = j + 1;
  }
  return out;
}

/// Task-table RSS of the report behind `e`, in kB (OOMAnalyser's "used physical memory").
std::optional<std::int64_t> task_rss_kb(const Ctx& ctx, const core::Event* e) {
  if (e == nullptr) return std::nullopt;
  const core::OomReport* r = ctx.facts.report_for(*e);
  if (r == nullptr || r->tasks.empty()) return std::nullopt;
  std::int64_t pages = 0;
  for (const auto& t : r->tasks) pages += t.rss_pages.value_or(0);
  return pages * r->page_size / 1024;
}

std::optional<std::int64_t> kb_of(const core::Event* e, std::string_view bytes_field) {
  auto v = num(e, bytes_field);
  if (!v) return std::nullopt;
  return *v / 1024;
}

/// Swap in use as OOMAnalyser counts it: total - free - swap cache (kB).
std::optional<std::int64_t> swap_used_kb(const core::Event* e) {
  auto total = kb_of(e, "swap_total_bytes"), free = kb_of(e, "swap_free_bytes");
  if (!total || !free) return std::nullopt;
  return *total - *free - kb_of(e, "swap_cache_bytes").value_or(0);
}

std::string first_line_of(const std::string& text) {
  std::string line = text.substr(0, text.find('\n'));
  while (!line.empty() && line.back() == '\r') line.pop_back();
  return line;
}

std::size_t word_count(std::string_view s) {
  std::size_t n = 0;
  bool in = false;
  for (char c : s) {
    bool sp = c == ' ' || c == '\t';
    if (!sp && !in) ++n;
    in = !sp;
  }
  return n;
}

}  // namespace

// --- helpers ---------------------------------------------------------------------------------

const core::Event* subject_oom(const Ctx& ctx) {
  auto kills = ctx.facts.kills();
  if (const Json* idx = ctx.entry.asserts.find("oom_index_in_case")) {
    auto i = idx->as_int();
    if (!i || *i < 0 || static_cast<std::size_t>(*i) >= kills.size()) return nullptr;
    return kills[static_cast<std::size_t>(*i)];
  }
  if (!kills.empty()) return kills.front();
  auto ooms = ctx.facts.ooms();
  return ooms.empty() ? nullptr : ooms.front();
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += sep;
    out += items[i];
  }
  return out;
}

std::string kib(const core::Event& e, std::string_view bytes_field) {
  auto v = field_int(e, bytes_field);
  return v ? std::to_string(*v / 1024) : std::string();
}

// --- cadvisor and its ports --------------------------------------------------------------------

void ev_has_kill(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  compare(out, key, b(want.is_bool() && want.boolean), b(!ctx.facts.kills().empty()), "");
}

void ev_is_start(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  bool start = false;
  for (const auto* e : ctx.facts.ooms()) start = start || !field(*e, "trigger_comm").empty();
  compare(out, key, b(want.is_bool() && want.boolean), b(start), "");
}

void ev_container(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  compare(out, key, want.show(), e ? field(*e, "task_memcg") : "", "");
}

void ev_victim_container(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  std::string got = e ? field(*e, "oom_memcg") : "";
  // A global OOM has no limiting cgroup: cadvisor writes "/" (the root), its 2017 version "".
  if (e != nullptr && is_global(*e) && (got.empty() || got == "/") && (want.show() == "/" || want.show().empty())) {
    put(out, key, Status::agree, want.show(), "(global OOM: no limiting cgroup)", "");
    return;
  }
  compare(out, key, want.show(), got, "");
}

void ev_victim_pid(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  auto pid = e ? victim_pid(*e) : std::nullopt;
  auto w = want.as_int();
  std::string peer = w && *w >= 0 ? std::to_string(*w) : std::string(kNone);
  compare(out, key, peer, opt(pid), "");
}

void ev_victim_name(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  std::string got = e && victim_pid(*e) ? victim_comm(*e) : std::string(kNone);
  std::string peer = want.show();
  if (peer.rfind("Could not get", 0) == 0) peer = std::string(kNone);  // the exporter's "no name"
  compare(out, key, peer, got, "");
}

void ev_constraint(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  compare(out, key, want.show(), e ? field(*e, "constraint") : "", "");
}

void ev_oom_index(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  auto kills = ctx.facts.kills();
  auto idx = want.as_int().value_or(-1);
  bool ok = static_cast<int>(kills.size()) == ctx.entry.case_size && idx >= 0 && idx < ctx.entry.case_size;
  put(out, key, ok ? Status::agree : Status::differ, fmt::format("kill {} of {}", idx + 1, ctx.entry.case_size),
      fmt::format("{} kills", kills.size()), "");
}

void ev_syslog_time(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const Json* syslog = want.is_object() ? want.find("syslog") : nullptr;
  if (syslog == nullptr) {
    put(out, key, Status::not_applicable, want.show(), "",
        "n/a: the peer's clock comes from its mocked kmsg reader; the text carries no time");
    return;
  }
  const core::Event* e = subject_oom(ctx);
  compare(out, key, syslog->show(), e ? e->ts_raw : std::string(kNone), "");
}

void ev_oom_events(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  auto kills = ctx.facts.kills();
  compare(out, key + ".count", std::to_string(want.items.size()), std::to_string(kills.size()), "");
  for (std::size_t i = 0; i < want.items.size(); ++i) {
    const Json& w = want.items[i];
    std::string peer = fmt::format("pid {} {} system_oom={}", w.find("pid") ? w.find("pid")->show() : "?",
                                   w.text("process_name"), w.find("system_oom") ? w.find("system_oom")->show() : "?");
    std::string got = std::string(kNone);
    if (i < kills.size())
      got = fmt::format("pid {} {} system_oom={}", opt(victim_pid(*kills[i])), victim_comm(*kills[i]), b(no_limit_cgroup(*kills[i])));
    compare(out, fmt::format("{}[{}]", key, i), peer, got, "");
  }
}

void ev_container_id(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  std::string got = e ? field(*e, "container_id") : "";
  compare(out, key, want.is_null() ? "null" : want.show(), got.empty() ? "null" : got, "");
}

void ev_pod_uid(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  compare(out, key, want.show(), e ? field(*e, "pod_uid") : "", "");
}

void ev_ax_result(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  auto kills = ctx.facts.kills();
  std::string got = "has not any";
  if (!kills.empty()) got = field(*kills.front(), "container_id").empty() ? "has oom" : "has container: is added";
  compare(out, key, want.show(), got, "");
}

// --- hotsos ----------------------------------------------------------------------------------

void ev_hs_events(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  auto kills = ctx.facts.kills();
  compare(out, key + ".count", std::to_string(want.items.size()), std::to_string(kills.size()), "");
  for (std::size_t i = 0; i < want.items.size(); ++i) {
    const Json& w = want.items[i];
    std::string peer = fmt::format("procname={} pid={}", w.text("procname"), w.text("pid"));
    std::string got(kNone);
    if (i < kills.size()) got = fmt::format("procname={} pid={}", field(*kills[i], "trigger_comm"), opt(victim_pid(*kills[i])));
    compare(out, fmt::format("{}[{}]", key, i), peer, got, "");
  }
}

void ev_hs_zones(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  auto below_min = e ? zone_names(field(*e, "zones_below_min")) : std::vector<std::string>{};
  auto below_low = e ? zone_names(field(*e, "zones_below_low")) : std::vector<std::string>{};
  for (const auto& [zone, msgs] : want.members) {
    std::string peer = "ok";
    for (const auto& m : msgs.items) {
      if (m.string.find("below min") != std::string::npos) peer = "below min";
      else if (m.string.find("below low") != std::string::npos && peer == "ok") peer = "below low";
    }
    std::string got = "ok";
    if (std::find(below_min.begin(), below_min.end(), zone) != below_min.end()) got = "below min";
    else if (std::find(below_low.begin(), below_low.end(), zone) != below_low.end()) got = "below low";
    compare(out, key + "." + zone, peer, got, "");
  }
}

void ev_hs_count(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  auto zones = e ? zone_names(field(*e, "zones")) : std::vector<std::string>{};
  compare(out, key, want.show(), std::to_string(zones.size()), "");
}

void ev_hs_issues(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  std::int64_t invoked = 0;
  for (const auto* e : ctx.facts.ooms()) invoked += field(*e, "trigger_comm").empty() ? 0 : 1;
  for (const auto& [issue, text] : want.members) {
    auto n = numbers_in(text.string);
    compare(out, key + "." + issue, n.empty() ? text.string : std::to_string(n.front()), std::to_string(invoked), "");
  }
}

// --- OOMAnalyser -----------------------------------------------------------------------------

void ev_oa_fields(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  auto kb_text = [](std::optional<std::int64_t> v) { return v ? fmt::format("{} kBytes", *v) : std::string(kNone); };
  for (const auto& [name, w] : want.members) {
    std::string k = key + "." + name;
    if (name == "gfp_mask") {
      std::string peer = w.string.substr(0, w.string.find_first_of(" ("));
      std::string got = e ? field(*e, "gfp_mask") : "";
      compare(out, k, peer, got.substr(0, got.find('(')), "OOM event `gfp_mask` (the hex value)");
    } else if (name == "proc_name") {
      compare(out, k, w.show(), e ? field(*e, "trigger_comm") : "", "OOM event `trigger_comm`");
    } else if (name == "proc_pid") {
      compare(out, k, w.show(), opt(num(e, "trigger_pid")), "OOM event `trigger_pid`");
    } else if (name == "killed_proc_score") {
      compare(out, k, w.show(), opt(num(e, "victim_score")), "OOM event `victim_score`");
    } else if (name == "swap_cache_kb") {
      compare(out, k, w.show(), kb_text(kb_of(e, "swap_cache_bytes")), "OOM event `swap_cache_bytes`");
    } else if (name == "swap_used_kb") {
      compare(out, k, w.show(), kb_text(swap_used_kb(e)), "swap total - free - cache");
    } else if (name == "swap_free_kb") {
      compare(out, k, w.show(), kb_text(kb_of(e, "swap_free_bytes")), "OOM event `swap_free_bytes`");
    } else if (name == "swap_total_kb") {
      compare(out, k, w.show(), kb_text(kb_of(e, "swap_total_bytes")), "OOM event `swap_total_bytes`");
    } else if (name == "swap_active" || name == "swap_inactive") {
      auto total = kb_of(e, "swap_total_bytes");
      bool on = total && *total > 0;
      bool got = name == "swap_active" ? on : (total && !on);
      compare(out, k, w.show(), got ? "check" : "-", "system swap configured (`swap_total_bytes` > 0)");
    } else if (name == "column_header") {
      // The task table's page-table column: 4.15+ `pgtables_bytes` ("Page Table Bytes") or the
      // older `nr_ptes` ("Page Table Entries"): which task-table layout culprit recognised.
      const core::OomReport* r = e ? ctx.facts.report_for(*e) : nullptr;
      std::string got(kNone);
      if (r != nullptr && !r->tasks.empty())
        got = r->tasks.front().pgtables_bytes ? "Page Table Bytes" : "Page Table Entries";
      compare(out, k, w.show(), got, "task-table layout culprit read (`pgtables_bytes` column or not)");
    } else {
      put(out, k, Status::not_applicable, w.show(), "", "n/a: display of raw Mem-Info text");
    }
  }
}

void ev_oa_statements(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  bool expected = key.find("unexpected") == std::string::npos;
  for (const auto& st : want.items) {
    const std::string& s = st.string;
    std::optional<bool> fact;
    std::string what;
    bool manual = num(e, "manual_trigger").value_or(0) == 1;
    bool memcg = e != nullptr && !is_global(*e);
    auto swap_total = kb_of(e, "swap_total_bytes");
    auto memcg_swap_limit = num(e, "memcg_swap_limit_bytes");
    if (s.find("cgroup-local OOM killer was automatically triggered") != std::string::npos) {
      fact = e != nullptr && memcg && !manual;
      what = "a memcg OOM, not triggered by hand (order != -1)";
    } else if (s.find("OOM killer was automatically triggered") != std::string::npos) {
      fact = e != nullptr && !manual;
      what = "not triggered by hand (order != -1)";
    } else if (s.find("OOM killer was manually triggered") != std::string::npos) {
      fact = e != nullptr && manual;
      what = "triggered by hand (order = -1: sysrq-f)";
    } else if (s.find("system swap space is in use") != std::string::npos) {
      auto used = swap_used_kb(e);
      fact = swap_total && *swap_total > 0 && used && *used > 0;
      what = "system swap configured and used";
    } else if (s.find("no system swap space") != std::string::npos) {
      fact = swap_total && *swap_total == 0;
      what = "no system swap (`swap_total_bytes` = 0)";
    } else if (s.find("with an OOM score of") != std::string::npos) {
      fact = num(e, "victim_score").has_value();
      what = "the victim's OOM score is known (`victim_score`)";
    } else if (s.find("Swap space usage is disabled for this cgroup") != std::string::npos) {
      fact = memcg && memcg_swap_limit && *memcg_swap_limit == 0;
      what = "memcg swap limit 0 (`memcg_swap_limit_bytes`)";
    } else if (s.find("Swap space is enabled for this cgroup") != std::string::npos) {
      fact = memcg && memcg_swap_limit && *memcg_swap_limit > 0;
      what = "memcg swap limit > 0";
    }
    std::string k = key + ": " + s;
    if (!fact) {
      put(out, k, Status::not_applicable, expected ? "stated" : "not stated", "",
          "n/a: the analyser's allocation / fragmentation reasoning (culprit makes no such statement)");
      continue;
    }
    compare(out, k, expected ? "stated" : "not stated", *fact ? "stated" : "not stated", what);
  }
}

void ev_oa_table(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  bool expected = key.find("unexpected") == std::string::npos;
  auto total = kb_of(e, "swap_total_bytes");
  for (const auto& item : want.items) {
    std::optional<bool> shown;
    if (item.string == "Swap Total") shown = total && *total > 0;
    if (item.string == "System swap space disabled.") shown = total && *total == 0;
    std::string k = key + ": " + item.string;
    if (!shown) {
      put(out, k, Status::not_applicable, expected ? "shown" : "not shown", "", "n/a: display");
      continue;
    }
    compare(out, k, expected ? "shown" : "not shown", *shown ? "shown" : "not shown", "system swap total");
  }
}

void ev_oa_section(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  auto ram = kb_of(e, "ram_bytes");
  auto swap = kb_of(e, "swap_total_bytes");
  for (const auto& [name, w] : want.members) {
    std::string k = key + "." + name;
    std::vector<std::int64_t> peer = numbers_in(w.string);
    std::vector<std::int64_t> got;
    std::string fact;
    if (name == "Physical and swap memory") {
      if (ram) got.push_back(*ram);
      if (swap && *swap > 0) got.push_back(*swap);
      fact = "`ram_bytes` (pages RAM x page size), `swap_total_bytes`, in kB";
    } else if (name == "Total memory") {
      if (ram) got.push_back(*ram + swap.value_or(0));
      fact = "RAM + swap, kB";
    } else if (name == "Use physical memory") {
      auto used = task_rss_kb(ctx, e);
      if (used && ram && *ram > 0) got = {*used * 100 / *ram, *used, *ram};
      fact = "task-table RSS sum / RAM (percent truncated), kB";
    } else if (name == "Use swap space") {
      auto used = swap_used_kb(e);
      if (used && swap && *swap > 0) got = {*used * 100 / *swap, *used, *swap};
      fact = "swap total - free - cache / swap total, kB";
    } else if (name == "Terminated process") {
      compare(out, k, w.string,
              e ? fmt::format("The process \"{}\" (PID {}) has been terminated.", victim_comm(*e), opt(victim_pid(*e)))
                : std::string(kNone),
              "OOM event victim comm and pid");
      continue;
    } else if (name == "Resident memory") {
      auto anon = kb_of(e, "victim_anon_rss_bytes");
      std::string got_s(kNone);
      if (anon)
        got_s = fmt::format("It uses {} kBytes of the resident memory.",
                            *anon + kb_of(e, "victim_file_rss_bytes").value_or(0) + kb_of(e, "victim_shmem_rss_bytes").value_or(0));
      compare(out, k, w.string, got_s, "victim anon + file + shmem RSS, kB");
      continue;
    } else {
      put(out, k, Status::not_applicable, w.string, "", "n/a: wording");
      continue;
    }
    compare(out, k, join_numbers(peer), join_numbers(got), fact);
  }
}

void ev_oa_same(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  // Every assertion of the unprefixed example's display test, checked on this (prefixed) input.
  for (const auto& base : ctx.peer_entries) {
    if (base.file != want.string || (base.asserts.find("fields") == nullptr &&
                                         base.asserts.find("explanation_expected_statements") == nullptr))
      continue;
    Ctx sub{base, ctx.facts, ctx.text, ctx.rules, ctx.peer_entries, ctx.run_file};
    for (const auto& [k, v] : base.asserts.members) {
      if (k == "function") continue;
      std::vector<Result> rs;
      evaluate(sub, k, v, rs);
      for (auto& r : rs) {
        r.key = key + "/" + r.key;
        out.push_back(std::move(r));
      }
    }
    return;
  }
  put(out, key, Status::not_applicable, want.show(), "", "n/a: no display test of the base example");
}

void ev_oa_page_size(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  auto ps = num(subject_oom(ctx), "page_size");
  compare(out, key, want.show(), ps ? std::to_string(*ps / 1024) : std::string(kNone), "");
}

void ev_oa_zones(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  std::vector<std::string> peer;
  for (const auto& z : want.items) peer.push_back(z.string);
  std::string f = key == "buddyinfo_zones" ? "buddy_zones" : "zones";
  compare(out, key, join(peer), e ? join(zone_names(field(*e, f))) : std::string(kNone), "");
}

void ev_oa_pstable(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  const core::OomReport* r = e ? ctx.facts.report_for(*e) : nullptr;
  for (const auto& [pid, name] : want.members) {
    std::string got(kNone);
    if (r != nullptr)
      for (const auto& t : r->tasks)
        if (std::to_string(t.pid) == pid) got = t.name;
    compare(out, key + "." + pid, name.show(), got, "");
  }
}

void ev_oa_columns(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  std::string line = first_line_of(ctx.text);
  auto kl = ingest::kernel::parse_kernel_line(line, 0);
  compare(out, key, want.show(), std::to_string(word_count(line) - word_count(kl.message)), "");
}

void ev_oa_kernel_version(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  std::string line = first_line_of(ctx.text);
  auto kl = ingest::kernel::parse_kernel_line(line, 0);
  auto cpu = ingest::kernel::parse_cpu_line(kl.message);
  compare(out, key, want.show(), cpu ? cpu->kernel_version : std::string(kNone), "");
}

// --- parseoom (README output for `messages`) --------------------------------------------------

void ev_po_report(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const core::Event* e = subject_oom(ctx);
  const core::OomReport* r = e ? ctx.facts.report_for(*e) : nullptr;
  constexpr double kMiB = 1024.0 * 1024.0, kGiB = kMiB * 1024.0;
  auto ram = num(e, "ram_bytes");
  std::optional<double> usable;
  if (ram) usable = static_cast<double>(*ram - num(e, "ram_reserved_bytes").value_or(0));
  auto pct = [&](double bytes) { return usable && *usable > 0 ? fmt::format(" ({:.1f}%)", bytes * 100 / *usable) : ""; };
  auto rss_mib = [&](const core::OomTask& t) {
    return static_cast<double>(t.rss_pages.value_or(0) * (r ? r->page_size : 4096)) / kMiB;
  };
  if (key == "total_ram") {
    compare(out, key, want.show(), usable ? fmt::format("{:.1f} GiB", *usable / kGiB) : std::string(kNone),
            "(`ram_bytes` - `ram_reserved_bytes`) in GiB");
  } else if (key == "free_swap") {
    auto v = num(e, "swap_free_bytes");
    compare(out, key, want.show(), v ? fmt::format("{} KiB", *v / 1024) : std::string(kNone), "`swap_free_bytes`");
  } else if (key == "hugepages_2MiB" || key == "hugepages_1GiB") {
    std::string f = key == "hugepages_2MiB" ? "hugepages_2048kB_total" : "hugepages_1048576kB_total";
    double size = key == "hugepages_2MiB" ? 2 * kMiB : kGiB;
    auto n = num(e, f);
    compare(out, key, want.show(), n ? fmt::format("{:.1f} GiB{}", *n * size / kGiB, pct(*n * size)) : std::string(kNone),
            "`" + f + "` x page size, share of usable RAM");
  } else if (key == "unreclaimable_slab" || key == "shared_memory") {
    std::string f = key == "unreclaimable_slab" ? "slab_unreclaimable_bytes" : "shmem_bytes";
    auto v = num(e, f);
    compare(out, key, want.show(),
            v ? fmt::format("{:.1f} MiB{}", static_cast<double>(*v) / kMiB, pct(static_cast<double>(*v))) : std::string(kNone),
            "`" + f + "`, share of usable RAM");
  } else if (key == "total_rss_user_processes") {
    double sum = 0;
    if (r) for (const auto& t : r->tasks) sum += rss_mib(t);
    compare(out, key, want.show(), r ? fmt::format("{:.1f} MiB", sum) : std::string(kNone), "task-table RSS sum");
  } else if (key == "top10_commands_by_rss_MiB") {
    std::map<std::string, double> by_name;
    if (r) for (const auto& t : r->tasks) by_name[t.name] += rss_mib(t);
    std::vector<std::pair<std::string, double>> sorted(by_name.begin(), by_name.end());
    std::stable_sort(sorted.begin(), sorted.end(), [](auto& a, auto& c) { return a.second > c.second; });
    for (std::size_t i = 0; i < want.items.size(); ++i) {
      const Json& w = want.items[i];
      std::string peer = fmt::format("{} {:.1f}", w.text("command"), w.find("MiB") ? w.find("MiB")->number : 0.0);
      std::string got = i < sorted.size() ? fmt::format("{} {:.1f}", sorted[i].first, sorted[i].second) : std::string(kNone);
      compare(out, fmt::format("{}[{}]", key, i), peer, got, "task table RSS summed per name, largest first");
    }
  } else if (key == "top10_processes") {
    std::vector<const core::OomTask*> tasks;
    if (r) for (const auto& t : r->tasks) tasks.push_back(&t);
    std::stable_sort(tasks.begin(), tasks.end(),
                     [](auto* a, auto* c) { return a->rss_pages.value_or(0) > c->rss_pages.value_or(0); });
    for (std::size_t i = 0; i < want.items.size(); ++i) {
      const Json& w = want.items[i];
      auto g = [&](const char* k) { return w.find(k) ? w.find(k)->show() : std::string("?"); };
      std::string peer = fmt::format("{} uid={} tgid={} total_vm={} rss={} pgtables_bytes={} swapents={} oom_score_adj={} {} {}",
                                     g("pid"), g("uid"), g("tgid"), g("total_vm"), g("rss"), g("pgtables_bytes"),
                                     g("swapents"), g("oom_score_adj"), g("name"), fmt::format("{:.1f}", w.find("MiB") ? w.find("MiB")->number : 0.0));
      std::string got(kNone);
      if (i < tasks.size()) {
        const auto* t = tasks[i];
        auto o = [](const std::optional<std::int64_t>& v) { return v ? std::to_string(*v) : std::string("?"); };
        got = fmt::format("{} uid={} tgid={} total_vm={} rss={} pgtables_bytes={} swapents={} oom_score_adj={} {} {:.1f}",
                          t->pid, o(t->uid), o(t->tgid), o(t->total_vm_pages), o(t->rss_pages), o(t->pgtables_bytes),
                          o(t->swapents), t->oom_score_adj ? std::to_string(*t->oom_score_adj) : "?", t->name, rss_mib(*t));
      }
      compare(out, fmt::format("{}[{}]", key, i), peer, got, "task table rows by RSS, largest first");
    }
  } else {
    put(out, key, Status::not_applicable, want.show(), "", "n/a");
  }
}

}  // namespace culprit::conformance
