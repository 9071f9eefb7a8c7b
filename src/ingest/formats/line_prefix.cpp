// Prefix peeling for application log lines (formats.md §3.4, §4.1, §4.3.1, §5.1, §5.5).
// Layers are tried repeatedly at the front of the line until none matches; transport tags
// (docker stamp, `(X pid=N)`, `[rankN]:`, srun label) may nest in any order, and a logger
// header ends the peeling except for an NCCL `host:pid:tid [dev]` tag that may follow it.
#include "ingest/formats/line_prefix.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>

#include "culprit/core/job_evidence.hpp"
#include "culprit/core/time.hpp"
#include "culprit/text/lines.hpp"

namespace culprit::ingest {

namespace {

using Sv = std::string_view;

using text::is_digit;
bool is_upper(char c) { return c >= 'A' && c <= 'Z'; }
bool is_alpha(char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); }
using text::is_host_char;

bool digits_at(Sv s, std::size_t i, std::size_t n) {
  if (i + n > s.size()) return false;
  for (std::size_t k = 0; k < n; ++k)
    if (!is_digit(s[i + k])) return false;
  return true;
}

int to_int(Sv s, std::size_t i, std::size_t n) {
  int v = 0;
  for (std::size_t k = 0; k < n; ++k) v = v * 10 + (s[i + k] - '0');
  return v;
}

// Reads 1..max digits at s[i]; advances i. nullopt when none.
std::optional<std::int64_t> read_uint(Sv s, std::size_t& i, std::size_t max_digits = 18) {
  const std::size_t start = i;
  std::int64_t v = 0;
  while (i < s.size() && is_digit(s[i]) && i - start < max_digits) v = v * 10 + (s[i++] - '0');
  if (i == start || (i < s.size() && is_digit(s[i]))) {
    i = start;
    return std::nullopt;
  }
  return v;
}

// `HH:MM:SS[.,frac]` at s[i]; returns its length (0 when absent).
std::size_t read_hms(Sv s, std::size_t i, double& sod) {
  if (!digits_at(s, i, 2) || i + 8 > s.size() || s[i + 2] != ':' || !digits_at(s, i + 3, 2) ||
      s[i + 5] != ':' || !digits_at(s, i + 6, 2))
    return 0;
  const int h = to_int(s, i, 2), m = to_int(s, i + 3, 2), sec = to_int(s, i + 6, 2);
  if (h > 23 || m > 59 || sec > 60) return 0;
  sod = h * 3600.0 + m * 60.0 + sec;
  std::size_t j = i + 8;
  if (j + 1 < s.size() && (s[j] == '.' || s[j] == ',') && is_digit(s[j + 1])) {
    ++j;
    double scale = 0.1;
    while (j < s.size() && is_digit(s[j])) {
      sod += (s[j] - '0') * scale;
      scale /= 10;
      ++j;
    }
  }
  return j - i;
}

std::optional<core::Severity> level_word(Sv w) {
  if (w == "DEBUG" || w == "TRACE") return core::Severity::debug;
  if (w == "INFO" || w == "NOTICE") return core::Severity::info;
  if (w == "WARNING" || w == "WARN") return core::Severity::warning;
  if (w == "ERROR") return core::Severity::error;
  if (w == "CRITICAL" || w == "FATAL") return core::Severity::critical;
  return std::nullopt;
}

std::optional<core::Severity> glog_letter(char c) {
  switch (c) {
    case 'D': return core::Severity::debug;
    case 'I': return core::Severity::info;
    case 'W': return core::Severity::warning;
    case 'E': return core::Severity::error;
    case 'C':
    case 'F': return core::Severity::critical;
    default: return std::nullopt;
  }
}

// Upper-case word at s[i] (letters only); its length.
std::size_t upper_word(Sv s, std::size_t i) {
  std::size_t j = i;
  while (j < s.size() && is_upper(s[j])) ++j;
  return j - i;
}

int time_rank(core::TsKind k) {
  switch (k) {
    case core::TsKind::wall: return 3;
    case core::TsKind::wall_no_year: return 2;
    case core::TsKind::time_of_day: return 1;
    default: return 0;
  }
}

void offer_time(PeeledLine& p, const PeeledTime& t) {
  if (time_rank(t.kind) > time_rank(p.time.kind)) p.time = t;
}

Sv eat_one_space(Sv s) { return (!s.empty() && s[0] == ' ') ? s.substr(1) : s; }

// `TP1`, `DP0`, `PP2`, `EP3` → sets the matching rank; other `NAME<digits>` tags are accepted
// (ATTN_CP0, MOE_DP1) without a field. Returns false when `tag` is not such a tag.
bool rank_tag(Sv tag, PeeledLine& p) {
  std::size_t i = 0;
  while (i < tag.size() && (is_upper(tag[i]) || tag[i] == '_')) ++i;
  if (i == 0 || i == tag.size()) return false;
  std::size_t j = i;
  auto n = read_uint(tag, j, 6);
  if (!n || j != tag.size()) return false;
  const Sv name = tag.substr(0, i);
  const int v = static_cast<int>(*n);
  if (name == "TP") p.tp_rank = v;
  else if (name == "DP") p.dp_rank = v;
  else if (name == "PP") p.pp_rank = v;
  else if (name == "EP") p.ep_rank = v;
  return true;
}

std::size_t file_line_bracket(Sv s, std::size_t i);

// ---- layers: each returns true and advances `rest` when it matched ---------------------------

// What may follow a date-time stamp: Python logging's `- name - LEVEL - msg` / loguru's
// `| LEVEL | where - msg`, `LEVEL msg`, TensorFlow/XLA's `: W path/file.cc:123] msg`, HF's
// ` >> msg`, or just a space (docker / CI stamps). Sets `rest` after it; true for a header.
bool stamp_tail(Sv after, PeeledLine& p, Sv& rest) {
  if (after.size() >= 3 && (after.substr(0, 3) == " - " || after.substr(0, 3) == " | ")) {
    const Sv sep = after.substr(0, 3);
    Sv r = after.substr(3);
    for (int k = 0; k < 3; ++k) {
      const std::size_t pos = r.find(sep);
      Sv seg = r.substr(0, pos);
      while (!seg.empty() && seg.back() == ' ') seg.remove_suffix(1);
      if (auto sev = level_word(seg)) {
        p.severity = sev;
        rest = pos == Sv::npos ? Sv() : r.substr(pos + 3);
        // `asctime - LEVEL - name - msg` (transformers' scripts): the logger name follows.
        if (k == 0 && p.logger.empty()) {
          const std::size_t next = rest.find(sep);
          const Sv name = rest.substr(0, next);
          if (next != Sv::npos && !name.empty() && name.size() <= 64 && name.find(' ') == Sv::npos) {
            p.logger = std::string(name);
            rest = rest.substr(next + 3);
          }
        }
        return true;
      }
      if (k == 0 && p.logger.empty()) p.logger = std::string(seg);
      if (pos == Sv::npos) break;
      r = r.substr(pos + 3);
    }
    rest = after.substr(3);
    return true;
  }
  if (after.size() > 5 && after.substr(0, 2) == ": " && glog_letter(after[2]) && after[3] == ' ') {
    if (const std::size_t end = file_line_bracket(after, 4)) {  // TensorFlow / XLA C++ logging
      p.severity = glog_letter(after[2]);
      p.logger = std::string(after.substr(4, end - 5));
      rest = eat_one_space(after.substr(end));
      return true;
    }
  }
  if (after.substr(0, 4) == " >> ") {  // transformers' `[INFO|trainer.py:2134] <stamp> >> msg`
    rest = after.substr(4);
    return true;
  }
  const std::size_t w = upper_word(after, 1);
  if (w > 0) {
    if (auto sev = level_word(after.substr(1, w))) {
      std::size_t j = 1 + w;
      if (j < after.size() && after[j] == ':') ++j;
      if (j == after.size() || after[j] == ' ') {
        p.severity = sev;
        rest = eat_one_space(after.substr(j));
        return true;
      }
    }
  }
  rest = eat_one_space(after);
  return false;
}

// Ray's logging header (ray/_private/ray_constants.py LOGGER_FORMAT, the driver's and the
// dashboard's): `%(asctime)s\t%(levelname)s %(filename)s:%(lineno)s -- %(message)s`, a tab after
// the stamp (issue 37, finding 16: `2024-05-15 10:22:31,112<TAB>ERROR worker.py:406 -- …` was
// no stamp). `after` starts at the tab; only a level word may follow it.
bool iso_tab_header(Sv after, const PeeledTime& t, PeeledLine& p, Sv& rest) {
  const std::size_t w = upper_word(after, 1);
  const auto sev = w > 0 ? level_word(after.substr(1, w)) : std::nullopt;
  if (!sev || (1 + w < after.size() && after[1 + w] != ' ')) return false;
  p.severity = sev;
  p.header = true;
  Sv r = eat_one_space(after.substr(1 + w));
  const std::size_t dash = r.find(" -- ");
  const Sv where = dash == Sv::npos ? Sv() : r.substr(0, dash);
  if (!where.empty() && where.size() <= 128 && where.find(' ') == Sv::npos && where.find(':') != Sv::npos) {
    p.logger = std::string(where);
    r = r.substr(dash + 4);
  }
  rest = r;
  offer_time(p, t);
  return true;
}

// Docker / kubectl / CI stamp, or a logging header that starts with an ISO date-time.
bool layer_iso(Sv& rest, PeeledLine& p) {
  PeeledTime t;
  const std::size_t n = read_iso_stamp(rest, t);
  if (n == 0) return false;
  const Sv after = rest.substr(n);
  if (!after.empty() && after[0] == '\t') return iso_tab_header(after, t, p, rest);
  if (!after.empty() && after[0] != ' ' && after[0] != ':') return false;
  if (!after.empty() && after[0] == ':' && after.substr(0, 2) != ": ") return false;
  if (stamp_tail(after, p, rest)) p.header = true;
  else if (!after.empty() && after[0] == ':') return false;
  offer_time(p, t);
  return true;
}

// logfmt, as Go's slog / logrus text handlers print it (Ollama, containerd, Docker's daemon):
// `time=2024-05-01T10:00:09.789Z level=ERROR source=sched.go:443 msg="…" error="…"`, also with
// `ts=` or a quoted stamp. Stamp and level are peeled; logfmt_message() rebuilds the message.
bool layer_logfmt(Sv& rest, PeeledLine& p) {
  std::size_t i = rest.substr(0, 5) == "time=" ? 5 : rest.substr(0, 3) == "ts=" ? 3 : 0;
  if (i == 0) return false;
  const bool quoted = i < rest.size() && rest[i] == '"';
  if (quoted) ++i;
  PeeledTime t;
  const std::size_t n = read_iso_stamp(rest.substr(i), t);
  if (n == 0) return false;
  i += n;
  if (quoted) {
    if (i >= rest.size() || rest[i] != '"') return false;
    ++i;
  }
  if (i < rest.size() && rest[i] != ' ') return false;
  Sv after = eat_one_space(rest.substr(i));
  if (after.substr(0, 6) == "level=") {
    const std::size_t end = std::min(after.find(' '), after.size());
    Sv word = after.substr(6, end - 6);
    if (word.size() >= 2 && word.front() == '"' && word.back() == '"') word = word.substr(1, word.size() - 2);
    std::string upper(word);
    for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (auto sev = level_word(upper)) p.severity = *sev;
    after = eat_one_space(after.substr(end));
  }
  offer_time(p, t);
  p.header = true;
  p.logfmt = true;
  rest = after;
  return true;
}

/// The message of a logfmt line's remaining keys: `msg`'s value unquoted, then the other keys as
/// written (`error="…"` holds the failure as often as `msg` does); `source`/`caller` become the
/// logger. The text as it is when the keys do not parse.
std::string logfmt_message(Sv rest, std::string& logger) {
  std::string msg, others;
  std::size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && rest[i] == ' ') ++i;
    const std::size_t key_start = i;
    while (i < rest.size() && rest[i] != '=' && rest[i] != ' ') ++i;
    if (i >= rest.size() || rest[i] != '=' || i == key_start) return std::string(rest);
    const Sv key = rest.substr(key_start, i - key_start);
    ++i;
    const std::size_t value_start = i;
    Sv value;
    if (i < rest.size() && rest[i] == '"') {
      ++i;
      while (i < rest.size() && rest[i] != '"') i += (rest[i] == '\\' && i + 1 < rest.size()) ? 2 : 1;
      if (i >= rest.size()) return std::string(rest);  // an unclosed quote: not logfmt after all
      value = rest.substr(value_start + 1, i - value_start - 1);
      ++i;
    } else {
      while (i < rest.size() && rest[i] != ' ') ++i;
      value = rest.substr(value_start, i - value_start);
    }
    if (key == "msg" || key == "message") {
      msg.assign(value);
    } else if (key == "source" || key == "caller") {
      logger.assign(value);
    } else {
      if (!others.empty()) others += ' ';
      others.append(rest.substr(key_start, i - key_start));
    }
  }
  if (msg.empty()) return others;
  return others.empty() ? msg : msg + " " + others;
}

