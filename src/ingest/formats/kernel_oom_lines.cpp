// Single-line parsers of the kernel OOM grammar (formats.md §1.1–1.9): invoked line, memcg
// counters, kill-select / kill / summary lines, cgroup path ids. Each takes the message with
// transport prefixes peeled and never throws; `std::nullopt` means "not this line".
//
// Field table (what each parser reads; sizes leave here in bytes):
//   cpu       pid | uid (6.11+) | comm | kernel version
//   invoked   comm | gfp_mask (incl. `(FLAGS)`) | nodemask | order | oom_score_adj (oom_adj,
//             oomkilladj of 2.6 accepted as oom_score_adj fallback)
//   counter   name | usage kB | limit kB | failcnt
//   select    reason | pid | comm | score | sharing
//   kill      reason | pid | comm | UID | total-vm/vsz | anon-rss | file-rss | shmem-rss |
//             pgtables | oom_score_adj
//   summary   constraint | nodemask | cpuset | mems_allowed | oom_memcg / global_oom |
//             task_memcg | task | pid | uid
#include <algorithm>
#include <cctype>
#include <charconv>
#include <string>

#include "culprit/core/size.hpp"
#include "culprit/text/literal_set.hpp"
#include "kernel_oom_report.hpp"
#include "kernel_text.hpp"

namespace culprit::ingest::kernel {
namespace {

std::optional<std::int64_t> kb_to_bytes(std::optional<std::int64_t> kb) {
  if (!kb) return std::nullopt;
  return core::scale_bytes(*kb, 1024);  // nullopt past 2^63 bytes (found by fuzz_ingest)
}

/// `N (comm)` where comm ends at the last `)` before `end_marker` (or the last `)` at all).
/// Returns pid, comm and the position after `)`.
bool read_pid_comm(std::string_view s, std::int64_t& pid, std::string& comm, std::size_t& after,
                   std::string_view end_marker) {
  std::size_t i = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  if (i == 0) return false;
  auto v = parse_number(s.substr(0, i));
  if (!v) return false;
  pid = *v;
  std::size_t open = s.find('(', i);
  if (open == std::string_view::npos || open - i > 16) return false;
  std::size_t close = std::string_view::npos;
  if (!end_marker.empty()) {
    close = s.rfind(end_marker);
    if (close != std::string_view::npos && close < open) close = std::string_view::npos;
  }
  if (close == std::string_view::npos) close = s.rfind(')');
  if (close == std::string_view::npos || close < open) return false;
  comm = std::string(s.substr(open + 1, close - open - 1));
  after = close + 1;
  return true;
}

}  // namespace

std::optional<std::int64_t> parse_number(std::string_view text) {
  text = trim(text);
  while (!text.empty() && (text.back() == ',' || text.back() == ';')) text.remove_suffix(1);
  if (text.size() >= 2 && (text.substr(text.size() - 2) == "kB" || text.substr(text.size() - 2) == "KB"))
    text.remove_suffix(2);
  std::string digits;
  digits.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == ',' && i > 0 && i + 1 < text.size()) continue;
    if (c == '+' && i == 0) continue;
    digits.push_back(c);
  }
  std::int64_t v = 0;
  auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (digits.empty() || ec != std::errc() || p != digits.data() + digits.size()) return std::nullopt;
  return v;
}

std::optional<InvokedLine> parse_invoked(std::string_view t) {
  constexpr std::string_view kAnchor = " invoked oom-killer: ";
  std::size_t pos = t.rfind(kAnchor);
  if (pos == std::string_view::npos) return std::nullopt;
  InvokedLine out;
  out.comm = std::string(trim(t.substr(0, pos)));
  std::string_view rest = t.substr(pos + kAnchor.size());
  // Split on commas at parenthesis depth 0 (gfp flags are `(A|B)`, nodemask `(null)`).
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i <= rest.size(); ++i) {
    char c = i < rest.size() ? rest[i] : ',';
    if (c == '(') ++depth;
    if (c == ')' && depth > 0) --depth;
    if (c != ',' || depth != 0) continue;
    std::string_view kv = trim(rest.substr(start, i - start));
    start = i + 1;
    std::size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    std::string_view key = kv.substr(0, eq), val = kv.substr(eq + 1);
    if (key == "gfp_mask") {
      out.gfp_mask = std::string(val);
    } else if (key == "nodemask") {
      out.nodemask = std::string(val);
    } else if (key == "order") {
      if (auto v = parse_number(val)) out.order = static_cast<int>(*v);
    } else if (key == "oom_score_adj") {
      if (auto v = parse_number(val)) out.oom_score_adj = static_cast<int>(*v);
    } else if ((key == "oomkilladj" || key == "oom_adj") && !out.oom_score_adj) {
      if (auto v = parse_number(val)) out.oom_score_adj = static_cast<int>(*v);
    }
  }
  return out;
}

