// Redaction: find identifying values (structured host fields; users, IPs, container ids and
// UUIDs by hand-written scanners, no regex engine needed), give each a placeholder, and
// replace them everywhere in one pass per string. Over-redaction is preferred to a leak: a
// host name that is also an ordinary word is still replaced wherever it stands as a word.
#include "culprit/report/redact.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

#include "culprit/text/lines.hpp"

namespace culprit::report {
namespace {

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }
using text::is_digit;
bool hex(char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }
bool lower_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f'); }

constexpr const char* kPrefix[] = {"host", "ip", "user", "container", "pod", "uuid"};

/// Users that identify nobody (image defaults, system accounts).
bool system_user(std::string_view u) {
  static constexpr std::string_view kUsers[] = {
      "root", "user", "admin", "ubuntu", "debian", "nobody", "daemon", "www-data", "ec2-user", "centos",
      "git", "docker", "runner", "jovyan", "vscode", "node", "ray", "shared", "Shared", "Public", "public",
      "home", "user-1"};
  return std::find(std::begin(kUsers), std::end(kUsers), u) != std::end(kUsers);
}

bool ignored_ip(std::string_view ip) {
  return ip == "0.0.0.0" || ip.rfind("127.", 0) == 0 || ip == "255.255.255.255";
}

/// An IPv4 address starting at `i` (4 octets <= 255, not part of a longer dotted number).
std::size_t ipv4_at(std::string_view s, std::size_t i) {
  if (i > 0 && (alnum(s[i - 1]) || s[i - 1] == '.')) return 0;
  std::size_t j = i;
  for (int octet = 0; octet < 4; ++octet) {
    if (octet > 0) {
      if (j >= s.size() || s[j] != '.') return 0;
      ++j;
    }
    std::size_t k = j;
    int value = 0;
    while (k < s.size() && is_digit(s[k]) && k - j < 4) value = value * 10 + (s[k++] - '0');
    if (k == j || k - j > 3 || value > 255) return 0;
    j = k;
  }
  if (j < s.size() && (alnum(s[j]) || (s[j] == '.' && j + 1 < s.size() && is_digit(s[j + 1])))) return 0;
  return j - i;
}

/// An IPv6 address starting at `i`: hex groups of <= 4 with `::`, or 8 full groups. Times
/// (`00:47:13`) have neither, so they never match.
std::size_t ipv6_at(std::string_view s, std::size_t i) {
  if (i > 0 && alnum(s[i - 1])) return 0;  // `eth0:fe80::1` starts after the colon
  std::size_t j = i;
  while (j < s.size() && (hex(s[j]) || s[j] == ':')) ++j;
  if (j < s.size() && (alnum(s[j]) || s[j] == '.')) return 0;
  const std::string_view tok = s.substr(i, j - i);
  const auto colons = std::count(tok.begin(), tok.end(), ':');
  if (colons < 2 || colons > 7) return 0;
  int groups = 0;
  std::size_t run = 0;
  for (char c : tok) {
    if (c == ':') {
      if (run > 0) ++groups;
      run = 0;
    } else if (++run > 4) {
      return 0;
    }
  }
  if (run > 0) ++groups;
  const bool compressed = tok.find("::") != std::string_view::npos;
  if (tok.find(":::") != std::string_view::npos) return 0;
  if ((compressed && groups >= 2) || (!compressed && colons == 7 && groups == 8)) return tok.size();
  return 0;
}

/// A run of lowercase hex of exactly 12 or 64 characters with a digit and a letter: a Docker
/// container id (short or full).
std::size_t container_at(std::string_view s, std::size_t i) {
  if (i > 0 && alnum(s[i - 1])) return 0;
  std::size_t j = i;
  bool letters = false, digits = false;
  while (j < s.size() && lower_hex(s[j])) {
    (is_digit(s[j]) ? digits : letters) = true;
    ++j;
  }
  if (j < s.size() && alnum(s[j])) return 0;
  const std::size_t n = j - i;
  return (n == 12 || n == 64) && letters && digits ? n : 0;
}

/// A UUID 8-4-4-4-12 (separators `-`, or `_` as systemd cgroup names write pod uids). It may
/// follow `pod` directly (`kubepods-burstable-pod3f…`).
std::size_t uuid_at(std::string_view s, std::size_t i) {
  if (i > 0 && alnum(s[i - 1]) && !(i >= 3 && s.substr(i - 3, 3) == "pod")) return 0;
  static constexpr int kGroups[] = {8, 4, 4, 4, 12};
  std::size_t j = i;
  char sep = 0;
  for (int g = 0; g < 5; ++g) {
    if (g > 0) {
      if (j >= s.size() || (s[j] != '-' && s[j] != '_') || (sep && s[j] != sep)) return 0;
      sep = s[j++];
    }
    for (int k = 0; k < kGroups[g]; ++k, ++j)
      if (j >= s.size() || !hex(s[j])) return 0;
  }
  if (j < s.size() && alnum(s[j])) return 0;
  return j - i;
}

using text::is_host_char;  // user names are redacted by the same bytes

/// Folders whose next component is a user name. `/scratch/` and `/users/` also take a project's
/// name now and then: over-redaction is preferred to a leak.
constexpr std::string_view kUserFolders[] = {"/home/",          "/Users/",           "\\Users\\",
                                             "/scratch/",       "/data/users/",      "/users/",
                                             "/lustre/scratch/", "/lustre/home/",    "/gpfs/scratch/",
                                             "/gpfs/home/",     "/work/users/"};

/// Walks every string of a verdict (const or not), calling `f(string&)`. Ids that are
/// culprit's own vocabulary (verdict, role, kind, rule, format, …) are not visited.
template <class V, class F>
void visit_strings(V& v, F&& f) {
  auto proc = [&](auto& p) {
    if (!p) return;
    f(p->host), f(p->name), f(p->why), f(p->container);
  };
  auto evidence = [&](auto& list) {
    for (auto& e : list) f(e.source), f(e.text), f(e.host);
  };
  auto finding = [&](auto& x) {
    f(x.title), f(x.host), f(x.summary), f(x.advice);
    proc(x.culprit);
    proc(x.victim);
    evidence(x.evidence);
  };
  f(v.summary);
  proc(v.culprit);
  proc(v.victim);
  if (v.budget) {
    f(v.budget->host);
    for (auto& e : v.budget->entries) f(e.label);
    for (auto& a : v.budget->arithmetic) f(a);
  }
  if (v.root) finding(*v.root);
  for (auto& x : v.echoes) finding(x);
  for (auto& x : v.findings) finding(x);
  evidence(v.evidence);
  for (auto& s : v.advice) f(s);
  for (auto& s : v.ruled_out) f(s);
  for (auto& s : v.sources) f(s.name), f(s.host), f(s.clock_note);
  for (auto& s : v.skipped) f(s);
  for (auto& e : v.data.timeline) f(e.ts_raw), f(e.host), f(e.comm), f(e.summary), f(e.source);
  for (auto& h : v.data.hosts) f(h.host), f(h.method);
  for (auto& g : v.data.gpus) {
    f(g.host), f(g.model);
    for (auto& s : g.samples) {
      f(s.source);
      for (auto& p : s.processes) f(p.name);
    }
  }
  for (auto& o : v.data.ooms) {
    f(o.host), f(o.trigger_comm);
    for (auto& t : o.tasks) f(t.name);
  }
  if (v.data.oom_parts) f(v.data.oom_parts->host);
  if (v.data.allocator) {
    f(v.data.allocator->host), f(v.data.allocator->source);
    for (auto& s : v.data.allocator->sites) f(s.file), f(s.function);
  }
}

/// The host fields of a verdict, in a stable order.
template <class F>
void visit_hosts(const diagnose::Verdict& v, F&& f) {
  auto proc = [&](const auto& p) {
    if (p) f(p->host);
  };
  auto finding = [&](const diagnose::Finding& x) {
    f(x.host);
    proc(x.culprit);
    proc(x.victim);
    for (const auto& e : x.evidence) f(e.host);
  };
  for (const auto& h : v.data.hosts) f(h.host);
  for (const auto& s : v.sources) f(s.host);
  proc(v.culprit);
  proc(v.victim);
  if (v.budget) f(v.budget->host);
  if (v.root) finding(*v.root);
  for (const auto& x : v.echoes) finding(x);
  for (const auto& x : v.findings) finding(x);
  for (const auto& e : v.evidence) f(e.host);
  for (const auto& e : v.data.timeline) f(e.host);
  for (const auto& g : v.data.gpus) f(g.host);
  for (const auto& o : v.data.ooms) f(o.host);
  if (v.data.oom_parts) f(v.data.oom_parts->host);
  if (v.data.allocator) f(v.data.allocator->host);
}

}  // namespace