// `01/30/2024 11:53:52 - INFO - __main__ - msg` (the HF example scripts' datefmt).
bool layer_us_date(Sv& rest, PeeledLine& p) {
  if (rest.size() < 22 || !digits_at(rest, 0, 2) || rest[2] != '/' || !digits_at(rest, 3, 2) ||
      rest[5] != '/' || !digits_at(rest, 6, 4) || rest[10] != ' ')
    return false;
  PeeledTime t;
  t.month = to_int(rest, 0, 2);
  t.day = to_int(rest, 3, 2);
  t.year = to_int(rest, 6, 4);
  if (t.month < 1 || t.month > 12 || t.day < 1 || t.day > 31) return false;
  const std::size_t h = read_hms(rest, 11, t.seconds_of_day);
  if (h == 0) return false;
  const Sv after = rest.substr(11 + h);
  Sv r;
  if (!stamp_tail(after, p, r)) return false;  // only as a logging header
  t.kind = core::TsKind::wall;
  t.raw = std::string(rest.substr(0, 11 + h));
  offer_time(p, t);
  p.header = true;
  rest = r;
  return true;
}

// transformers' logging: `[INFO|trainer.py:2134] 2024-01-30 11:53:52,123 >> msg`.
bool layer_hf(Sv& rest, PeeledLine& p) {
  if (rest.size() < 8 || rest[0] != '[') return false;
  const std::size_t w = upper_word(rest, 1);
  if (w == 0 || 1 + w >= rest.size() || rest[1 + w] != '|') return false;
  auto sev = level_word(rest.substr(1, w));
  if (!sev) return false;
  const std::size_t end = file_line_bracket(rest, 2 + w);
  if (end == 0) return false;
  p.severity = sev;
  p.logger = std::string(rest.substr(2 + w, end - 3 - w));
  p.header = true;
  Sv r = eat_one_space(rest.substr(end));
  PeeledTime t;
  if (const std::size_t n = read_iso_stamp(r, t)) {
    offer_time(p, t);
    Sv tail;
    stamp_tail(r.substr(n), p, tail);
    r = tail;
  }
  rest = r;
  return true;
}