std::optional<CpuLine> parse_cpu_line(std::string_view t) {
  t = trim(t);
  if (!starts_with(t, "CPU: ")) return std::nullopt;
  std::size_t p = t.find(" PID: "), c = t.find(" Comm: ");
  if (p == std::string_view::npos || c == std::string_view::npos || c < p) return std::nullopt;
  CpuLine out;
  auto pid = parse_number(t.substr(p + 6, c - p - 6));
  if (!pid) return std::nullopt;
  out.pid = *pid;
  if (std::size_t u = t.substr(0, p).find(" UID: "); u != std::string_view::npos) out.uid = parse_number(t.substr(u + 6, p - u - 6));
  std::string_view rest = t.substr(c + 7);
  std::size_t nt = rest.find(" Not tainted"), tt = rest.find(" Tainted: ");
  std::size_t end = std::min(nt, tt);
  out.comm = std::string(trim(rest.substr(0, end)));
  if (end == std::string_view::npos) return out;
  std::string_view after = rest.substr(end == nt ? nt + 12 : tt + 10);
  // Skip taint flag words (capitals only), then the version is the next word.
  std::size_t i = 0;
  while (i < after.size()) {
    while (i < after.size() && after[i] == ' ') ++i;
    std::size_t j = i;
    while (j < after.size() && after[j] != ' ') ++j;
    std::string_view word = after.substr(i, j - i);
    if (word.empty()) break;
    if (std::isdigit(static_cast<unsigned char>(word[0]))) {
      out.kernel_version = std::string(word);
      break;
    }
    bool flags = true;
    for (char ch : word) flags = flags && (std::isupper(static_cast<unsigned char>(ch)) || ch == '-');
    if (!flags) break;
    i = j;
  }
  return out;
}

std::optional<CounterLine> parse_counter(std::string_view t) {
  t = trim(t);
  for (std::string_view name : {"memory", "memory+swap", "kmem", "swap"}) {
    if (!starts_with(t, name) || t.substr(name.size(), 8) != ": usage ") continue;
    CounterLine out;
    out.name = std::string(name);
    std::string_view rest = t.substr(name.size() + 8);
    out.usage = kb_to_bytes(parse_number(rest.substr(0, rest.find(','))));
    if (auto p = rest.find("limit "); p != std::string_view::npos) {
      std::string_view v = rest.substr(p + 6);
      out.limit = kb_to_bytes(parse_number(v.substr(0, v.find(','))));
    }
    if (auto p = rest.find("failcnt "); p != std::string_view::npos)
      out.failcnt = parse_number(rest.substr(p + 8, rest.find(',', p) == std::string_view::npos
                                                        ? std::string_view::npos
                                                        : rest.find(',', p) - p - 8));
    return out;
  }
  return std::nullopt;
}

std::optional<SelectLine> parse_kill_select(std::string_view t) {
  t = trim(t);
  std::size_t pos = std::string_view::npos;
  std::size_t anchor_len = 0;
  bool at_start = false;
  for (std::string_view a : {"Kill process ", "kill process "}) {
    const std::string_view after_colon = a[0] == 'K' ? ": Kill process " : ": kill process ";
    if (starts_with(t, a)) {
      pos = 0;
      anchor_len = a.size();
      at_start = true;
      break;
    }
    std::size_t p = t.find(after_colon);
    if (p == std::string_view::npos) continue;
    pos = p;
    anchor_len = a.size() + 2;
    break;
  }
  if (pos == std::string_view::npos) return std::nullopt;
  SelectLine out;
  if (!at_start) out.reason = std::string(t.substr(0, pos));
  std::string_view rest = t.substr(pos + anchor_len);
  bool sharing = contains(rest, ") sharing same memory");
  std::size_t after = 0;
  if (!read_pid_comm(rest, out.pid, out.comm, after, sharing ? ") sharing same memory" : ") score ")) return std::nullopt;
  out.sharing = sharing;
  if (!sharing) {
    std::string_view tail = rest.substr(after);
    if (!starts_with(tail, " score ")) return std::nullopt;
    tail.remove_prefix(7);
    out.score = parse_number(tail.substr(0, tail.find(' ')));
  }
  return out;
}

