// Which host a folder's files belong to, once their content is read. A folder's name is the
// weakest evidence of a host (`culprit spark-b/`, or node folders under a parent): it names the
// host of every file in the folder, unless the folder's own log lines say otherwise.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "culprit/store/database.hpp"

namespace culprit::store {

/// The sources whose events may name a host, as the timeline's writer saw each event
/// (TimelineWriter::hosts_named): one of the source's events carries a host other than '' and
/// the source's own, or a `node` field. settle_folder_hosts reads the events of a folder only
/// where one of its sources is here: a folder of logs whose lines name no host (most of a batch,
/// and a many-events log read whole for nothing) costs it no read of its events.
/// `complete`: the writer wrote every event of the timeline (it began on an empty one); else
/// the set says nothing. True of the timeline as the writer left it, until an event's host or
/// fields change.
struct HostsNamed {
  bool complete = false;
  std::set<std::int64_t> sources;
};

/// For each host a folder name gave (sources with host_from `folder name`): when the events of
/// that folder's sources name exactly one other host (a syslog host field, NCCL's
/// `host:pid:tid` prefix, …), that host replaces the folder name everywhere in the timeline and
/// the sources say `log lines`; so does a prompt in one of the folder's files (a terminal paste
/// made at `user@gpu07:~$`). A folder whose content names no host, or several, keeps its name.
/// Launcher lines count as naming a host (an event field `node`: `srun: error: gpu-017: task 3:
/// …` says where the job ran). Then a paste segment whose host is a prompt's (a login node)
/// and whose launcher lines name one other node is that node's output: its events, snapshots
/// and the processes they name move there (`launcher line`).
/// Looks only inside the folder: a source never takes the host another folder's lines name.
/// Run after ingest, before align_clocks (whose one-host rule then only fills sources that
/// no folder, prompt or --host named: files and standard input). `named`: what the writer saw,
/// which only spares reads (the answer is the same without it). Returns an error or "".
std::string settle_folder_hosts(Database& db, const HostsNamed& named = {});

}  // namespace culprit::store