// The host-like token of a pdsh / DeepSpeed multi-node label `worker-1: ` at the start of `s`
// (lower case, with a digit, hyphen or dot; not all digits, which is a srun label); empty if none.
Sv pdsh_token(Sv s) {
  // Byte tables: pdsh_hosts asks every line of an application log (a log that opens each line
  // with its date reads ten bytes here).
  static constexpr text::ByteSet kLabelByte([](char c) { return (c >= 'a' && c <= 'z') || is_digit(c) || c == '-' || c == '.'; });
  static constexpr text::ByteSet kLower([](char c) { return c >= 'a' && c <= 'z'; });
  const std::size_t i = kLabelByte.span(s.substr(0, 64), 0);
  if (i == 0 || s.substr(i, 2) != ": " || i + 2 >= s.size()) return {};
  const Sv token = s.substr(0, i);
  if (kLower.span(token, 0) == i) return {};  // no digit, hyphen or dot: not marked as a host
  if (s[0] == '-' || s[0] == '.' || s[i - 1] == '.' || s[i - 1] == '-') return {};
  if (text::kDigits.span(token, 0) == i) return {};  // all digits: a srun label
  return token;
}

// pdsh label, outermost, and only for a host the whole text uses as one (PeelOptions).
bool layer_pdsh(Sv& rest, PeeledLine& p, bool outermost, const PeelOptions& options) {
  if (!outermost || !options.pdsh_hosts || options.pdsh_hosts->empty()) return false;
  const Sv token = pdsh_token(rest);
  if (token.empty() || !options.pdsh_hosts->count(token)) return false;
  p.host = std::string(token);
  rest = rest.substr(token.size() + 2);
  return true;
}

// `kubectl logs --prefix`: `[pod/trainer-0/pytorch] ` names the writer (not the node).
bool layer_kube(Sv& rest, PeeledLine& p) {
  if (rest.substr(0, 5) != "[pod/") return false;
  const std::size_t close = rest.find(']');
  if (close == Sv::npos || close > 260 || rest.substr(5, close - 5).find(' ') != Sv::npos) return false;
  p.pod = std::string(rest.substr(5, close - 5));
  rest = eat_one_space(rest.substr(close + 1));
  return true;
}

bool layer_paren_tag(Sv& rest, PeeledLine& p);

// trantor (drogon's logger; llama.cpp servers such as cortex): `20250430 21:55:01.443740 UTC
// 8354 ERROR msg - file.cc:12`. The number is the writing thread's id (gettid), which is the pid
// for the main thread, where these servers load models and log their failures.
bool layer_trantor(Sv& rest, PeeledLine& p) {
  if (rest.size() < 34 || !digits_at(rest, 0, 8) || rest[8] != ' ') return false;
  PeeledTime t;
  t.year = to_int(rest, 0, 4);
  t.month = to_int(rest, 4, 2);
  t.day = to_int(rest, 6, 2);
  if (t.month < 1 || t.month > 12 || t.day < 1 || t.day > 31) return false;
  const std::size_t h = read_hms(rest, 9, t.seconds_of_day);
  if (h == 0 || rest.substr(9 + h, 5) != " UTC ") return false;
  std::size_t i = 9 + h + 5;
  const auto tid = read_uint(rest, i, 10);
  if (!tid || i >= rest.size() || rest[i] != ' ') return false;
  const std::size_t w = upper_word(rest, i + 1);
  const auto sev = w ? level_word(rest.substr(i + 1, w)) : std::nullopt;
  if (!sev) return false;
  t.kind = core::TsKind::wall;
  t.raw = std::string(rest.substr(0, 9 + h + 4));
  offer_time(p, t);
  p.severity = sev;
  p.pid = tid;
  p.pid_evidence = "trantor log header";
  p.header = true;
  rest = eat_one_space(rest.substr(i + 1 + w));
  return true;
}

// `(VllmWorker rank=1 pid=3318) `, `(RayWorkerWrapper pid=2207, ip=10.0.0.2) `, `(pid=77) `,
// `(EngineCore_DP0 pid=1187) `, `(Worker_PP0_TP1 pid=3534) `, `(raylet) `. Blanks before it are
// part of the prefix: a tab after a CI stamp, an indented paste.
bool layer_paren(Sv& rest, PeeledLine& p) {
  const std::size_t lead = rest.find_first_not_of(" \t");
  if (lead == Sv::npos || rest[lead] != '(') return false;
  const Sv blanks = rest.substr(0, lead);
  rest.remove_prefix(lead);
  if (!layer_paren_tag(rest, p)) {
    rest = Sv(blanks.data(), blanks.size() + rest.size());
    return false;
  }
  return true;
}