std::optional<KillLine> parse_kill_line(std::string_view t) {
  t = trim(t);
  constexpr std::string_view kAnchor = "Killed process ";
  std::size_t pos = t.find(kAnchor);
  if (pos == std::string_view::npos) return std::nullopt;
  if (pos != 0 && (pos < 2 || t.substr(pos - 2, 2) != ": ")) return std::nullopt;
  KillLine out;
  if (pos >= 2) {
    // The reason is the kernel's own prefix; a line quoted inside other text (an NPD
    // `OOMKilling` event row, `kubectl get events`) keeps only the known reason at its end.
    std::string_view reason = t.substr(0, pos - 2);
    for (std::string_view known : {"Memory cgroup out of memory", "Out of memory (oom_kill_allocating_task)",
                                   "Out of memory"}) {
      if (reason.size() > known.size() && reason.substr(reason.size() - known.size()) == known &&
          (reason[reason.size() - known.size() - 1] == ' ' || reason[reason.size() - known.size() - 1] == ':')) {
        reason = reason.substr(reason.size() - known.size());
        break;
      }
    }
    out.reason = std::string(reason);
  }
  std::string_view rest = t.substr(pos + kAnchor.size());
  // RHEL 6: `Killed process N, UID u, (comm) total-vm:…`
  std::size_t digits = 0;
  while (digits < rest.size() && rest[digits] >= '0' && rest[digits] <= '9') ++digits;
  if (digits == 0) return std::nullopt;
  if (rest.substr(digits, 6) == ", UID ") {
    out.pid = *parse_number(rest.substr(0, digits));
    std::string_view u = rest.substr(digits + 6);
    std::size_t comma = u.find(',');
    if (comma == std::string_view::npos) return std::nullopt;
    out.uid = parse_number(u.substr(0, comma));
    std::string_view c = trim(u.substr(comma + 1));
    if (c.empty() || c[0] != '(') return std::nullopt;
    std::size_t close = c.rfind(") total-vm:");
    if (close == std::string_view::npos) close = c.rfind(')');
    if (close == std::string_view::npos || close == 0) return std::nullopt;
    out.comm = std::string(c.substr(1, close - 1));
    rest = c.substr(close + 1);
  } else {
    std::size_t after = 0;
    std::string_view marker = contains(rest, ") total-vm:") ? ") total-vm:" : contains(rest, ") vsz:") ? ") vsz:" : "";
    if (!read_pid_comm(rest, out.pid, out.comm, after, marker)) return std::nullopt;
    rest = rest.substr(after);
  }
  // Tail: `total-vm:NkB, anon-rss:NkB, file-rss:NkB, shmem-rss:NkB, UID:N pgtables:NkB
  // oom_score_adj:N` in any subset; tokens split on spaces, trailing commas dropped.
  std::size_t i = 0;
  std::string_view prev;
  while (i < rest.size()) {
    while (i < rest.size() && rest[i] == ' ') ++i;
    std::size_t j = i;
    while (j < rest.size() && rest[j] != ' ') ++j;
    std::string_view tok = rest.substr(i, j - i);
    i = j;
    while (!tok.empty() && tok.back() == ',') tok.remove_suffix(1);
    std::size_t colon = tok.find(':');
    if (colon == std::string_view::npos) {
      if (prev == "UID" && !out.uid) out.uid = parse_number(tok);  // `, UID 0,` variant
      prev = tok;
      continue;
    }
    prev = {};
    std::string_view key = tok.substr(0, colon), val = tok.substr(colon + 1);
    auto num = parse_number(val);
    if (key == "total-vm" || key == "vsz") out.total_vm = kb_to_bytes(num);
    else if (key == "anon-rss") out.anon_rss = kb_to_bytes(num);
    else if (key == "file-rss") out.file_rss = kb_to_bytes(num);
    else if (key == "shmem-rss") out.shmem_rss = kb_to_bytes(num);
    else if (key == "pgtables") out.pgtables = kb_to_bytes(num);
    else if (key == "UID") out.uid = num;
    else if (key == "oom_score_adj" && num) out.oom_score_adj = static_cast<int>(*num);
  }
  return out;
}