void Redactor::add(std::string_view value, RedactKind kind) {
  if (value.size() < 2 || value == "localhost" || value == "(no host)") return;
  if (kind == RedactKind::user && system_user(value)) return;
  if (kind == RedactKind::ip && ignored_ip(value)) return;
  for (const auto& e : entries_)
    if (e.value == value) return;
  const int k = static_cast<int>(kind);
  Entry e;
  e.value = std::string(value);
  e.placeholder = fmt::format("{}-{}", kPrefix[k], ++counts_[k]);
  // Long ids are unique enough to match anywhere (a pod uid follows `pod` in cgroup names).
  e.whole_word = kind == RedactKind::host || kind == RedactKind::user || kind == RedactKind::ip;
  entries_.push_back(e);
  mapping_.emplace_back(e.value, e.placeholder);
  auto& bucket = by_first_byte_[static_cast<unsigned char>(value[0])];
  bucket.push_back(entries_.size() - 1);
  std::stable_sort(bucket.begin(), bucket.end(),
                   [&](std::size_t a, std::size_t b) { return entries_[a].value.size() > entries_[b].value.size(); });
}

void Redactor::collect_text(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    std::size_t n = 0;
    if ((n = uuid_at(s, i))) {
      const bool gpu = i >= 4 && (s.substr(i - 4, 4) == "GPU-" || s.substr(i - 4, 4) == "MIG-");
      add(s.substr(i, n), gpu ? RedactKind::uuid : RedactKind::pod);
    } else if ((n = container_at(s, i))) {
      add(s.substr(i, n), RedactKind::container);
    } else if ((n = ipv4_at(s, i))) {
      add(s.substr(i, n), RedactKind::ip);
    } else if ((n = ipv6_at(s, i))) {
      add(s.substr(i, n), RedactKind::ip);
    }
    if (n) {
      i += n;
      continue;
    }
    // Folders named after their user: homes (/home/NAME, /Users/NAME, C:\Users\NAME) and the
    // per-user scratch and data trees of clusters (/scratch/NAME, /lustre/…/NAME, /data/users/NAME).
    for (std::string_view home : kUserFolders) {
      if (s.compare(i, home.size(), home) != 0) continue;
      std::size_t j = i + home.size();
      while (j < s.size() && is_host_char(s[j])) ++j;
      add(s.substr(i + home.size(), j - i - home.size()), RedactKind::user);
    }
    // The user names culprit's own sentences carry from ps's USER column (diagnose/roles.cpp:
    // "runs as user NAME, the job's processes as NAME, NAME (ps)").
    for (std::string_view intro : {std::string_view("as user "), std::string_view("processes as ")}) {
      if (s.compare(i, intro.size(), intro) != 0 || (i > 0 && alnum(s[i - 1]))) continue;
      const bool list = intro == "processes as ";  // `NAME, NAME (ps)`; `as user NAME, the …` is one
      for (std::size_t j = i + intro.size();;) {
        std::size_t k = j;
        while (k < s.size() && is_host_char(s[k])) ++k;
        while (k > j && (s[k - 1] == '.' || s[k - 1] == '-')) --k;  // sentence punctuation
        if (k == j) break;
        add(s.substr(j, k - j), RedactKind::user);
        if (!list || s.compare(k, 2, ", ") != 0) break;
        j = k + 2;
      }
    }
    // user@host, as shell prompts and ssh write it.
    if (s[i] == '@' && i > 0 && i + 1 < s.size()) {
      std::size_t a = i;
      while (a > 0 && is_host_char(s[a - 1])) --a;
      std::size_t b = i + 1;
      while (b < s.size() && is_host_char(s[b])) ++b;
      while (b > i + 1 && (s[b - 1] == '.' || s[b - 1] == '-')) --b;  // sentence punctuation
      const std::string_view user = s.substr(a, i - a), host = s.substr(i + 1, b - i - 1);
      const bool user_ok = !user.empty() && (std::isalpha(static_cast<unsigned char>(user[0])) || user[0] == '_');
      const bool host_ip = !host.empty() && ipv4_at(host, 0) == host.size();
      const bool host_ok = !host.empty() && std::isalpha(static_cast<unsigned char>(host[0]));
      if (user_ok && (host_ok || host_ip)) add(user, RedactKind::user);
      if (user_ok && host_ok) add(host, RedactKind::host);
    }
    ++i;
  }
}