bool layer_paren_tag(Sv& rest, PeeledLine& p) {
  const std::size_t close = rest.find(')');
  if (close == Sv::npos || close > 200) return false;
  if (close + 1 < rest.size() && rest[close + 1] != ' ') return false;
  const Sv inner = rest.substr(1, close - 1);
  if (inner.find('(') != Sv::npos) return false;
  PeeledLine q;
  std::string name;
  std::optional<std::int64_t> pid;
  std::optional<int> rank;
  std::string ip;
  bool unknown = false;
  std::size_t i = 0;
  while (i < inner.size()) {
    while (i < inner.size() && (inner[i] == ' ' || inner[i] == ',')) ++i;
    std::size_t j = i;
    while (j < inner.size() && inner[j] != ' ' && inner[j] != ',') ++j;
    const Sv tok = inner.substr(i, j - i);
    i = j;
    if (tok.empty()) continue;
    if (tok.substr(0, 4) == "pid=") {
      std::size_t k = 4;
      pid = read_uint(tok, k);
      if (!pid || k != tok.size()) return false;
    } else if (tok.substr(0, 5) == "rank=") {
      std::size_t k = 5;
      auto r = read_uint(tok, k, 6);
      if (!r || k != tok.size()) return false;
      rank = static_cast<int>(*r);
    } else if (tok.substr(0, 3) == "ip=") {
      ip = std::string(tok.substr(3));
    } else if (tok.find('=') != Sv::npos) {
      // another key=value: tolerated
    } else if (name.empty()) {
      name = std::string(tok);
    } else if (!rank_tag(tok, q) && tok[0] != '+') {
      unknown = true;
    }
  }
  const bool ray_daemon = name == "raylet" || name == "autoscaler" || name == "gcs_server" ||
                          name == "monitor" || name == "dashboard";
  if (!pid && !ray_daemon) return false;
  if (unknown && !pid) return false;
  // Rank tags inside the name: Worker_TP1, Worker_PP0_TP1, Worker_TP1_EP2, EngineCore_DP0.
  std::size_t start = 0;
  while (start <= name.size()) {
    std::size_t us = name.find('_', start);
    const Sv part = Sv(name).substr(start, us == std::string::npos ? Sv::npos : us - start);
    rank_tag(part, q);
    if (us == std::string::npos) break;
    start = us + 1;
  }
  if (q.tp_rank) p.tp_rank = q.tp_rank;
  if (q.dp_rank) p.dp_rank = q.dp_rank;
  if (q.pp_rank) p.pp_rank = q.pp_rank;
  if (q.ep_rank) p.ep_rank = q.ep_rank;
  if (rank) p.rank = rank;
  if (!ip.empty()) p.ip = ip;
  p.proc_name = name;
  if (pid) {
    p.pid = pid;
    const Sv n = name;
    if (n.substr(0, 10) == "VllmWorker" || n.substr(0, 7) == "Worker_" || n == "Worker")
      p.pid_evidence = core::job_evidence::kVllmWorkerPrefix;
    else if (n.substr(0, 10) == "EngineCore")
      p.pid_evidence = core::job_evidence::kVllmEngineCorePrefix;
    else if (n.substr(0, 9) == "APIServer")
      p.pid_evidence = core::job_evidence::kVllmApiServerPrefix;
    else
      p.pid_evidence = core::job_evidence::kRayWorkerPrefix;
  }
  rest = eat_one_space(rest.substr(close + 1));
  return true;
}

// `[rank0]:`, `[default3]:` (torchrun --tee), `[1,0]<stderr>:` (mpirun --tag-output).
bool layer_rank(Sv& rest, PeeledLine& p) {
  if (rest.size() < 4 || rest[0] != '[') return false;
  std::size_t i = 1;
  if (is_digit(rest[1])) {
    auto job = read_uint(rest, i, 6);
    if (!job || i >= rest.size() || rest[i] != ',') return false;
    ++i;
    auto r = read_uint(rest, i, 6);
    if (!r || rest.substr(i, 2) != "]<") return false;
    const std::size_t gt = rest.find(">:", i);
    if (gt == Sv::npos || gt > i + 10) return false;
    p.rank = static_cast<int>(*r);
    rest = eat_one_space(rest.substr(gt + 2));
    return true;
  }
  while (i < rest.size() && (is_alpha(rest[i]) || rest[i] == '_')) ++i;
  if (i == 1) return false;
  const Sv role = rest.substr(1, i - 1);
  auto n = read_uint(rest, i, 6);
  if (!n || rest.substr(i, 2) != "]:") return false;
  if (role == "rank") p.rank = static_cast<int>(*n);
  else p.local_rank = static_cast<int>(*n);
  rest = eat_one_space(rest.substr(i + 2));
  return true;
}

// srun --label: `0: `, ` 12: ` — only as the outermost layer (or right after a CI / docker
// stamp), since `3: ` deeper in a line is as likely to be message text.
bool layer_srun(Sv& rest, PeeledLine& p, bool outermost) {
  if (!outermost) return false;
  std::size_t i = 0;
  while (i < rest.size() && i < 4 && rest[i] == ' ') ++i;
  auto n = read_uint(rest, i, 5);
  if (!n || i >= rest.size() || rest[i] != ':') return false;
  if (i + 1 < rest.size() && rest[i + 1] != ' ') return false;
  p.srun_task = static_cast<int>(*n);
  rest = eat_one_space(rest.substr(i + 1));
  return true;
}

// `<file>:<line>]` ending at `]`: index just past `]`, or 0.
std::size_t file_line_bracket(Sv s, std::size_t i) {
  const std::size_t close = s.find(']', i);
  if (close == Sv::npos || close == i || close - i > 300) return 0;
  const Sv tok = s.substr(i, close - i);
  if (tok.find(' ') != Sv::npos) return 0;
  const std::size_t colon = tok.rfind(':');
  if (colon == Sv::npos || colon + 1 == tok.size()) return 0;
  for (std::size_t k = colon + 1; k < tok.size(); ++k)
    if (!is_digit(tok[k])) return 0;
  return close + 1;
}

// MMDD at s[i] → month/day into t (wall_no_year).
bool read_mmdd(Sv s, std::size_t i, PeeledTime& t) {
  if (!digits_at(s, i, 4)) return false;
  t.month = to_int(s, i, 2);
  t.day = to_int(s, i + 2, 2);
  return t.month >= 1 && t.month <= 12 && t.day >= 1 && t.day <= 31;
}