std::optional<OomSummary> parse_oom_summary(std::string_view t) {
  t = trim(t);
  constexpr std::string_view kPrefix = "oom-kill:";
  if (!starts_with(t, kPrefix)) return std::nullopt;
  std::string_view s = t.substr(kPrefix.size());
  OomSummary out;
  // From the right: `,uid=N`, `,pid=N`, `,task=<comm>` (comm may contain commas).
  std::size_t end = s.size();
  if (std::size_t p = s.rfind(",uid="); p != std::string_view::npos) {
    out.uid = parse_number(s.substr(p + 5));
    end = p;
  }
  if (std::size_t p = s.substr(0, end).rfind(",pid="); p != std::string_view::npos) {
    out.pid = parse_number(s.substr(p + 5, end - p - 5));
    end = p;
  }
  std::size_t task_memcg = s.substr(0, end).find(",task_memcg=");
  std::size_t task = s.substr(0, end).rfind(",task=");
  if (task != std::string_view::npos && (task_memcg == std::string_view::npos || task > task_memcg)) {
    out.task = std::string(s.substr(task + 6, end - task - 6));
    end = task;
  }
  if (task_memcg != std::string_view::npos && task_memcg < end) {
    out.task_memcg = std::string(s.substr(task_memcg + 12, end - task_memcg - 12));
    end = task_memcg;
  }
  std::string_view head = s.substr(0, end);
  // Left part: constraint=…,nodemask=…,cpuset=…,mems_allowed=<list with commas>,(oom_memcg=…|global_oom)
  if (std::size_t p = head.find(",oom_memcg="); p != std::string_view::npos) {
    out.oom_memcg = std::string(head.substr(p + 11));
    head = head.substr(0, p);
  } else if (std::size_t g = head.rfind(",global_oom"); g != std::string_view::npos) {
    out.global_oom = true;
    head = head.substr(0, g);
  }
  auto take = [&](std::string_view key, std::string_view next_key) {
    std::size_t p = head.find(key);
    if (p == std::string_view::npos) return std::string();
    std::size_t v0 = p + key.size();
    std::size_t q = next_key.empty() ? std::string_view::npos : head.find(next_key, v0);
    return std::string(head.substr(v0, q == std::string_view::npos ? std::string_view::npos : q - v0));
  };
  out.constraint = take("constraint=", ",");
  out.nodemask = take(",nodemask=", ",cpuset=");
  out.cpuset = take(",cpuset=", ",mems_allowed=");
  out.mems_allowed = take(",mems_allowed=", "");
  if (out.constraint.empty() && out.task.empty() && !out.pid) return std::nullopt;
  return out;
}

