// THE mapping table: which culprit fact each peer assertion key is compared with.
//
// One row per (peer, scope, key). `scope` is a substring of the entry's `function` + its input
// paths (so `parseLine` selects gpud's kmsg-record tests, `/sxid/` its SXid inputs); rows are
// tried in order and the first that matches wins. A row without an evaluator is a key that
// culprit has no equivalent for; its text says why, and the assertion counts as "not
// applicable". An assertion key that no row covers is an error: new peer data must be mapped
// here before it can pass.
//
// Culprit's side of every row is what `culprit` itself produces from the input (ingest with the
// built-in signals): OOM events (`kernel_oom` reports, `oom_kill` lines) with their fields and
// task tables, `xid` events (Xid, SXid, fall-off) with their fields, and other signal events.
#include <cstdio>

#include <fmt/format.h>

#include "conformance/evaluators.hpp"

namespace culprit::conformance {
namespace {

struct Mapping {
  std::string_view peer;   ///< folder name; "*" for every peer
  std::string_view scope;  ///< substring of Entry::scope(); "" for any
  std::string_view key;    ///< assertion key
  std::string_view fact;   ///< culprit's fact, or why there is none
  Eval eval;               ///< nullptr: not applicable
};

constexpr std::string_view kNoErrorValue =
    "n/a: culprit's parsers return no error value (a line gives facts or nothing)";

// clang-format off
const Mapping kTable[] = {
  // --- google/cadvisor (utils/oomparser) -----------------------------------------------------
  {"google-cadvisor", "", "error", kNoErrorValue, nullptr},
  {"google-cadvisor", "", "finished", "an OOM event with a known victim pid (the record is complete)", ev_has_kill},
  {"google-cadvisor", "", "parsed", "an OOM event with a known victim pid", ev_has_kill},
  {"google-cadvisor", "", "is_start", "the OOM event has the invoked line (`trigger_comm`)", ev_is_start},
  {"google-cadvisor", "", "container", "OOM event `task_memcg` (cadvisor's ContainerName)", ev_container},
  {"google-cadvisor", "", "victim_container", "OOM event `oom_memcg` (cadvisor's VictimContainerName; \"/\" = a global OOM)", ev_victim_container},
  {"google-cadvisor", "", "pid", "OOM event victim pid", ev_victim_pid},
  {"google-cadvisor", "", "process_name", "OOM event victim comm", ev_victim_name},
  {"google-cadvisor", "", "constraint", "OOM event `constraint`", ev_constraint},
  {"google-cadvisor", "", "oom_index_in_case", "the n-th of culprit's kills in the stream; the stream has exactly as many kills as the case lists", ev_oom_index},
  {"google-cadvisor", "", "timestamp", "OOM event stamp as written (`ts_raw`); mock kmsg clocks are n/a", ev_syslog_time},

  // --- leptonai/gpud -------------------------------------------------------------------------
  {"leptonai-gpud", "parseLine", "boot_time", "n/a: the boot time is supplied to the peer out of band", nullptr},
  {"leptonai-gpud", "parseLine", "error_contains", "n/a: wording of the peer's error message", nullptr},
  {"leptonai-gpud", "parseLine", "error", "the line is not read as a /dev/kmsg record", ev_kmsg},
  {"leptonai-gpud", "parseLine", "priority", "kmsg record priority", ev_kmsg},
  {"leptonai-gpud", "parseLine", "sequence", "kmsg record sequence number", ev_kmsg},
  {"leptonai-gpud", "parseLine", "timestamp", "kmsg record boot-relative time (µs)", ev_kmsg},
  {"leptonai-gpud", "parseLine", "message", "kmsg record message", ev_kmsg},
  {"leptonai-gpud", "parseLine", "all_parse", "every non-empty line is read as a kmsg record", ev_kmsg},
  {"leptonai-gpud", "memory-oom", "error", kNoErrorValue, nullptr},
  {"leptonai-gpud", "memory-oom", "found", "an OOM event with a known victim pid", ev_has_kill},
  {"leptonai-gpud", "memory-oom", "container", "OOM event `task_memcg`", ev_container},
  {"leptonai-gpud", "memory-oom", "victim_container", "OOM event `oom_memcg`", ev_victim_container},
  {"leptonai-gpud", "memory-oom", "constraint", "OOM event `constraint`", ev_constraint},
  {"leptonai-gpud", "memory-oom", "pid", "OOM event victim pid", ev_victim_pid},
  {"leptonai-gpud", "memory-oom", "process_name", "OOM event victim comm", ev_victim_name},
  {"leptonai-gpud", "memory-oom", "is_start", "the OOM event has the invoked line (`trigger_comm`)", ev_is_start},
  {"leptonai-gpud", "memory-oom", "events", "culprit's kills in order: count, then pid + comm + system OOM (= no limiting cgroup: `oom_memcg` empty or /) each", ev_oom_events},
  {"leptonai-gpud", "/sxid/", "sxid", "first SXid event `sxid` (0 = none)", ev_sxid_code},
  {"leptonai-gpud", "/sxid/", "device", "first SXid event PCI address, normalised", ev_sxid_device},
  {"leptonai-gpud", "/sxid/", "match", "an SXid event exists", ev_sxid_match},
  {"leptonai-gpud", "/sxid/", "detail_present", "the SXid event has the driver's message (`detail`)", ev_sxid_detail},
  {"leptonai-gpud", "/nvlink/", "event", "an `nvrm_nvlink_post_rxdetect_failed` event", ev_nvlink_event},
  {"leptonai-gpud", "ExtractNVRMXidInfoExtended", "match", "the Xid event has NVLink5 details (`nvlink_unit`)", ev_nvl5_match},
  {"leptonai-gpud", "", "xid", "first Xid event `xid` (0 = none)", ev_xid_code},
  {"leptonai-gpud", "", "device", "first Xid event `bdf` (normalised PCI address)", ev_xid_device},
  {"leptonai-gpud", "", "match", "an Xid event exists", ev_xid_match},
  {"leptonai-gpud", "", "detail_present", "the Xid event has a catalogue meaning (`xid_name`)", ev_xid_detail},
  {"leptonai-gpud", "", "xid_count", "number of Xid events", ev_xid_count},
  {"leptonai-gpud", "", "xids_in_order", "Xid events in order: code@bdf", ev_xid_list},
  {"leptonai-gpud", "", "subcode", "Xid event `nvlink_subcode` = (intrinfo>>20)&0x3F", ev_nvl5_field},
  {"leptonai-gpud", "", "subcode_name", "Xid event `nvlink_unit`", ev_nvl5_field},
  {"leptonai-gpud", "", "subcode_description", "Xid event `nvlink_unit`", ev_nvl5_field},
  {"leptonai-gpud", "", "severity", "Xid event `nvlink_severity` (Fatal/Nonfatal)", ev_nvl5_field},
  {"leptonai-gpud", "", "link", "Xid event `link`", ev_nvl5_field},
  {"leptonai-gpud", "", "intrinfo", "Xid event `intrinfo`", ev_nvl5_field},
  {"leptonai-gpud", "", "error_status", "Xid event `error_status`", ev_nvl5_field},
  {"leptonai-gpud", "", "event_type", "Xid event `nvlink_severity`: Fatal -> Fatal, Nonfatal -> Warning", ev_event_type},
  {"leptonai-gpud", "", "repair_actions_include", "n/a: gpud's per-subcode repair catalogue; culprit's action is per Xid code", nullptr},

  // --- NVIDIA/DCGM ---------------------------------------------------------------------------
  {"NVIDIA-DCGM", "", "parsed", "an Xid event exists", ev_xid_match},
  {"NVIDIA-DCGM", "", "pci_bdf", "first Xid event `bdf`", ev_xid_device},
  {"NVIDIA-DCGM", "", "xid", "first Xid event `xid`", ev_xid_code},
  {"NVIDIA-DCGM", "", "timestamp", "Xid event boot-relative time (µs of the kmsg record)", ev_dcgm_time},
  {"NVIDIA-DCGM", "", "parsed_xids_in_order", "Xid events in DCGM's reader set {79,119,120}, in order", ev_dcgm_list},
  {"NVIDIA-DCGM", "", "count", "number of Xid events in DCGM's reader set {79,119,120}", ev_dcgm_count},

  // --- NVIDIA/NVSentinel ---------------------------------------------------------------------
  {"NVIDIA-NVSentinel", "CSVParser", "success", "an Xid event exists", ev_xid_match},
  {"NVIDIA-NVSentinel", "CSVParser", "xid", "first Xid event `xid`", ev_xid_code},
  {"NVIDIA-NVSentinel", "CSVParser", "pci", "first Xid event `bdf`", ev_xid_device},
  {"NVIDIA-NVSentinel", "CSVParser", "mnemonic", "\"XID <xid>\", or the NVLink5 unit culprit read (`nvlink_unit`, first name)", ev_ns_mnemonic},
  {"NVIDIA-NVSentinel", "CSVParser", "decoded_xid", "`xid`, or `xid`.`nvlink_unit` for NVLink5", ev_ns_decoded},
  {"NVIDIA-NVSentinel", "CSVParser", "name", "`xid`, or `xid`.`nvlink_unit` for NVLink5", ev_ns_decoded},
  {"NVIDIA-NVSentinel", "CSVParser", "recommended_action", "Xid event `action`: restart_app/ignore -> NONE, reset_gpu -> COMPONENT_RESET, reboot_node -> RESTART_BM, contact_support -> CONTACT_SUPPORT", ev_ns_action},
  {"NVIDIA-NVSentinel", "CSVParser", "metadata", "Xid event `gpc`/`tpc`/`sm`/`link` (REGn: n/a, culprit does not decode registers)", ev_ns_metadata},
  {"NVIDIA-NVSentinel", "CSVParser", "driver", "n/a: culprit reads no driver version from an Xid line", nullptr},
  {"NVIDIA-NVSentinel", "CSVParser", "driver_version", "n/a: the driver version is the peer's configuration", nullptr},
  {"NVIDIA-NVSentinel", "parseNVRMGPUMapLine", "pci", "`nvrm_gpu_at` event `pci`", ev_ns_gpu_map},
  {"NVIDIA-NVSentinel", "parseNVRMGPUMapLine", "gpu_uuid", "`nvrm_gpu_at` event `gpu_uuid`", ev_ns_gpu_map},
  {"NVIDIA-NVSentinel", "parseGPUResetLine", "", "n/a: NVSentinel's own reset tool's log line, not a driver message", nullptr},
  {"NVIDIA-NVSentinel", "extractInfoFromNVSwitchErrorMsg", "error", kNoErrorValue, nullptr},
  {"NVIDIA-NVSentinel", "extractInfoFromNVSwitchErrorMsg", "event", "first SXid event: `nvswitch`, `sxid`, `pci`, `link`, `sxid_message`, `fatality`", ev_ns_sxid_event},
  {"NVIDIA-NVSentinel", "messages in order", "results_in_order", "per input: number of fall-off events culprit inferred without an Xid line (`xid_inferred`)", ev_ns_results_in_order},
  {"NVIDIA-NVSentinel", "ProcessLine inline/sxid", "recommended_action", "n/a: culprit has no SXid action catalogue", nullptr},
  {"NVIDIA-NVSentinel", "ProcessLine inline/sxid", "entities_3_4", "n/a: needs NVSentinel's NVSwitch topology", nullptr},
  {"NVIDIA-NVSentinel", "ProcessLine inline/sxid", "error", kNoErrorValue, nullptr},
  {"NVIDIA-NVSentinel", "ProcessLine inline/sxid", "", "SXid events: count, codes, `fatality`", ev_ns_sxid_line},
  {"NVIDIA-NVSentinel", "inline/gpufallen", "message", "n/a: the peer echoes the whole input", nullptr},
  {"NVIDIA-NVSentinel", "inline/gpufallen", "", "the Xid 79 culprit inferred from the fall-off report (`xid_inferred`): `bdf`, `pci_id`, severity, `action`", ev_ns_fallen},

  // --- facebookresearch/gcm ------------------------------------------------------------------
  {"facebookresearch-gcm", "", "exit_code", "no Xid -> OK; Xids none critical -> WARN; a critical Xid (severity critical) -> CRITICAL", ev_gcm_exit},
  {"facebookresearch-gcm", "", "xids", "Xid event codes in order", ev_gcm_xids},
  {"facebookresearch-gcm", "", "log_contains", "n/a: the peer's message wording", nullptr},
  {"facebookresearch-gcm", "", "fake_command_returncode", "n/a: the faked command's status, an input of the test", nullptr},

  // --- CarstenGrohmann/OOMAnalyser -----------------------------------------------------------
  {"CarstenGrohmann-OOMAnalyser", "", "fields", "kernel_oom event fields (gfp_mask hex, trigger, victim score, swap figures kB, task-table layout)", ev_oa_fields},
  {"CarstenGrohmann-OOMAnalyser", "", "explanation_expected_statements", "the fact each statement states (trigger kind, swap, score, cgroup)", ev_oa_statements},
  {"CarstenGrohmann-OOMAnalyser", "", "explanation_unexpected_statements", "the fact each statement states must be false", ev_oa_statements},
  {"CarstenGrohmann-OOMAnalyser", "", "results_result_table_expected", "swap total present / absent", ev_oa_table},
  {"CarstenGrohmann-OOMAnalyser", "", "results_result_table_unexpected", "swap total present / absent", ev_oa_table},
  {"CarstenGrohmann-OOMAnalyser", "", "explanation_section", "the numbers of each section: RAM, swap (kB), task-table RSS sum, victim", ev_oa_section},
  {"CarstenGrohmann-OOMAnalyser", "", "svg", "n/a: drawing", nullptr},
  {"CarstenGrohmann-OOMAnalyser", "", "same_results_as", "every assertion of the unprefixed example, on the prefixed input", ev_oa_same},
  {"CarstenGrohmann-OOMAnalyser", "", "prefix", "n/a: the prefix itself (its effect is same_results_as)", nullptr},
  {"CarstenGrohmann-OOMAnalyser", "", "MAX_ORDER", "n/a: buddy allocator order count, analyser-internal", nullptr},
  {"CarstenGrohmann-OOMAnalyser", "", "page_size_kb", "OOM event `page_size`", ev_oa_page_size},
  {"CarstenGrohmann-OOMAnalyser", "", "page_size_guessed", "n/a: how the analyser found the page size", nullptr},
  {"CarstenGrohmann-OOMAnalyser", "", "after_removing_lines", "n/a: an input change, applied before feeding", nullptr},
  {"CarstenGrohmann-OOMAnalyser", "", "buddyinfo_zones", "OOM event `buddy_zones` (zone names of the free-list lines)", ev_oa_zones},
  {"CarstenGrohmann-OOMAnalyser", "", "watermark_zones", "OOM event `zones` (zone names of the watermark lines)", ev_oa_zones},
  {"CarstenGrohmann-OOMAnalyser", "", "pstable_names", "OOM report task table: name of each pid", ev_oa_pstable},
  {"CarstenGrohmann-OOMAnalyser", "", "columns_to_strip", "words culprit peeled off the line as prefix", ev_oa_columns},
  {"CarstenGrohmann-OOMAnalyser", "", "kernel_version", "kernel version culprit reads from the CPU line", ev_oa_kernel_version},
  {"CarstenGrohmann-OOMAnalyser", "", "kernel_config", "n/a: the analyser's choice of per-kernel parsing rules", nullptr},

  // --- canonical/hotsos ----------------------------------------------------------------------
  {"canonical-hotsos", "", "oom_killer_events", "kills: trigger comm (procname) + victim pid", ev_hs_events},
  {"canonical-hotsos", "", "heuristics_per_zone", "OOM event `zones_below_min` / `zones_below_low`", ev_hs_zones},
  {"canonical-hotsos", "", "heuristics_count", "number of zones culprit read watermarks for", ev_hs_count},
  {"canonical-hotsos", "", "raised_issues", "number of OOM reports with an invoked line", ev_hs_issues},

  // --- ewk/parseoom --------------------------------------------------------------------------
  {"ewk-parseoom", "", "regex_matches", "n/a: the peer's own regex", nullptr},
  {"ewk-parseoom", "", "regex", "n/a: the peer's own regex", nullptr},
  {"ewk-parseoom", "", "matches", "n/a: the peer's own regex", nullptr},
  {"ewk-parseoom", "parse_meminfo", "", "n/a: one Mem-Info line alone is not an OOM report; culprit reads these figures inside one (see `messages`)", nullptr},
  {"ewk-parseoom", "", "", "kernel_oom event: RAM - reserved, swap, hugepages, slab, shmem (bytes), task table RSS", ev_po_report},

  // --- alexeyantropov/oom_messages_exporter --------------------------------------------------
  {"alexeyantropov-oom_messages_exporter", "", "has_oom", "an OOM event with a known victim pid", ev_has_kill},
  {"alexeyantropov-oom_messages_exporter", "", "pid", "OOM event victim pid (-1 = none)", ev_victim_pid},
  {"alexeyantropov-oom_messages_exporter", "", "add_returns_pid", "OOM event victim pid", ev_victim_pid},
  {"alexeyantropov-oom_messages_exporter", "", "process_name", "OOM event victim comm (the peer's failure text = none)", ev_victim_name},
  {"alexeyantropov-oom_messages_exporter", "", "result", "has oom = a kill; has container = a kill with `container_id`", ev_ax_result},
  {"alexeyantropov-oom_messages_exporter", "", "container_id", "OOM event `container_id` (from the cgroup path)", ev_container_id},
  {"alexeyantropov-oom_messages_exporter", "", "container_name", "n/a: a crictl lookup", nullptr},

  // --- sapcc/kubernetes-oomkill-exporter -----------------------------------------------------
  {"sapcc-kubernetes-oomkill-exporter", "", "pod_uid", "OOM event `pod_uid`", ev_pod_uid},
  {"sapcc-kubernetes-oomkill-exporter", "", "container_id", "OOM event `container_id`", ev_container_id},

  // --- pytorch/tnt ---------------------------------------------------------------------------
  {"pytorch-tnt", "", "exception_type", "n/a: how the peer's test builds the exception", nullptr},
  {"pytorch-tnt", "", "is_out_of_cpu_memory", "a `host_alloc_fail` event", ev_tnt},
  {"pytorch-tnt", "", "is_out_of_cuda_memory", "a `cuda_oom` event", ev_tnt},
  {"pytorch-tnt", "", "is_out_of_memory_error", "a `cuda_oom` or `host_alloc_fail` event", ev_tnt},

  // --- kubernetes/node-problem-detector ------------------------------------------------------
  {"kubernetes-node-problem-detector", "", "rule_matches", "culprit's class of the line: OOMKilling = a kill, TaskHung/DockerHung = `kernel_hung_task`, KernelOops = `kernel_oops`; other NPD reasons n/a", ev_npd_rules},
  {"kubernetes-node-problem-detector", "", "problem_counter", "number of kills / hung-task / oops events", ev_npd_counter},
  {"kubernetes-node-problem-detector", "", "problem_gauge", "n/a: NPD node-condition state", nullptr},
  {"kubernetes-node-problem-detector", "", "translator_config", "n/a: the peer's configuration (an input of the test)", nullptr},
  {"kubernetes-node-problem-detector", "", "timestamp_go", "n/a: same value as `timestamp`, in Go", nullptr},
  {"kubernetes-node-problem-detector", "", "error", "n/a: culprit keeps an unparsable stamp as text, it has no error value", nullptr},
  {"kubernetes-node-problem-detector", "", "timestamp", "the line's stamp as culprit read it (`ts_raw`)", ev_npd_translator},
  {"kubernetes-node-problem-detector", "", "message", "the line's message after culprit peeled the prefix", ev_npd_translator},
};
// clang-format on

bool row_matches(const Mapping& m, const Entry& e, const std::string& scope, const std::string& key) {
  if (m.peer != "*" && m.peer != e.peer) return false;
  if (!m.scope.empty() && scope.find(m.scope) == std::string::npos) return false;
  return m.key.empty() || m.key == key;
}

}  // namespace

std::string Entry::scope() const {
  std::string s = function;
  for (const auto& in : inputs) s += " " + in;
  if (inputs.empty()) s += " " + file;
  return s;
}

std::string Entry::display() const {
  if (!file.empty() && inputs.size() <= 1) return file;
  std::string s;
  for (const auto& in : inputs) s += (s.empty() ? "" : " + ") + in;
  return s.empty() ? "(no input)" : s;
}

void put(std::vector<Result>& out, std::string key, Status status, std::string peer_value,
         std::string culprit_value, std::string fact) {
  out.push_back({std::move(key), status, std::move(peer_value), std::move(culprit_value), std::move(fact)});
}

void compare(std::vector<Result>& out, std::string key, const std::string& peer_value,
             const std::string& culprit_value, std::string fact) {
  put(out, std::move(key), peer_value == culprit_value ? Status::agree : Status::differ, peer_value, culprit_value,
      std::move(fact));
}

bool evaluate(const Ctx& ctx, const std::string& key, const Json& want, std::vector<Result>& out) {
  const std::string scope = ctx.entry.scope();
  for (const auto& m : kTable) {
    if (!row_matches(m, ctx.entry, scope, key)) continue;
    if (m.eval == nullptr) {
      put(out, key, Status::not_applicable, want.show(), "", std::string(m.fact));
      return true;
    }
    std::size_t before = out.size();
    m.eval(ctx, key, want, out);
    for (std::size_t i = before; i < out.size(); ++i)
      if (out[i].fact.empty()) out[i].fact = std::string(m.fact);
    return true;
  }
  return false;
}

void print_mapping() {
  std::printf("%-36s %-34s %-28s %s\n", "peer", "scope", "assertion", "culprit fact");
  for (const auto& m : kTable)
    std::printf("%-36s %-34s %-28s %s\n", std::string(m.peer).c_str(),
                std::string(m.scope.empty() ? "*" : m.scope).c_str(), std::string(m.key.empty() ? "*" : m.key).c_str(),
                std::string(m.fact).c_str());
}

}  // namespace culprit::conformance