// absl logging before absl::InitializeLog (XLA, JAX, TensorFlow since 2024) prints the date and
// time fields as zeros and the seconds field as Unix time: `I0000 00:00:1775695621.447112`.
// Reads `0000 00:00:<epoch>[.<frac>]` at s[i] into t (wall, UTC); the length read, 0 if not one.
std::size_t read_absl_epoch(Sv s, std::size_t i, PeeledTime& t) {
  if (s.substr(i, 11) != "0000 00:00:") return 0;
  std::size_t j = i + 11;
  const std::size_t start = j;
  double v = 0;
  while (j < s.size() && is_digit(s[j]) && j - start < 12) v = v * 10 + (s[j++] - '0');
  if (j - start < 9 || j - start > 11) return 0;  // 2001-09-09 .. 5138: a real clock
  if (j + 1 < s.size() && s[j] == '.' && is_digit(s[j + 1])) {
    ++j;
    double scale = 0.1;
    while (j < s.size() && is_digit(s[j])) {
      v += (s[j++] - '0') * scale;
      scale /= 10;
    }
  }
  // Civil date of the day (days since 1970-01-01; H. Hinnant's civil_from_days).
  const auto days = static_cast<std::int64_t>(v / 86400);
  t.seconds_of_day = v - static_cast<double>(days) * 86400;
  const std::int64_t z = days + 719468;
  const std::int64_t era = z / 146097;
  const std::int64_t doe = z - era * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  t.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  t.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  t.year = static_cast<int>(yoe + era * 400 + (t.month <= 2 ? 1 : 0));
  t.kind = core::TsKind::wall;
  t.utc_offset = 0;
  return j - i;
}

// torch elastic / glog without brackets: `W0813 22:08:39.776000 2585 torch/…/api.py:898] `, and
// absl's epoch form `I0000 00:00:1775695621.447112    2211 service.cc:152] `.
bool layer_glog(Sv& rest, PeeledLine& p) {
  if (rest.size() < 20) return false;
  auto sev = glog_letter(rest[0]);
  PeeledTime t;
  if (!sev) return false;
  if (const std::size_t n = read_absl_epoch(rest, 1, t); n > 0) {
    std::size_t i = 1 + n;
    if (i >= rest.size() || rest[i] != ' ') return false;
    while (i < rest.size() && rest[i] == ' ') ++i;
    if (!read_uint(rest, i, 10) || i >= rest.size() || rest[i] != ' ') return false;
    const std::size_t end = file_line_bracket(rest, i + 1);
    if (end == 0) return false;
    t.raw = std::string(rest.substr(1, n));
    offer_time(p, t);
    p.severity = sev;
    p.logger = std::string(rest.substr(i + 1, end - 1 - (i + 1)));  // a thread id came first: no pid
    p.header = true;
    rest = eat_one_space(rest.substr(end));
    return true;
  }
  if (!read_mmdd(rest, 1, t) || rest[5] != ' ') return false;
  const std::size_t h = read_hms(rest, 6, t.seconds_of_day);
  if (h == 0) return false;
  std::size_t i = 6 + h;
  if (i >= rest.size() || rest[i] != ' ') return false;
  while (i < rest.size() && rest[i] == ' ') ++i;
  auto pid = read_uint(rest, i, 10);
  if (!pid || i >= rest.size() || rest[i] != ' ') return false;
  const std::size_t path_start = i + 1;
  const std::size_t end = file_line_bracket(rest, path_start);
  if (end == 0) return false;
  t.kind = core::TsKind::wall_no_year;
  t.raw = std::string(rest.substr(1, 5 + h));
  offer_time(p, t);
  p.severity = sev;
  const Sv path = rest.substr(path_start, end - 1 - path_start);
  p.logger = std::string(path);
  // torch's glog-style formatter prints the process id there; glog / absl (JAX, TF) print a
  // thread id, which names no process.
  if (path.find("torch/") != Sv::npos) {
    p.pid = pid;
    p.pid_evidence = path.find("torch/distributed") != Sv::npos ? "torchrun agent log" : "torch log";
  }
  p.header = true;
  rest = eat_one_space(rest.substr(end));
  return true;
}

// c10 glog in brackets: `[E0412 11:02:51.207114332 ProcessGroupNCCL.cpp:1895] `, with an optional
// thread id before the file, and the old `[E ProcessGroupNCCL.cpp:474] `.
bool layer_glog_bracket(Sv& rest, PeeledLine& p) {
  if (rest.size() < 6 || rest[0] != '[') return false;
  auto sev = glog_letter(rest[1]);
  if (!sev) return false;
  if (rest[2] == ' ') {
    const std::size_t end = file_line_bracket(rest, 3);
    if (end == 0) return false;
    p.severity = sev;
    p.logger = std::string(rest.substr(3, end - 4));
    p.header = true;
    rest = eat_one_space(rest.substr(end));
    return true;
  }
  PeeledTime t;
  // c10's own logger prints the date as the integer (month+1)*100+day, unpadded: `[W409 …]` in
  // April, `[E1218 …]` in December; glog pads it (`[E0412 …]`).
  std::size_t w = 4;
  if (rest.size() > 6 && digits_at(rest, 2, 3) && rest[5] == ' ' && rest[2] != '0') {
    w = 3;
    t.month = to_int(rest, 2, 1);
    t.day = to_int(rest, 3, 2);
    if (t.day < 1 || t.day > 31) return false;
  } else if (!read_mmdd(rest, 2, t) || rest.size() < 8 || rest[6] != ' ') {
    return false;
  }
  const std::size_t h = read_hms(rest, 3 + w, t.seconds_of_day);
  if (h == 0) return false;
  std::size_t i = 3 + w + h;
  if (i >= rest.size() || rest[i] != ' ') return false;
  while (i < rest.size() && rest[i] == ' ') ++i;
  {
    std::size_t k = i;
    if (read_uint(rest, k, 10) && k < rest.size() && rest[k] == ' ') i = k + 1;  // thread id
  }
  const std::size_t end = file_line_bracket(rest, i);
  if (end == 0) return false;
  t.kind = core::TsKind::wall_no_year;
  t.raw = std::string(rest.substr(2, w + 1 + h));
  offer_time(p, t);
  p.severity = sev;
  p.logger = std::string(rest.substr(i, end - 1 - i));
  p.header = true;
  rest = eat_one_space(rest.substr(end));
  return true;
}