CgroupIds cgroup_ids(std::string_view path) {
  CgroupIds out;
  auto is_hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
  // Walk the path's components.
  std::size_t i = 0;
  while (i < path.size()) {
    std::size_t j = path.find('/', i);
    if (j == std::string_view::npos) j = path.size();
    std::string_view comp = path.substr(i, j - i);
    i = j + 1;
    if (comp.empty()) continue;
    // Pod: `pod<uid>` (v1) or `kubepods-<qos>-pod<uid_>.slice` / `kubepods-pod<uid_>.slice`.
    std::size_t p = starts_with(comp, "pod") ? 0 : comp.find("-pod");
    if (p != std::string_view::npos && p > 0) ++p;
    if (p != std::string_view::npos && out.pod_uid.empty()) {
      if (p == 0 || starts_with(comp, "kubepods")) {
        std::string_view uid = comp.substr(p + 3);
        if (uid.size() > 6 && uid.substr(uid.size() - 6) == ".slice") uid.remove_suffix(6);
        std::string norm;
        for (char c : uid) norm.push_back(c == '_' ? '-' : static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
        bool ok = norm.size() >= 32 && norm.size() <= 36;
        for (char c : norm) ok = ok && (is_hex(c) || c == '-');
        if (ok) {
          out.pod_uid = norm;
          continue;
        }
      }
    }
    // Container: a 64-hex component, possibly `docker-`, `cri-containerd-`, `crio-`,
    // `libpod-` prefixed and `.scope` suffixed.
    std::string_view c = comp;
    if (c.size() > 6 && c.substr(c.size() - 6) == ".scope") c.remove_suffix(6);
    for (std::string_view pre : {"cri-containerd-", "docker-", "crio-", "libpod-", "containerd-"})
      if (starts_with(c, pre)) {
        c.remove_prefix(pre.size());
        break;
      }
    bool hex = c.size() >= 12 && c.size() <= 64;
    for (char ch : c) hex = hex && is_hex(ch);
    if (hex && (c.size() == 64 || comp != c)) out.container_id = std::string(c);
  }
  return out;
}

const std::vector<std::string>& block_opener_words() {
  static const std::vector<std::string> kWords =
      text::hand_written_literals({"oom", "Task", "Memory", "failcnt", "ill process", "lled process"});
  return kWords;
}

bool is_task_row(std::string_view message) {
  // `^\[\s*\d+\]\s+\d+\s+\d+\s+\d+`, by hand (RE2's \s: space, \t, \n, \f, \r).
  auto space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\f' || c == '\r'; };
  auto digit = [](char c) { return c >= '0' && c <= '9'; };
  std::size_t i = 0;
  if (message.empty() || message[i++] != '[') return false;
  while (i < message.size() && space(message[i])) ++i;
  const std::size_t pid = i;
  while (i < message.size() && digit(message[i])) ++i;
  if (i == pid || i >= message.size() || message[i++] != ']') return false;
  for (int column = 0; column < 3; ++column) {  // uid, tgid, total_vm
    const std::size_t gap = i;
    while (i < message.size() && space(message[i])) ++i;
    const std::size_t number = i;
    while (i < message.size() && digit(message[i])) ++i;
    if (number == gap || i == number) return false;  // \s+ then \d+
  }
  return true;
}

bool looks_like_task_row(std::string_view line) {
  // The row's `[` starts the line (`dmesg -t`), follows the stamp's `] ` (dmesg), the `kernel: `
  // of syslog / journal text, or the `;` of a /dev/kmsg record.
  const std::size_t head = std::min<std::size_t>(line.size(), 96);
  for (std::size_t i = line.find('['); i < head; i = line.find('[', i + 1))
    if ((i == 0 || line[i - 1] == ' ' || line[i - 1] == ';') && is_task_row(line.substr(i))) return true;
  return false;
}

bool opens_block(std::string_view message) {
  std::string_view t = trim(message);
  if (t.empty()) return false;
  // Every opener below holds one of these words: one pass rules out the common line before the
  // parsers run (this is called for every kernel line the block scan did not rule out).
  static const text::LiteralSet kOpenerWords(block_opener_words());
  if (!kOpenerWords.any(t)) return false;
  if (contains(t, " invoked oom-killer: ")) return true;
  if (starts_with(t, "Task in ") && contains(t, " killed as a result of limit of ")) return true;
  if (starts_with(t, "Memory limit reached of cgroup ")) return true;
  if (starts_with(t, "Memory cgroup stats for ")) return true;
  if (starts_with(t, "Tasks state (memory values in pages)")) return true;
  if (starts_with(t, "oom-kill:constraint=")) return true;
  if (starts_with(t, "Tasks in ") && contains(t, "memory.oom.group")) return true;
  // A memcg counter opens a report when it has the shape the kernel prints (usage and limit;
  // failcnt may be cut off by the paste): only mem_cgroup_print_oom_meminfo prints it.
  if (auto c = parse_counter(t); c && (contains(t, "failcnt") || (c->usage && c->limit))) return true;
  if (t[0] == '[' && contains(t, "pid") && contains(t, " uid ") && contains(t, "oom_score_adj")) return true;
  if (parse_kill_line(t)) return true;
  if (auto s = parse_kill_select(t); s && !s->sharing) return true;
  return false;
}

}  // namespace culprit::ingest::kernel
