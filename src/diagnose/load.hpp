// The diagnosis loader (see load.cpp): the records the decisions need, read from the timeline
// once — the GPU ledger's input, the host OOM record, the advice's facts.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "culprit/store/database.hpp"
#include "advice.hpp"
#include "host_ledger.hpp"
#include "ledger_model.hpp"
#include "roles.hpp"

namespace culprit::diagnose {

/// The GPU-memory settings the job's logs on `host` echo (at most 4, first seen first).
std::vector<JobSetting> load_job_settings(store::Database& db, const std::string& host);

/// Whether the events of `host` name more than one distinct rank.
bool load_multi_rank(store::Database& db, const std::string& host);

/// The per-host reads that every finding on a host asks alike (load_job_settings,
/// load_multi_rank), each made once per diagnosis: nothing writes the events while the findings
/// are made, and each read scans every event of the host (on a vLLM log where one line in ten is
/// a memory line that echoes a setting, two findings paid a fifth of the diagnosis twice; issue
/// 38). One database's, for one diagnosis: make a new one after the timeline changes.
class HostReads {
 public:
  explicit HostReads(store::Database& db) : db_(db) {}
  store::Database& db() { return db_; }
  const std::vector<JobSetting>& job_settings(const std::string& host);
  bool multi_rank(const std::string& host);

 private:
  store::Database& db_;
  std::map<std::string, std::vector<JobSetting>> settings_;
  std::map<std::string, bool> multi_rank_;
};

/// The records decide_ledger() needs for the failure event `event_id` (a cuda_oom or
/// startup_mem_check event): the figures the error quoted, the GPU snapshot of the same host and
/// GPU nearest in time, the holders' names and roles, the failing process. Snapshot lines that
/// back the ledger go to `evidence`.
GpuLedgerInput load_ledger_input(HostReads& reads, std::int64_t event_id, std::vector<Evidence>& evidence);

/// load_ledger_input() then decide_ledger(); an unknown event gives an empty result. The first
/// form reads the host's facts afresh.
LedgerResult build_ledger(store::Database& db, std::int64_t event_id);
LedgerResult build_ledger(HostReads& reads, std::int64_t event_id);

/// Reads the record of the kernel_oom event `event_id`; nullopt when it is not a report.
std::optional<HostOomRecord> load_host_oom(store::Database& db, std::int64_t event_id);

/// What the failure event's signal declares about the job's footprint.
FootprintFacts load_footprint_facts(store::Database& db, std::int64_t event_id);

/// What roles are decided from (roles.hpp), read once; a failed read sets `error`.
RoleFacts load_role_facts(store::Database& db, std::string& error);

/// Writes the roles' decisions into process_roles (an earlier diagnosis' rows removed; records
/// are never updated): a pid the job's own logs name is `job`; the rest as decide_roles() says.
/// Returns an error message or empty.
std::string assign_roles(store::Database& db);

}  // namespace culprit::diagnose