// `[2026-04-09 00:47:13 TP1] `, `[2026-04-09 00:47:13 DP1 TP3] `, `[00:47:13] `,
// `[04-09 00:47:13 TP0] `, NCCL's `[2026-04-09 00:47:22] `, DeepSpeed's
// `[2024-10-01 01:17:14,554] [INFO] [launch.py:319:sigkill_handler] `, SGLang `] ERROR: `.
bool layer_bracket_time(Sv& rest, PeeledLine& p) {
  if (rest.size() < 10 || rest[0] != '[') return false;
  PeeledTime t;
  std::size_t i = 1;
  if (digits_at(rest, 1, 4) && rest.size() > 11 && rest[5] == '-' && digits_at(rest, 6, 2) &&
      rest[8] == '-' && digits_at(rest, 9, 2) && (rest[11] == ' ' || rest[11] == 'T')) {
    t.year = to_int(rest, 1, 4);
    t.month = to_int(rest, 6, 2);
    t.day = to_int(rest, 9, 2);
    t.kind = core::TsKind::wall;
    i = 12;
  } else if (digits_at(rest, 1, 2) && rest[3] == '-' && digits_at(rest, 4, 2) && rest[6] == ' ') {
    t.month = to_int(rest, 1, 2);
    t.day = to_int(rest, 4, 2);
    t.kind = core::TsKind::wall_no_year;
    i = 7;
  } else {
    t.kind = core::TsKind::time_of_day;
  }
  if (t.month != 0 && (t.month < 1 || t.month > 12 || t.day < 1 || t.day > 31)) return false;
  const std::size_t h = read_hms(rest, i, t.seconds_of_day);
  if (h == 0) return false;
  std::size_t j = i + h;
  const std::size_t close = rest.find(']', j);
  if (close == Sv::npos || close - j > 80) return false;
  // Ray's C++ logs: `[2026-01-30 11:54:10,201 E 1022 1022]` (level, pid, tid).
  PeeledLine q;
  Sv tags = rest.substr(j, close - j);
  if (tags.size() >= 6 && tags[0] == ' ' && glog_letter(tags[1]) && tags[2] == ' ' &&
      is_digit(tags[3])) {
    std::size_t k = 3;
    const bool pid_tid = read_uint(tags, k, 10) && k < tags.size() && tags[k] == ' ' &&
                         (++k, read_uint(tags, k, 10)) && k == tags.size();
    if (pid_tid) {
      q.severity = glog_letter(tags[1]);
      tags = Sv();
    }
  }
  // Tags between the time and `]`: ` DP1 TP3`, ` ATTN_CP0`.
  std::size_t k = 0;
  while (k < tags.size()) {
    if (tags[k] != ' ') return false;
    while (k < tags.size() && tags[k] == ' ') ++k;
    std::size_t e = k;
    while (e < tags.size() && tags[e] != ' ') ++e;
    if (e > k && !rank_tag(tags.substr(k, e - k), q)) return false;
    k = e;
  }
  t.raw = std::string(rest.substr(1, j - 1));
  offer_time(p, t);
  if (q.tp_rank) p.tp_rank = q.tp_rank;
  if (q.dp_rank) p.dp_rank = q.dp_rank;
  if (q.pp_rank) p.pp_rank = q.pp_rank;
  if (q.ep_rank) p.ep_rank = q.ep_rank;
  if (q.severity) p.severity = q.severity;
  p.header = true;
  Sv r = eat_one_space(rest.substr(close + 1));
  // DeepSpeed: `[LEVEL] [file.py:line:func] `
  if (r.size() > 2 && r[0] == '[') {
    const std::size_t w = upper_word(r, 1);
    if (w > 0 && 1 + w < r.size() && r[1 + w] == ']') {
      if (auto sev = level_word(r.substr(1, w))) {
        p.severity = sev;
        r = eat_one_space(r.substr(w + 2));
        if (!r.empty() && r[0] == '[') {
          const std::size_t c = r.find(']');
          if (c != Sv::npos && c < 200 && r.substr(1, c - 1).find(':') != Sv::npos &&
              r.substr(1, c - 1).find(' ') == Sv::npos) {
            p.logger = std::string(r.substr(1, c - 1));
            r = eat_one_space(r.substr(c + 1));
          }
        }
      }
    }
  } else {
    // SGLang / uvicorn: `LEVEL: ` (uvicorn pads with spaces)
    const std::size_t w = upper_word(r, 0);
    if (w > 0 && w < r.size() && r[w] == ':' && (w + 1 == r.size() || r[w + 1] == ' ')) {
      if (auto sev = level_word(r.substr(0, w))) {
        p.severity = sev;
        r = r.substr(w + 1);
        while (!r.empty() && r[0] == ' ') r.remove_prefix(1);
      }
    }
  }
  rest = r;
  return true;
}

// vLLM: `INFO 01-30 11:53:52 model_runner.py:1115] ` and `INFO 07-11 06:18:32 [kv_cache_utils.py:646] `.
bool layer_vllm(Sv& rest, PeeledLine& p) {
  const std::size_t w = upper_word(rest, 0);
  if (w == 0 || w >= rest.size() || rest[w] != ' ') return false;
  auto sev = level_word(rest.substr(0, w));
  if (!sev) return false;
  std::size_t i = w + 1;
  PeeledTime t;
  if (!digits_at(rest, i, 2) || i + 6 > rest.size() || rest[i + 2] != '-' ||
      !digits_at(rest, i + 3, 2) || rest[i + 5] != ' ')
    return false;
  t.month = to_int(rest, i, 2);
  t.day = to_int(rest, i + 3, 2);
  if (t.month < 1 || t.month > 12 || t.day < 1 || t.day > 31) return false;
  const std::size_t h = read_hms(rest, i + 6, t.seconds_of_day);
  if (h == 0) return false;
  std::size_t j = i + 6 + h;
  if (j >= rest.size() || rest[j] != ' ') return false;
  ++j;
  std::size_t end = 0;
  std::string logger;
  if (j < rest.size() && rest[j] == '[') {
    end = file_line_bracket(rest, j + 1);
    if (end) logger = std::string(rest.substr(j + 1, end - j - 2));
  } else {
    end = file_line_bracket(rest, j);
    if (end) logger = std::string(rest.substr(j, end - j - 1));
  }
  if (end == 0) return false;
  t.kind = core::TsKind::wall_no_year;
  t.raw = std::string(rest.substr(i, 6 + h));
  offer_time(p, t);
  p.severity = sev;
  p.logger = logger;
  p.header = true;
  rest = eat_one_space(rest.substr(end));
  return true;
}

