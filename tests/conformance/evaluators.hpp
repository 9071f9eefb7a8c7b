// The evaluators the mapping table (peer_map.cpp) points at: each compares one kind of peer
// assertion with the culprit fact that means the same thing, and appends results. Grouped by
// subject: kernel OOM reports (eval_oom.cpp), GPU Xid/SXid lines (eval_gpu.cpp), and the
// rest — kmsg records, exception messages, NPD classes (eval_misc.cpp).
#pragma once

#include <string>
#include <vector>

#include "conformance/assertion.hpp"

namespace culprit::conformance {

using Eval = void (*)(const Ctx&, const std::string& key, const Json& want, std::vector<Result>& out);

// --- helpers shared by the evaluators -------------------------------------------------------
/// The OOM event an assertion is about: the kill at `oom_index_in_case` when the entry names
/// one, else the first kill, else the first OOM event (a report without a kill line); nullptr
/// when culprit saw no OOM.
const core::Event* subject_oom(const Ctx& ctx);
/// The first Xid / SXid event, or nullptr.
const core::Event* first_xid(const Ctx& ctx);
const core::Event* first_sxid(const Ctx& ctx);
/// "a, b, c" of `items`.
std::string join(const std::vector<std::string>& items, std::string_view sep = ", ");
/// Kilobytes of a byte count field ("" when absent).
std::string kib(const core::Event& e, std::string_view bytes_field);

// --- kernel OOM reports (eval_oom.cpp) ------------------------------------------------------
void ev_has_kill(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_is_start(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_container(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_victim_container(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_victim_pid(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_victim_name(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_constraint(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_oom_index(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_syslog_time(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_oom_events(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_container_id(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_pod_uid(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_ax_result(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_hs_events(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_hs_zones(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_hs_count(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_hs_issues(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_oa_fields(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_oa_statements(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_oa_table(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_oa_section(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_oa_same(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_oa_page_size(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_oa_zones(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_oa_pstable(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_oa_columns(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_oa_kernel_version(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_po_report(const Ctx&, const std::string&, const Json&, std::vector<Result>&);

// --- GPU: Xid, NVLink5, SXid, fall-off (eval_gpu.cpp) ---------------------------------------
void ev_xid_code(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_xid_device(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_xid_match(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_xid_detail(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_xid_count(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_xid_list(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_nvl5_field(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_nvl5_match(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_event_type(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_sxid_code(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_sxid_device(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_sxid_match(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_sxid_detail(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_nvlink_event(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_dcgm_time(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_dcgm_list(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_dcgm_count(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_ns_mnemonic(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_ns_decoded(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_ns_action(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_ns_metadata(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_ns_gpu_map(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_ns_sxid_event(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_ns_sxid_line(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_ns_fallen(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_ns_results_in_order(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_gcm_exit(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_gcm_xids(const Ctx&, const std::string&, const Json&, std::vector<Result>&);

// --- kmsg records, exception messages, NPD classes (eval_misc.cpp) ---------------------------
void ev_kmsg(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_tnt(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_npd_rules(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_npd_counter(const Ctx&, const std::string&, const Json&, std::vector<Result>&);
void ev_npd_translator(const Ctx&, const std::string&, const Json&, std::vector<Result>&);

}  // namespace culprit::conformance
