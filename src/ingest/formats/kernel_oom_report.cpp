// OomBlock: assembles one kernel OOM report from its lines (formats.md Part 1) and emits it as
// one `kernel_oom` event + core::OomReport (+ process sightings), or as an `oom_kill` event when
// only kill lines were seen (rate-limited dumps). Why one event: diagnoses reason about the
// report as a whole (constraint, victim vs hog, limit), and evidence cites its line range.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <string>

#include "culprit/core/oom_parts.hpp"
#include "culprit/core/size.hpp"
#include "kernel_oom_report.hpp"
#include "kernel_text.hpp"

namespace culprit::ingest::kernel {
namespace {

bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

constexpr double kStaleSeconds = 60.0;   // a report is printed within a second or two
constexpr double kResumeSeconds = 10.0;  // a re-selection of the same parent after a sacrificed child
constexpr std::size_t kMaxTasks = 200000;  // bound memory on absurd inputs
constexpr std::string_view kMemcgReason = "Memory cgroup out of memory";

/// `oom_reaper: reaped process N (x), now …` -> N (and x into `comm` when given).
std::optional<std::int64_t> reaped_pid(std::string_view t, std::string* comm = nullptr) {
  constexpr std::string_view kPrefix = "oom_reaper: reaped process ";
  if (!starts_with(t, kPrefix)) return std::nullopt;
  std::string_view r = t.substr(kPrefix.size());
  auto pid = parse_number(r.substr(0, r.find(' ')));
  std::size_t open = r.find('('), close = r.rfind("), now ");
  if (comm != nullptr && pid && open != std::string_view::npos && close != std::string_view::npos && close > open)
    *comm = std::string(r.substr(open + 1, close - open - 1));
  return pid;
}

/// A stack frame of the memcg OOM path (`mem_cgroup_out_of_memory+0x4b/0x80`): the report is a
/// cgroup's even when its head (constraint, `Task in … killed as a result of limit`) was cut.
/// Frames marked `?` are stale stack words, not the call path, and do not count.
bool memcg_oom_frame(std::string_view t) {
  if (starts_with(t, "? ")) return false;
  return starts_with(t, "mem_cgroup_out_of_memory+") || starts_with(t, "mem_cgroup_oom_synchronize+");
}

/// `<reason>: OOM victim N (x) is already exiting. Skip killing the task` -> N, x.
bool already_exiting(std::string_view t, std::int64_t& pid, std::string& comm) {
  std::size_t p = t.find("OOM victim ");
  if (p == std::string_view::npos || !contains(t, "is already exiting")) return false;
  std::string_view r = t.substr(p + 11);
  auto v = parse_number(r.substr(0, r.find(' ')));
  if (!v) return false;
  pid = *v;
  std::size_t open = r.find('('), close = r.rfind(") is already exiting");
  if (open != std::string_view::npos && close != std::string_view::npos && close > open)
    comm = std::string(r.substr(open + 1, close - open - 1));
  return true;
}

std::string join_pids(const std::vector<std::int64_t>& pids) {
  std::string s;
  for (auto p : pids) {
    if (!s.empty()) s += ',';
    s += std::to_string(p);
  }
  return s;
}

}  // namespace

void OomBlock::note_line(std::int64_t seg_line, const KernelLine& line) {
  Stamp st;
  st.kind = line.ts_kind;
  st.ts = line.ts;
  st.ts_value = line.ts_value;
  st.boot_ts = line.boot_ts;
  st.ts_raw = std::string(line.ts_raw);
  st.host = std::string(line.host);
  if (first_line_ == 0) {
    first_line_ = seg_line;
    first_stamp_ = st;
  }
  last_line_ = std::max(last_line_, seg_line);
  if (line.ts_kind == core::TsKind::boot && line.ts_value) {
    last_time_ = line.ts_value;
    last_kind_ = line.ts_kind;
  } else if (line.ts) {
    last_time_ = line.ts;
    last_kind_ = line.ts_kind;
  } else if (line.ts_kind == core::TsKind::wall_no_year && line.ts_value) {
    last_time_ = line.ts_value;
    last_kind_ = line.ts_kind;
  }
  if (first_stamp_.kind == core::TsKind::none && st.kind != core::TsKind::none) first_stamp_ = st;
  if (killed_ && !has_kill_stamp_) {
    kill_stamp_ = st;
    has_kill_stamp_ = true;
  }
}

std::optional<double> OomBlock::time_of(const KernelLine& line) {
  if (line.ts_kind == core::TsKind::boot) return line.ts_value;
  if (line.ts) return line.ts;
  if (line.ts_kind == core::TsKind::wall_no_year) return line.ts_value;
  return std::nullopt;
}

bool OomBlock::stale(const KernelLine& line) const {
  if (!last_time_) return false;
  std::optional<double> t = time_of(line);
  if (!t || line.ts_kind != last_kind_) return false;
  return std::fabs(*t - *last_time_) > kStaleSeconds;
}

Feed OomBlock::feed(std::int64_t seg_line, const KernelLine& line) {
  std::string_view t = trim(line.message);
  Feed result = Feed::absorbed;
  pending_tail_.reset();
  bool stamped = line.ts_kind != core::TsKind::none || line.kmsg;
  if (killed_) {
    result = feed_tail(t, line);
  } else if (auto inv = parse_invoked(t)) {
    if (first_line_ != 0) return Feed::rejected;  // a new report begins
    report_.trigger_comm = inv->comm;
    report_.gfp_mask = inv->gfp_mask;
    report_.order = inv->order;
    report_.trigger_oom_score_adj = inv->oom_score_adj;
    invoked_message_ = std::string(t);
    invoked_line_ = seg_line;
    has_invoked_ = report_content_ = true;
    result = Feed::taken;
  } else if (starts_with(t, "Pid: ") && contains(t, ", comm: ")) {  // 2.6.32 stack header
    if (!report_.trigger_pid) report_.trigger_pid = parse_number(t.substr(5, t.find(',') - 5));
    result = Feed::taken;
  } else if (auto cpu = parse_cpu_line(t)) {
    if (!report_.trigger_pid) {
      report_.trigger_pid = cpu->pid;
      if (report_.trigger_comm.empty()) report_.trigger_comm = cpu->comm;
    }
    if (kernel_version_.empty()) kernel_version_ = cpu->kernel_version;
    result = Feed::taken;
  } else if (!starts_with(t, "oom-kill:") && contains(t, " cpuset=") && contains(t, " mems_allowed=")) {
    std::size_t p = t.rfind(" cpuset=") + 8;
    report_.cpuset = std::string(t.substr(p, t.rfind(" mems_allowed=") - p));
    report_content_ = true;
    result = Feed::taken;
  } else if (starts_with(t, "Task in ") && contains(t, " killed as a result of limit of ")) {
    std::size_t p = t.find(" killed as a result of limit of ");
    task_in_task_memcg_ = std::string(t.substr(8, p - 8));
    task_in_oom_memcg_ = std::string(trim(t.substr(p + 32)));
    has_memcg_block_ = report_content_ = true;
    result = Feed::taken;
  } else if (starts_with(t, "Memory limit reached of cgroup ")) {
    task_in_oom_memcg_ = std::string(trim(t.substr(31)));
    has_memcg_block_ = report_content_ = true;
    result = Feed::taken;
  } else if (auto c = parse_counter(t)) {
    if (c->name == "memory") {
      report_.memcg_usage = c->usage;
      report_.memcg_limit = c->limit;
      report_.memcg_failcnt = c->failcnt;
    } else if (c->name == "memory+swap") {
      memsw_usage_ = c->usage;
      memsw_limit_ = c->limit;
    } else if (c->name == "kmem") {
      kmem_usage_ = c->usage;
    } else if (c->name == "swap") {
      swap_usage_ = c->usage;
      swap_limit_ = c->limit;
    }
    has_memcg_block_ = report_content_ = true;
    result = Feed::taken;
  } else if (starts_with(t, "Memory cgroup stats for ")) {
    has_memcg_block_ = report_content_ = true;
    result = Feed::taken;
  } else if (t == "Mem-Info:") {
    has_mem_info_ = report_content_ = true;
    result = Feed::taken;
  } else if (has_mem_info_ && mem_info_.feed(t)) {
    result = Feed::taken;
  } else if (starts_with(t, "Free swap") && contains(t, "=")) {
    report_.swap_free_kb = parse_number(trim(t.substr(t.find('=') + 1)));
    result = Feed::taken;
  } else if (starts_with(t, "Total swap") && contains(t, "=")) {
    report_.swap_total_kb = parse_number(trim(t.substr(t.find('=') + 1)));
    result = Feed::taken;
  } else if (ends_with(t, " pages RAM")) {
    pages_ram_ = parse_number(t.substr(0, t.find(' ')));
    result = Feed::taken;
  } else if (ends_with(t, " pages reserved")) {
    pages_reserved_ = parse_number(t.substr(0, t.find(' ')));
    result = Feed::taken;
  } else if (ends_with(t, " pages in swap cache")) {
    swap_cache_pages_ = parse_number(t.substr(0, t.find(' ')));
    result = Feed::taken;
  } else if (starts_with(t, "Tasks state (memory values in pages)")) {
    report_content_ = true;
    result = Feed::taken;
  } else if (!t.empty() && t[0] == '[' && contains(t, "pid") && contains(t, " uid ") && contains(t, " tgid ")) {
    if (!cols_.empty() && !cols_guessed_ && !report_.tasks.empty()) return Feed::rejected;  // a second table
    parse_header(t);
    if (!ends_with(t, " name") && stamped) pending_tail_ = PendingTail{PendingTail::What::header, std::string(t)};
    report_content_ = true;
    result = Feed::taken;
  } else if (!t.empty() && t[0] == '[') {
    core::OomTask task;
    RowParse rp = parse_row(t, task);
    if (rp == RowParse::ok) {
      keep_task(std::move(task));
      report_content_ = true;
      result = Feed::taken;
    } else if (rp == RowParse::incomplete) {
      pending_row_ = PendingRow{std::string(t), seg_line, line.ts_kind != core::TsKind::none};
      report_content_ = true;
      result = Feed::taken;
    }
  } else if (auto s = parse_oom_summary(t)) {
    if (summary_) return Feed::rejected;
    summary_ = std::move(*s);
    summary_message_ = std::string(t);
    summary_line_ = seg_line;
    if (stamped) pending_tail_ = PendingTail{PendingTail::What::summary, std::string(t)};
    report_content_ = true;
    result = Feed::taken;
  } else if (auto sel = parse_kill_select(t)) {
    if (sel->sharing) {
      report_.other_killed_pids.push_back(sel->pid);
    } else {
      if (selected_pid_ && *selected_pid_ != sel->pid) return Feed::rejected;
      selected_pid_ = sel->pid;
      selected_comm_ = sel->comm;
      selected_score_ = sel->score;
      if (report_.reason.empty()) report_.reason = sel->reason;
    }
    result = Feed::taken;
  } else if (auto kill = parse_kill_line(t)) {
    // A second kill of one episode (the selected parent after its sacrificed child): the
    // earlier victim was killed too, and the last kill is the victim (see feed_tail).
    if (victim_ && victim_->pid != kill->pid) report_.other_killed_pids.push_back(victim_->pid);
    victim_ = std::move(*kill);
    if (!victim_->reason.empty()) report_.reason = victim_->reason;
    kill_message_ = std::string(t);
    kill_line_ = seg_line;
    killed_ = true;
    kill_time_ = time_of(line);
    if (stamped) pending_tail_ = PendingTail{PendingTail::What::kill, std::string(t)};
    result = Feed::taken;
  } else if (std::int64_t pid = 0; already_exiting(t, pid, exiting_comm_)) {
    exiting_pid_ = pid;
    killed_ = true;  // nothing more will be killed for this report
    result = Feed::taken;
  } else if (starts_with(t, "Out of memory and no killable processes")) {
    no_killable_ = true;
    killed_ = true;
    result = Feed::taken;
  } else if (std::string comm; auto pid = reaped_pid(t, &comm)) {
    // The reaper runs on the process just killed: the victim when the kill line itself is
    // missing (a grep for "oom" keeps the reaper line but not "Killed process").
    reaped_ = true;
    reaped_pid_ = pid;
    reaped_comm_ = comm;
    result = Feed::taken;
  } else if (memcg_oom_frame(t)) {
    memcg_frame_ = true;
  }
  if (result != Feed::rejected) note_line(seg_line, line);
  return result;
}

Feed OomBlock::feed_tail(std::string_view t, const KernelLine& line) {
  if (auto pid = reaped_pid(t)) {
    reaped_ = true;
    return Feed::taken;
  }
  if (starts_with(t, "Tasks in ") && contains(t, "memory.oom.group")) {
    oom_group_ = true;
    std::string_view r = t.substr(9);
    report_.oom_memcg = report_.oom_memcg.empty() ? std::string(r.substr(0, r.find(' '))) : report_.oom_memcg;
    return Feed::taken;
  }
  if (auto kill = parse_kill_line(t)) {
    if (victim_ && kill->pid == victim_->pid) return Feed::taken;  // printed again by the group walk
    if (!oom_group_) return Feed::rejected;                        // a separate kill
    // Group members die in the same instant; a kill seconds later is a new (rate-limited) OOM.
    if (auto now = time_of(line); now && kill_time_ && std::fabs(*now - *kill_time_) > 1.0) return Feed::rejected;
    if (std::find(report_.other_killed_pids.begin(), report_.other_killed_pids.end(), kill->pid) ==
        report_.other_killed_pids.end())
      report_.other_killed_pids.push_back(kill->pid);
    return Feed::taken;
  }
  if (auto sel = parse_kill_select(t); sel && sel->sharing) {
    report_.other_killed_pids.push_back(sel->pid);
    return Feed::taken;
  } else if (sel && selected_pid_ && sel->pid == *selected_pid_ && victim_ && victim_->pid != sel->pid) {
    // <= 5.0 "Kill process P (x) score S or sacrifice child" killed a child of P; the memory was
    // still short, so the kernel selects P again within a moment and (usually) kills P itself.
    // One episode: the kill that follows is its victim, the child is another killed pid.
    auto now = time_of(line);
    if (now && kill_time_ && std::fabs(*now - *kill_time_) > kResumeSeconds) return Feed::rejected;
    killed_ = false;
    return Feed::taken;
  }
  if (starts_with(t, "oom killer ") && contains(t, " has mm pinned by ")) return Feed::taken;
  std::int64_t pid = 0;
  std::string comm;
  if (already_exiting(t, pid, comm)) return Feed::taken;
  return Feed::rejected;
}

bool OomBlock::parse_header(std::string_view t) {
  std::size_t close = t.find(']');
  if (close == std::string_view::npos) return false;
  cols_.clear();
  cols_guessed_ = false;
  std::string_view r = t.substr(close + 1);
  std::size_t i = 0;
  while (i < r.size()) {
    while (i < r.size() && r[i] == ' ') ++i;
    std::size_t j = i;
    while (j < r.size() && r[j] != ' ') ++j;
    if (j == i) break;
    std::string_view n = r.substr(i, j - i);
    i = j;
    Col c = n == "uid" ? Col::uid
            : n == "tgid" ? Col::tgid
            : n == "total_vm" ? Col::total_vm
            : n == "rss" ? Col::rss
            : n == "rss_anon" ? Col::rss_anon
            : n == "rss_file" ? Col::rss_file
            : n == "rss_shmem" ? Col::rss_shmem
            : n == "pgtables_bytes" ? Col::pgtables_bytes
            : n == "nr_ptes" ? Col::nr_ptes
            : n == "nr_pmds" ? Col::nr_pmds
            : n == "swapents" ? Col::swapents
            : n == "oom_score_adj" ? Col::oom_score_adj
            : n == "cpu" ? Col::cpu
            : n == "oom_adj" ? Col::oom_adj
            : n == "name" ? Col::name
                          : Col::other;
    cols_.push_back(c);
  }
  if (cols_.empty() || cols_.back() != Col::name) cols_.push_back(Col::name);
  return true;
}

OomBlock::RowParse OomBlock::parse_row(std::string_view t, core::OomTask& task) const {
  t = trim(t);
  if (t.empty() || t[0] != '[') return RowParse::bad;
  std::size_t i = 1;
  while (i < t.size() && t[i] == ' ') ++i;
  std::size_t d0 = i;
  while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
  if (i == d0) return RowParse::bad;
  auto pid = parse_number(t.substr(d0, i - d0));
  while (i < t.size() && t[i] == ' ') ++i;
  if (i >= t.size() || t[i] != ']' || !pid) return RowParse::bad;
  ++i;
  // Numeric tokens from the left, then the name (rest of line, may hold spaces).
  std::vector<std::int64_t> nums;
  std::size_t want = cols_.empty() ? 0 : cols_.size() - 1;
  std::string_view name;
  while (true) {
    while (i < t.size() && t[i] == ' ') ++i;
    if (i >= t.size()) break;
    if (!cols_.empty() && nums.size() == want) {
      name = trim(t.substr(i));
      break;
    }
    std::size_t j = i;
    while (j < t.size() && t[j] != ' ') ++j;
    std::string_view tok = t.substr(i, j - i);
    bool numeric = !tok.empty() && (std::isdigit(static_cast<unsigned char>(tok[0])) ||
                                    (tok[0] == '-' && tok.size() > 1));
    auto v = numeric ? parse_number(tok) : std::nullopt;
    if (!v) {
      if (cols_.empty()) {
        name = trim(t.substr(i));
        break;
      }
      return RowParse::bad;
    }
    nums.push_back(*v);
    i = j;
  }
  // Without a header (a cut report) guess the layout from the count of numbers.
  std::vector<Col> guessed;
  const std::vector<Col>* cols = &cols_;
  if (cols_.empty()) {
    if (nums.size() == 10)
      guessed = {Col::uid, Col::tgid, Col::total_vm, Col::rss, Col::rss_anon, Col::rss_file,
                 Col::rss_shmem, Col::pgtables_bytes, Col::swapents, Col::oom_score_adj, Col::name};
    else if (nums.size() == 8)
      guessed = {Col::uid, Col::tgid, Col::total_vm, Col::rss, Col::nr_ptes, Col::nr_pmds,
                 Col::swapents, Col::oom_score_adj, Col::name};
    else if (nums.size() == 7)
      guessed = {Col::uid, Col::tgid, Col::total_vm, Col::rss, Col::other, Col::other,
                 Col::oom_score_adj, Col::name};
    else
      return RowParse::bad;
    if (name.empty()) return RowParse::incomplete;
    cols = &guessed;
  } else if (nums.size() < want || name.empty()) {
    return RowParse::incomplete;
  }
  task = core::OomTask{};
  task.pid = *pid;
  task.name = std::string(name);
  for (std::size_t k = 0; k < nums.size() && k < cols->size(); ++k) {
    std::int64_t v = nums[k];
    switch ((*cols)[k]) {
      case Col::uid: task.uid = v; break;
      case Col::tgid: task.tgid = v; break;
      case Col::total_vm: task.total_vm_pages = v; break;
      case Col::rss: task.rss_pages = v; break;
      case Col::rss_anon: task.rss_anon_pages = v; break;
      case Col::rss_file: task.rss_file_pages = v; break;
      case Col::rss_shmem: task.rss_shmem_pages = v; break;
      case Col::pgtables_bytes: task.pgtables_bytes = v; break;
      case Col::swapents: task.swapents = v; break;
      case Col::oom_score_adj: task.oom_score_adj = static_cast<int>(v); break;
      default: break;
    }
  }
  return RowParse::ok;
}

bool OomBlock::continue_row(std::int64_t seg_line, std::string_view raw, const KernelLine& line) {
  if (pending_tail_) {
    // A terminal-wrapped kill / summary line in a stamped log: the tail has no stamp.
    PendingTail pt = std::move(*pending_tail_);
    pending_tail_.reset();
    bool bare = line.ts_kind == core::TsKind::none && !line.relative && !line.kmsg && line.host.empty();
    if (!bare || trim(raw).empty() || raw.front() == '[') return false;
    if (pt.what == PendingTail::What::header) {
      std::string joined = pt.text + std::string(raw);
      if (!ends_with(joined, " name")) return false;
      parse_header(joined);
      last_line_ = std::max(last_line_, seg_line);
      return true;
    }
    // Join as the terminal cut it (no space) or, when the copy trimmed a trailing space, with
    // one; keep the reading that yields the most fields.
    int best_score = -1;
    std::string best_text;
    for (bool with_space : {false, true}) {
      std::string joined = pt.text + (with_space ? " " : "") + std::string(raw);
      int score = -1;
      if (pt.what == PendingTail::What::kill) {
        auto k = parse_kill_line(joined);
        if (k && victim_ && k->pid == victim_->pid)
          score = !!k->uid + !!k->total_vm + !!k->anon_rss + !!k->file_rss + !!k->shmem_rss + !!k->pgtables +
                  !!k->oom_score_adj;
      } else {
        auto sm = parse_oom_summary(joined);
        if (sm && sm->pid && sm->uid) score = 1;
      }
      if (score > best_score) {
        best_score = score;
        best_text = joined;
      }
    }
    if (best_score < 0) return false;
    if (pt.what == PendingTail::What::kill) {
      victim_ = parse_kill_line(best_text);
      kill_message_ = best_text;
    } else {
      summary_ = parse_oom_summary(best_text);
      summary_message_ = best_text;
    }
    last_line_ = std::max(last_line_, seg_line);
    return true;
  }
  if (!pending_row_) return false;
  PendingRow pr = std::move(*pending_row_);
  pending_row_.reset();
  bool cand_stamped = line.ts_kind != core::TsKind::none || line.relative || line.kmsg;
  std::string_view cand = trim(raw);
  bool ok_shape = !cand.empty() && cand[0] != '[' && !opens_block(cand);
  if ((pr.stamped && !cand_stamped && !cand.empty()) || (!pr.stamped && ok_shape)) {
    for (bool with_space : {false, true}) {
      std::string joined = pr.text;
      if (with_space) joined += ' ';
      joined += raw;
      core::OomTask task;
      if (parse_row(joined, task) != RowParse::ok) continue;
      // An unstamped console capture: a name alone must look like a comm (<= 15 bytes).
      core::OomTask head;
      bool had_numbers = parse_row(pr.text + " x", head) == RowParse::ok;
      if (!pr.stamped && had_numbers && cand.size() > 15) break;
      keep_task(std::move(task));
      last_line_ = std::max(last_line_, seg_line);
      return true;
    }
  }
  // Not a continuation: keep what the row had (name unknown) when its numbers are complete.
  core::OomTask task;
  if (parse_row(pr.text + " ?", task) == RowParse::ok) {
    task.name.clear();
    keep_task(std::move(task));
  }
  return false;
}

void OomBlock::infer_page_size() {
  if (!victim_) return;
  const core::OomTask* row = nullptr;
  for (const auto& t : report_.tasks)
    if (t.pid == victim_->pid) row = &t;
  if (row == nullptr) return;
  double ratio = 0;
  if (row->rss_anon_pages && *row->rss_anon_pages >= 8 && victim_->anon_rss) {
    ratio = static_cast<double>(*victim_->anon_rss) / static_cast<double>(*row->rss_anon_pages);
  } else if (row->rss_pages && *row->rss_pages >= 8 && victim_->anon_rss) {
    double sum = static_cast<double>(*victim_->anon_rss + victim_->file_rss.value_or(0) +
                                     victim_->shmem_rss.value_or(0));
    ratio = sum / static_cast<double>(*row->rss_pages);
  }
  if (ratio <= 0) return;
  for (std::int64_t size : {4096, 8192, 16384, 65536}) {
    if (std::fabs(ratio / static_cast<double>(size) - 1.0) < 0.3) {
      report_.page_size = size;
      page_size_inferred_ = true;
      return;
    }
  }
}

core::Event OomBlock::base_event(ParseContext& ctx) const {
  core::Event ev = ctx.make_event(first_line_);
  ev.line_end = ctx.absolute_line_end(last_line_);
  const Stamp& st = has_kill_stamp_ && kill_stamp_.kind != core::TsKind::none ? kill_stamp_ : first_stamp_;
  ev.ts = st.ts;
  ev.ts_raw = st.ts_raw;
  ev.ts_kind = st.kind;
  ev.ts_value = st.ts_value;
  if (!st.host.empty()) ev.host = st.host;
  else if (!first_stamp_.host.empty()) ev.host = first_stamp_.host;
  if (st.boot_ts) ev.set_number("boot_ts", *st.boot_ts);
  ev.severity = core::Severity::error;
  return ev;
}

void OomBlock::finish(ParseContext& ctx) {
  if (first_line_ == 0) return;
  if (pending_row_) {
    core::OomTask task;
    if (parse_row(pending_row_->text + " ?", task) == RowParse::ok) {
      task.name.clear();
      report_.tasks.push_back(std::move(task));
    }
    pending_row_.reset();
  }
  if (report_content_) emit_report(ctx);
  else emit_kill_only(ctx);
}

void OomBlock::emit_kill_only(ParseContext& ctx) {
  core::Event ev = base_event(ctx);
  ev.kind = std::string(core::kind::kOomKill);
  ev.rule = "kernel_oom_kill";
  std::int64_t pid = victim_ ? victim_->pid : selected_pid_.value_or(exiting_pid_.value_or(0));
  std::string comm = victim_ ? victim_->comm : !selected_comm_.empty() ? selected_comm_ : exiting_comm_;
  if (pid == 0 && comm.empty()) return;
  ev.set("victim_from", victim_ ? "kill_line" : selected_pid_ ? "selected" : "exiting");
  // The selected process when the kernel killed another (its child): who the kernel chose.
  if (victim_ && selected_pid_ && *selected_pid_ != victim_->pid) {
    ev.set_int("selected_pid", *selected_pid_);
    ev.set("selected_comm", selected_comm_);
    if (selected_score_) ev.set_int("selected_score", *selected_score_);
  }
  ev.pid = pid;
  ev.comm = comm;
  ev.message = !kill_message_.empty() ? kill_message_ : "kernel OOM kill";
  if (!kill_message_.empty() && kill_line_) ev.set_int("message_line", ctx.absolute_line(kill_line_));
  ev.set_int("victim_pid", pid);
  ev.set("victim_comm", comm);
  std::string reason = report_.reason;
  if (!reason.empty()) {
    ev.set("reason", reason);
    ev.set_int("memcg", reason == kMemcgReason ? 1 : 0);
  }
  if (victim_) {
    if (victim_->uid) ev.set_int("victim_uid", *victim_->uid);
    if (victim_->total_vm) ev.set_int("victim_total_vm_bytes", *victim_->total_vm);
    if (victim_->anon_rss) ev.set_int("victim_anon_rss_bytes", *victim_->anon_rss);
    if (victim_->file_rss) ev.set_int("victim_file_rss_bytes", *victim_->file_rss);
    if (victim_->shmem_rss) ev.set_int("victim_shmem_rss_bytes", *victim_->shmem_rss);
    if (victim_->oom_score_adj) ev.set_int("victim_oom_score_adj", *victim_->oom_score_adj);
  } else {
    ev.set_int("no_kill_line", 1);
  }
  if (oom_group_) ev.set("oom_group", report_.oom_memcg);
  if (!report_.other_killed_pids.empty()) ev.set("other_killed_pids", join_pids(report_.other_killed_pids));
  ev.set_int("reaped", reaped_ ? 1 : 0);
  set_parts(ev);
  ctx.sink->add_event(ev);
  core::ProcessSighting ps;
  ps.host = ev.host;
  ps.pid = pid;
  ps.name = comm;
  ps.ts = ev.ts;
  ps.evidence = "kernel OOM kill line";
  ctx.sink->add_process(ps);
}

void OomBlock::keep_task(core::OomTask&& task) {
  auto& tasks = report_.tasks;
  if (tasks.size() < kMaxTasks) {
    tasks.push_back(std::move(task));
    return;
  }
  // A min-heap by resident set over the kept rows: a bigger row replaces the smallest.
  auto bigger = [](const core::OomTask& a, const core::OomTask& b) {
    return a.rss_pages.value_or(0) > b.rss_pages.value_or(0);
  };
  if (dropped_tasks_++ == 0) std::make_heap(tasks.begin(), tasks.end(), bigger);
  if (task.rss_pages.value_or(0) <= tasks.front().rss_pages.value_or(0)) return;
  std::pop_heap(tasks.begin(), tasks.end(), bigger);
  tasks.back() = std::move(task);
  std::push_heap(tasks.begin(), tasks.end(), bigger);
}

bool OomBlock::summary_expected() const {
  if (victim_ && victim_->pgtables) return true;
  std::int64_t major = 0;
  for (char c : kernel_version_) {
    if (c < '0' || c > '9' || major > 99) break;
    major = major * 10 + (c - '0');
  }
  return major >= 5;
}

void OomBlock::set_parts(core::Event& ev) const {
  namespace part = core::oom_part;
  std::string seen, missing;
  auto add = [](std::string& list, std::string_view id) {
    if (!list.empty()) list += ',';
    list += id;
  };
  for (std::string_view id : part::kAll) {
    bool has = false, expected = true;
    if (id == part::kInvoker) has = has_invoked_;
    else if (id == part::kMemInfo) has = has_mem_info_ || has_memcg_block_;
    else if (id == part::kTaskTable) has = !cols_.empty() || !report_.tasks.empty();
    else if (id == part::kSummary) has = summary_.has_value(), expected = summary_expected();
    else if (id == part::kKillLine) has = victim_.has_value(), expected = !no_killable_ && !exiting_pid_;
    if (has) add(seen, id);
    else if (expected) add(missing, id);
  }
  if (!seen.empty()) ev.set("parts", seen);
  if (!missing.empty()) ev.set("parts_missing", missing);
}

void OomBlock::emit_report(ParseContext& ctx) {
  core::Event ev = base_event(ctx);
  ev.kind = std::string(core::kind::kKernelOom);
  ev.rule = "kernel_oom_report";
  core::OomReport& r = report_;

  // Victim: the kill line; else the oom-kill: summary names it; else the process the kernel
  // selected ("Kill process N … or sacrifice child", its kill line cut), else the one the reaper
  // reaped; else unknown. `victim_from` says which, so a diagnosis can weigh it.
  std::string victim_from;
  if (victim_) {
    victim_from = "kill_line";
    r.victim_pid = victim_->pid;
    r.victim_comm = victim_->comm;
    r.victim_uid = victim_->uid;
    r.victim_total_vm = victim_->total_vm;
    r.victim_anon_rss = victim_->anon_rss;
    r.victim_file_rss = victim_->file_rss;
    r.victim_shmem_rss = victim_->shmem_rss;
    r.victim_oom_score_adj = victim_->oom_score_adj;
  } else if (summary_ && summary_->pid) {
    victim_from = "summary";
    r.victim_pid = summary_->pid;
    r.victim_comm = summary_->task;
    r.victim_uid = summary_->uid;
  } else if (selected_pid_) {
    victim_from = "selected";
    r.victim_pid = selected_pid_;
    r.victim_comm = selected_comm_;
  } else if (reaped_pid_) {
    victim_from = "reaper";
    r.victim_pid = reaped_pid_;
    r.victim_comm = reaped_comm_;
  }
  if (summary_) {
    r.constraint = summary_->constraint;
    r.oom_memcg = summary_->oom_memcg;
    r.task_memcg = summary_->task_memcg;
    if (r.cpuset.empty()) r.cpuset = summary_->cpuset;
    if (!r.victim_uid) r.victim_uid = summary_->uid;
  }
  if (r.task_memcg.empty()) r.task_memcg = task_in_task_memcg_;
  if (r.oom_memcg.empty()) r.oom_memcg = task_in_oom_memcg_;

  // memcg (§1.11): the constraint decides when present; else the reason or a memcg block.
  bool inferred = false;
  if (!r.constraint.empty()) {
    r.memcg = r.constraint == "CONSTRAINT_MEMCG";
  } else {
    r.memcg = r.reason == kMemcgReason || (has_memcg_block_ && !has_mem_info_) || memcg_frame_;
    inferred = true;
    if (r.memcg) r.constraint = "CONSTRAINT_MEMCG";
    else if (has_mem_info_ || starts_with(r.reason, "Out of memory")) r.constraint = "CONSTRAINT_NONE";
    else inferred = false;
  }
  if (!r.memcg && !summary_) r.oom_memcg.clear();  // a global kill names no limiting cgroup
  infer_page_size();

  const core::OomTask* hog = nullptr;
  for (const auto& t : r.tasks)
    if (t.rss_pages && (hog == nullptr || *t.rss_pages > *hog->rss_pages)) hog = &t;

  ev.message = !kill_message_.empty()      ? kill_message_
               : !summary_message_.empty() ? summary_message_
               : !invoked_message_.empty() ? invoked_message_
                                           : "kernel OOM report (no kill line)";
  // The line the message is (the block starts at its `invoked oom-killer` line): evidence cites it.
  const std::int64_t at = !kill_message_.empty() ? kill_line_ : !summary_message_.empty() ? summary_line_ : invoked_line_;
  if (at > 0) ev.set_int("message_line", ctx.absolute_line(at));
  if (r.victim_pid) ev.pid = r.victim_pid;
  ev.comm = r.victim_comm;

  if (r.victim_pid) ev.set_int("victim_pid", *r.victim_pid);
  if (!r.victim_comm.empty()) ev.set("victim_comm", r.victim_comm);
  if (r.victim_uid) ev.set_int("victim_uid", *r.victim_uid);
  if (r.victim_total_vm) ev.set_int("victim_total_vm_bytes", *r.victim_total_vm);
  if (r.victim_anon_rss) ev.set_int("victim_anon_rss_bytes", *r.victim_anon_rss);
  if (r.victim_file_rss) ev.set_int("victim_file_rss_bytes", *r.victim_file_rss);
  if (r.victim_shmem_rss) ev.set_int("victim_shmem_rss_bytes", *r.victim_shmem_rss);
  if (r.victim_anon_rss)
    ev.set_int("victim_rss_bytes", *r.victim_anon_rss + r.victim_file_rss.value_or(0) + r.victim_shmem_rss.value_or(0));
  if (victim_ && victim_->pgtables) ev.set_int("victim_pgtables_bytes", *victim_->pgtables);
  if (r.victim_oom_score_adj) ev.set_int("victim_oom_score_adj", *r.victim_oom_score_adj);
  if (!victim_) ev.set_int("no_kill_line", 1);
  if (!victim_from.empty()) ev.set("victim_from", victim_from);
  if (memcg_frame_) ev.set_int("memcg_call_trace", 1);
  if (!r.trigger_comm.empty()) ev.set("trigger_comm", r.trigger_comm);
  if (r.trigger_pid) ev.set_int("trigger_pid", *r.trigger_pid);
  if (!r.gfp_mask.empty()) ev.set("gfp_mask", r.gfp_mask);
  if (r.order) {
    ev.set_int("order", *r.order);
    if (*r.order == -1) ev.set_int("manual_trigger", 1);  // sysrq-f / earlyoom kernel mode
  }
  if (!r.constraint.empty()) ev.set("constraint", r.constraint);
  if (inferred) ev.set_int("constraint_inferred", 1);
  ev.set_int("memcg", r.memcg ? 1 : 0);
  if (!r.reason.empty()) ev.set("reason", r.reason);
  if (!r.task_memcg.empty()) ev.set("task_memcg", r.task_memcg);
  if (!r.oom_memcg.empty()) ev.set("oom_memcg", r.oom_memcg);
  if (!r.cpuset.empty()) ev.set("cpuset", r.cpuset);
  CgroupIds ids = cgroup_ids(r.task_memcg);
  if (ids.pod_uid.empty() && ids.container_id.empty()) ids = cgroup_ids(r.oom_memcg);
  if (!ids.pod_uid.empty()) ev.set("pod_uid", ids.pod_uid);
  if (!ids.container_id.empty()) ev.set("container_id", ids.container_id);
  if (r.memcg_limit) ev.set_int("memcg_limit_bytes", *r.memcg_limit);
  if (r.memcg_usage) ev.set_int("memcg_usage_bytes", *r.memcg_usage);
  if (r.memcg_failcnt) ev.set_int("memcg_failcnt", *r.memcg_failcnt);
  if (memsw_usage_) ev.set_int("memsw_usage_bytes", *memsw_usage_);
  if (memsw_limit_) ev.set_int("memsw_limit_bytes", *memsw_limit_);
  if (kmem_usage_) ev.set_int("kmem_usage_bytes", *kmem_usage_);
  if (swap_usage_) ev.set_int("memcg_swap_usage_bytes", *swap_usage_);
  if (swap_limit_) ev.set_int("memcg_swap_limit_bytes", *swap_limit_);
  if (r.swap_total_kb)
    if (auto b = core::scale_bytes(*r.swap_total_kb, 1024)) ev.set_int("swap_total_bytes", *b);
  if (r.swap_free_kb)
    if (auto b = core::scale_bytes(*r.swap_free_kb, 1024)) ev.set_int("swap_free_bytes", *b);
  if (pages_ram_)
    if (auto b = core::scale_bytes(*pages_ram_, r.page_size)) ev.set_int("ram_bytes", *b);
  if (pages_reserved_)
    if (auto b = core::scale_bytes(*pages_reserved_, r.page_size)) ev.set_int("ram_reserved_bytes", *b);
  if (swap_cache_pages_)
    if (auto b = core::scale_bytes(*swap_cache_pages_, r.page_size)) ev.set_int("swap_cache_bytes", *b);
  mem_info_.emit(ev, r.page_size);
  if (!kernel_version_.empty()) ev.set("kernel_version", kernel_version_);
  if (selected_score_ && selected_pid_ && (!r.victim_pid || *selected_pid_ == *r.victim_pid))
    ev.set_int("victim_score", *selected_score_);
  ev.set_int("page_size", r.page_size);
  if (page_size_inferred_) ev.set_int("page_size_inferred", 1);
  ev.set_int("task_count", static_cast<std::int64_t>(r.tasks.size()));
  if (hog != nullptr) {
    ev.set_int("hog_pid", hog->pid);
    ev.set("hog_comm", hog->name);
    if (auto b = core::scale_bytes(*hog->rss_pages, r.page_size)) ev.set_int("hog_rss_bytes", *b);
    if (hog->oom_score_adj) ev.set_int("hog_oom_score_adj", *hog->oom_score_adj);
  }
  if (selected_pid_ && (!r.victim_pid || *selected_pid_ != *r.victim_pid)) {
    ev.set_int("selected_pid", *selected_pid_);
    ev.set("selected_comm", selected_comm_);
    if (selected_score_) ev.set_int("selected_score", *selected_score_);
  }
  if (oom_group_) ev.set("oom_group", r.oom_memcg);
  if (!r.other_killed_pids.empty()) ev.set("other_killed_pids", join_pids(r.other_killed_pids));
  ev.set_int("reaped", reaped_ ? 1 : 0);
  if (no_killable_) ev.set_int("no_killable_process", 1);
  set_parts(ev);

  std::int64_t id = ctx.sink->add_event(ev);
  r.event_id = id;
  r.host = ev.host;
  ctx.sink->add_oom_report(r);

  auto sight = [&](std::int64_t pid, const std::string& name, const char* evidence, const std::string& container) {
    core::ProcessSighting ps;
    ps.host = ev.host;
    ps.pid = pid;
    ps.name = name;
    ps.container = container;
    ps.ts = ev.ts;
    ps.evidence = evidence;
    ctx.sink->add_process(ps);
  };
  if (r.victim_pid) sight(*r.victim_pid, r.victim_comm, "kernel OOM kill line", ids.container_id);
  if (r.trigger_pid) sight(*r.trigger_pid, r.trigger_comm, "kernel OOM invoker", "");
  for (const auto& t : r.tasks) sight(t.pid, t.name, "kernel OOM task table", "");

  if (dropped_tasks_ > 0)
    ctx.note("kernel_oom_tasks_dropped", first_line_,
             "kernel OOM task table has " + std::to_string(report_.tasks.size() + static_cast<std::size_t>(dropped_tasks_)) +
                 " rows; kept the " + std::to_string(report_.tasks.size()) + " with the largest resident sets");
  if (!victim_) {
    std::string what = no_killable_ ? "the kernel found no killable process"
                       : exiting_pid_ ? "the victim was already exiting"
                                      : "the report ends before its kill line (cut or truncated)";
    ctx.note("kernel_oom_no_kill_line", first_line_, "kernel OOM report without a kill line: " + what);
  }
}

}  // namespace culprit::ingest::kernel