// Python logging's default `LEVEL:logger.name:message`, and uvicorn's bare `INFO:     …`.
bool layer_pylevel(Sv& rest, PeeledLine& p) {
  const std::size_t w = upper_word(rest, 0);
  if (w == 0 || w >= rest.size() || rest[w] != ':') return false;
  auto sev = level_word(rest.substr(0, w));
  if (!sev) return false;
  std::size_t i = w + 1;
  if (i < rest.size() && rest[i] == ' ') {  // uvicorn
    while (i < rest.size() && rest[i] == ' ') ++i;
    p.severity = sev;
    p.header = true;
    rest = rest.substr(i);
    return true;
  }
  std::size_t j = i;
  while (j < rest.size() && (is_alpha(rest[j]) || is_digit(rest[j]) || rest[j] == '_' ||
                             rest[j] == '.' || rest[j] == '-'))
    ++j;
  if (j == i || j >= rest.size() || rest[j] != ':') return false;
  p.severity = sev;
  p.logger = std::string(rest.substr(i, j - i));
  p.header = true;
  rest = rest.substr(j + 1);
  return true;
}

// `host:pid:tid [dev] ` at s[0]; its length (0 when absent). Fills host/pid/dev.
std::size_t nccl_tag(Sv s, std::string& host, std::int64_t& pid, int& dev) {
  std::size_t i = 0;
  while (i < s.size() && is_host_char(s[i])) ++i;
  if (i == 0 || i >= s.size() || s[i] != ':') return 0;
  const Sv h = s.substr(0, i);
  ++i;
  auto p = read_uint(s, i, 10);
  if (!p || i >= s.size() || s[i] != ':') return 0;
  ++i;
  auto tid = read_uint(s, i, 12);
  if (!tid || s.substr(i, 2) != " [") return 0;
  i += 2;
  auto d = read_uint(s, i, 4);
  if (!d || i >= s.size() || s[i] != ']') return 0;
  ++i;
  if (i < s.size() && s[i] != ' ') return 0;
  host = std::string(h);
  pid = *p;
  dev = static_cast<int>(*d);
  return i < s.size() ? i + 1 : i;
}

// NCCL debug tag, optionally behind a pdsh/mpirun `host: ` label.
bool layer_nccl(Sv& rest, PeeledLine& p) {
  std::string host;
  std::int64_t pid = 0;
  int dev = 0;
  std::size_t n = nccl_tag(rest, host, pid, dev);
  std::size_t skip = 0;
  if (n == 0) {
    std::size_t i = 0;
    while (i < rest.size() && is_host_char(rest[i])) ++i;
    if (i == 0 || rest.substr(i, 2) != ": ") return false;
    skip = i + 2;
    n = nccl_tag(rest.substr(skip), host, pid, dev);
    if (n == 0) return false;
  }
  p.host = host;
  p.pid = pid;
  p.cuda_dev = dev;
  p.pid_evidence = "NCCL debug line";
  rest = rest.substr(skip + n);
  if (!p.severity) {
    if (rest.find("NCCL WARN") != Sv::npos) p.severity = core::Severity::warning;
    else if (rest.substr(0, 9) == "NCCL INFO") p.severity = core::Severity::info;
  }
  return true;
}

// Ray's dedup suffix ` [repeated 12x across cluster]`.
void strip_ray_repeat(Sv& rest, PeeledLine& p) {
  while (!rest.empty() && rest.back() == ' ') rest.remove_suffix(1);
  static constexpr Sv kTail = "x across cluster]";
  if (rest.size() < kTail.size() + 12 || rest.substr(rest.size() - kTail.size()) != kTail) return;
  const std::size_t open = rest.rfind(" [repeated ");
  if (open == Sv::npos) return;
  std::size_t i = open + 11;
  auto n = read_uint(rest, i, 9);
  if (!n || i != rest.size() - kTail.size()) return;
  p.repeated = static_cast<int>(*n);
  rest = rest.substr(0, open);
}

}  // namespace

std::size_t nccl_prefix_length(Sv line) {
  std::string host;
  std::int64_t pid = 0;
  int dev = 0;
  if (const std::size_t n = nccl_tag(line, host, pid, dev)) return n;
  std::size_t i = 0;  // behind a pdsh / mpirun `host: ` label, as layer_nccl takes it
  while (i < line.size() && is_host_char(line[i])) ++i;
  if (i == 0 || line.substr(i, 2) != ": ") return 0;
  const std::size_t n = nccl_tag(line.substr(i + 2), host, pid, dev);
  return n == 0 ? 0 : i + 2 + n;
}

std::size_t read_iso_stamp(std::string_view s, PeeledTime& time) {
  if (s.size() < 19 || !digits_at(s, 0, 4) || s[4] != '-' || !digits_at(s, 5, 2) || s[7] != '-' ||
      !digits_at(s, 8, 2) || (s[10] != 'T' && s[10] != ' ' && s[10] != '_'))
    return 0;
  PeeledTime t;
  t.year = to_int(s, 0, 4);
  t.month = to_int(s, 5, 2);
  t.day = to_int(s, 8, 2);
  if (t.month < 1 || t.month > 12 || t.day < 1 || t.day > 31) return 0;
  const std::size_t h = read_hms(s, 11, t.seconds_of_day);
  if (h == 0) return 0;
  std::size_t i = 11 + h;
  if (i < s.size() && s[i] == 'Z') {
    ++i;
  } else if (i + 3 <= s.size() && (s[i] == '+' || s[i] == '-') && digits_at(s, i + 1, 2)) {
    const int sign = s[i] == '+' ? 1 : -1;
    int hh = to_int(s, i + 1, 2), mm = 0;
    std::size_t j = i + 3;
    if (j < s.size() && s[j] == ':' && digits_at(s, j + 1, 2)) {
      mm = to_int(s, j + 1, 2);
      j += 3;
    } else if (digits_at(s, j, 2)) {
      mm = to_int(s, j, 2);
      j += 2;
    }
    if (hh <= 14 && mm < 60) {
      t.utc_offset = sign * (hh * 3600.0 + mm * 60.0);
      i = j;
    }
  }
  t.kind = core::TsKind::wall;
  t.raw = std::string(s.substr(0, i));
  time = t;
  return i;
}

std::size_t read_ctime_stamp(std::string_view s, PeeledTime& time) {
  static constexpr std::array<Sv, 7> kDays = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
  if (s.size() < 24) return 0;
  bool day_ok = false;
  for (Sv d : kDays) day_ok = day_ok || s.substr(0, 3) == d;
  if (!day_ok || s[3] != ' ') return 0;
  auto month = core::parse_month(s.substr(4, 3));
  if (!month || s[7] != ' ') return 0;
  std::size_t i = 8;
  while (i < s.size() && s[i] == ' ') ++i;
  auto day = read_uint(s, i, 2);
  if (!day || i >= s.size() || s[i] != ' ') return 0;
  ++i;
  PeeledTime t;
  const std::size_t h = read_hms(s, i, t.seconds_of_day);
  if (h == 0) return 0;
  i += h;
  if (i >= s.size() || s[i] != ' ' || !digits_at(s, i + 1, 4)) return 0;
  t.year = to_int(s, i + 1, 4);
  t.month = *month;
  t.day = static_cast<int>(*day);
  if (t.day < 1 || t.day > 31) return 0;
  i += 5;
  t.kind = core::TsKind::wall;
  t.raw = std::string(s.substr(0, i));
  time = t;
  return i;
}

