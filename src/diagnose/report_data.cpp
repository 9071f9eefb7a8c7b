// Report data: what the report's pictures keep of the loaded records (load_report.cpp reads
// them): the GPU samples nearest the failure, the timeline's root and echo marks, and the roles
// the verdict knows better than the process table. No SQL here.
#include "culprit/diagnose/report_data.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include "load_report.hpp"

namespace culprit::diagnose {
namespace {

/// Keeps each GPU's kReportGpuSamples samples nearest the failure `focus_ts` (or the latest), in
/// their time order.
void keep_samples_near(std::vector<GpuSeries>& gpus, std::optional<double> focus_ts) {
  for (auto& s : gpus) {
    if (s.samples.size() <= kReportGpuSamples) continue;
    std::size_t start = s.samples.size() - kReportGpuSamples;
    if (focus_ts) {
      std::size_t nearest = 0;
      double best = INFINITY;
      for (std::size_t i = 0; i < s.samples.size(); ++i) {
        if (!s.samples[i].ts) continue;
        const double d = std::fabs(*s.samples[i].ts - *focus_ts);
        if (d < best) best = d, nearest = i;
      }
      start = std::min(start, nearest > kReportGpuSamples / 2 ? nearest - kReportGpuSamples / 2 : 0);
    }
    s.samples = std::vector<GpuSample>(s.samples.begin() + static_cast<std::ptrdiff_t>(start),
                                       s.samples.begin() + static_cast<std::ptrdiff_t>(start + kReportGpuSamples));
  }
}

}  // namespace

void mark_timeline(const Verdict& verdict, std::vector<TimelineEvent>& events) {
  std::set<std::int64_t> echo_ids;
  for (const auto& e : verdict.echoes)
    if (e.event_id) echo_ids.insert(e.event_id);
  const std::int64_t root_id = verdict.root ? verdict.root->event_id : 0;
  for (auto& e : events) {
    if (root_id && e.event_id == root_id) e.mark = "root";
    else if (echo_ids.count(e.event_id)) e.mark = "echo";
    else e.mark = "other";
  }
}

void add_report_data(store::Database& db, Verdict& verdict) {
  ReportData& data = verdict.data;
  TimelineQuery query;
  if (verdict.root && verdict.root->event_id) query.focus = verdict.root->event_id;
  data.timeline = load_timeline(db, query, &data.timeline_total);
  mark_timeline(verdict, data.timeline);
  data.hosts = load_host_clocks(db);
  data.gpus = load_gpu_series(db);
  keep_samples_near(data.gpus, verdict.root ? verdict.root->ts : std::nullopt);
  data.memory = load_memory_series(db);
  data.ooms = load_oom_tables(db, verdict.root ? verdict.root->event_id : 0);
  data.oom_parts = load_oom_parts(db, verdict.root ? verdict.root->event_id : 0);
  data.allocator = choose_allocator_view(load_allocator_views(db), verdict);
  // The diagnosis may know a process's role better than the process table (a hog the kernel
  // table names, a foreign holder): the pictures must agree with the verdict.
  auto role_of = [&](const std::string& host, std::int64_t pid) -> std::string {
    for (const auto* p : {&verdict.culprit, &verdict.victim})
      if (*p && (*p)->pid && *(*p)->pid == pid && (*p)->host == host && ((*p)->role == "job" || (*p)->role == "foreign"))
        return (*p)->role;
    return {};
  };
  for (auto& t : data.ooms)
    for (auto& task : t.tasks)
      if (auto r = role_of(t.host, task.pid); !r.empty()) task.role = r;
  for (auto& g : data.gpus)
    for (auto& s : g.samples)
      for (auto& p : s.processes)
        if (auto r = role_of(g.host, p.pid); !r.empty()) p.role = r;
}

}  // namespace culprit::diagnose