void Redactor::collect(const diagnose::Verdict& v) {
  visit_hosts(v, [&](const std::string& h) { add(h, RedactKind::host); });
  visit_strings(v, [&](const std::string& s) { collect_text(s); });
}

std::string Redactor::apply(std::string_view s) const {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const Entry* hit = nullptr;
    for (std::size_t idx : by_first_byte_[static_cast<unsigned char>(s[i])]) {
      const Entry& e = entries_[idx];
      if (s.compare(i, e.value.size(), e.value) != 0) continue;
      if (e.whole_word) {
        const std::size_t end = i + e.value.size();
        if (i > 0 && alnum(s[i - 1]) && alnum(e.value.front())) continue;
        if (end < s.size() && alnum(s[end]) && alnum(e.value.back())) continue;
      }
      hit = &e;
      break;
    }
    if (hit) {
      out += hit->placeholder;
      i += hit->value.size();
    } else {
      out += s[i++];
    }
  }
  return out;
}

diagnose::Verdict Redactor::apply(const diagnose::Verdict& verdict) const {
  diagnose::Verdict v = verdict;
  visit_strings(v, [&](std::string& s) { s = apply(s); });
  return v;
}

diagnose::Verdict redact(const diagnose::Verdict& verdict) {
  Redactor r;
  r.collect(verdict);
  return r.apply(verdict);
}

}  // namespace culprit::report