std::optional<double> stamp_epoch(const PeeledTime& time, int year_hint) {
  int year = 0;
  if (time.kind == core::TsKind::wall) year = time.year;
  else if (time.kind == core::TsKind::wall_no_year) year = year_hint;
  if (year == 0 || time.month == 0) return std::nullopt;
  return core::civil_to_epoch(year, time.month, time.day, 0, 0, time.seconds_of_day) -
         time.utc_offset;
}

std::set<std::string, std::less<>> pdsh_hosts(std::span<const std::string_view> all) {
  std::map<std::string, int, std::less<>> counts;
  int lines = 0, labelled = 0;
  for (std::size_t k = 0; k < all.size() && lines < 20000; ++k) {
    const Sv line = all[k];
    if (line.empty()) continue;
    ++lines;
    const Sv token = pdsh_token(line);
    if (token.empty()) continue;
    ++labelled;
    if (counts.size() < 4096) ++counts[std::string(token)];
  }
  std::set<std::string, std::less<>> hosts;
  if (labelled * 10 < lines) return hosts;  // labels on a few lines are message text
  for (const auto& [host, n] : counts)
    if (n >= 3) hosts.insert(host);
  return hosts;
}

PeeledLine peel_line(std::string_view raw, const PeelOptions& options) {
  PeeledLine p;
  std::string clean;
  Sv rest = raw;
  if (!options.plain) {
    clean = text::strip_ansi(raw);
    rest = clean;
  }
  if (rest.size() >= 2 && rest.substr(rest.size() - 2) == "^M") rest.remove_suffix(2);  // pasted CR
  strip_ray_repeat(rest, p);
  bool outermost = true;  // only CI / docker stamps peeled so far
  for (int iter = 0; iter < 12 && !rest.empty(); ++iter) {
    bool hit = false;
    if (!p.header) {
      if (layer_iso(rest, p)) {
        ++p.layers;
        outermost = outermost && !p.header;
        continue;
      }
      hit = layer_srun(rest, p, outermost) || layer_pdsh(rest, p, outermost, options) ||
            layer_kube(rest, p) || layer_paren(rest, p) || layer_rank(rest, p) ||
            layer_glog(rest, p) || layer_glog_bracket(rest, p) || layer_hf(rest, p) ||
            layer_bracket_time(rest, p) || layer_us_date(rest, p) || layer_vllm(rest, p) ||
            layer_pylevel(rest, p) || layer_logfmt(rest, p) || layer_trantor(rest, p);
    }
    if (!hit && !p.pid_evidence.starts_with("NCCL")) hit = layer_nccl(rest, p);
    if (!hit) break;
    ++p.layers;
    outermost = false;
  }
  p.message = p.logfmt ? logfmt_message(rest, p.logger) : std::string(rest);
  return p;
}

std::string PeeledLine::key() const {
  std::string k;
  auto add = [&k](char tag, auto v) {
    k += tag;
    k += std::to_string(v);
    k += ';';
  };
  if (!host.empty()) k += "h" + host + ";";
  if (!pod.empty()) k += "k" + pod + ";";
  if (pid) add('p', *pid);
  if (rank) add('r', *rank);
  if (local_rank) add('l', *local_rank);
  if (srun_task) add('s', *srun_task);
  if (dp_rank) add('d', *dp_rank);
  if (pp_rank) add('q', *pp_rank);
  if (tp_rank) add('t', *tp_rank);
  if (ep_rank) add('e', *ep_rank);
  return k;
}

std::optional<int> PeeledLine::effective_rank() const {
  if (rank) return rank;
  if (srun_task) return srun_task;
  if (tp_rank && !dp_rank && !pp_rank) return tp_rank;
  return std::nullopt;
}

bool same_host(std::string_view a, std::string_view b) {
  if (a == b) return true;
  if (a.size() > b.size()) std::swap(a, b);
  return !a.empty() && b.size() > a.size() && b.substr(0, a.size()) == a && b[a.size()] == '.';
}

void apply_peeled(const PeeledLine& p, core::Event& e, int year_hint) {
  if (!p.host.empty() && !same_host(p.host, e.host)) e.host = p.host;
  if (p.pid) e.pid = p.pid;
  if (auto r = p.effective_rank()) e.rank = r;
  if (p.severity) e.severity = *p.severity;
  const PeeledTime& t = p.time;
  if (t.kind != core::TsKind::none) {
    e.ts_kind = t.kind;
    e.ts_raw = t.raw;
    if (t.kind == core::TsKind::wall) {
      e.ts = stamp_epoch(t, 0);
    } else if (t.kind == core::TsKind::wall_no_year) {
      // Seconds since 1 January counted as in a leap year (the core::Event contract), so that
      // Feb 29 has a place; clock alignment corrects common years.
      const int y = 2000;
      e.ts_value = core::civil_to_epoch(y, t.month, t.day, 0, 0, t.seconds_of_day) -
                   core::civil_to_epoch(y, 1, 1, 0, 0, 0);
      if (year_hint != 0) e.ts = stamp_epoch(t, year_hint);
    } else if (t.kind == core::TsKind::time_of_day) {
      e.ts_value = t.seconds_of_day;
    }
  }
  if (p.tp_rank) e.set_int("tp_rank", *p.tp_rank);
  if (p.dp_rank) e.set_int("dp_rank", *p.dp_rank);
  if (p.pp_rank) e.set_int("pp_rank", *p.pp_rank);
  if (p.ep_rank) e.set_int("ep_rank", *p.ep_rank);
  if (p.local_rank) e.set_int("local_rank", *p.local_rank);
  if (p.srun_task) e.set_int("srun_task", *p.srun_task);
  if (p.cuda_dev) e.set_int("cuda_dev", *p.cuda_dev);
  if (p.repeated > 0) e.set_int("repeated", p.repeated);
  if (!p.proc_name.empty()) e.set("proc_name", p.proc_name);
  if (!p.ip.empty()) e.set("ip", p.ip);
  if (!p.pod.empty()) e.set("pod", p.pod);
}

}  // namespace culprit::ingest
