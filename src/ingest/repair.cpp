// Text repair (see repair.hpp). The fast path only looks: lines are split with memchr, each
// stage is gated by byte checks (a first byte, a memchr for '\\' or '#'), and a copy is made
// only when a repair applies. Wrap joins run the signal set only on pairs of lines whose second
// looks like a continuation and where a prefilter literal could lie in the joined text.
#include "ingest/repair.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <deque>
#include <optional>
#include <utility>
#include <vector>

#include "culprit/text/lines.hpp"
#include "ingest/formats/line_prefix.hpp"

namespace culprit::ingest::detail {
namespace {

using Sv = std::string_view;

struct RLine {
  Sv text;
  std::int64_t first = 0, last = 0;  // input lines (1-based, from the text's first line)
};

using text::is_digit;
bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

Sv trim_right(Sv s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// ---- 1. chrome -----------------------------------------------------------------------------

/// A Markdown fence line: ``` or ~~~ (three or more; GitHub also sees \`\`\` escaped in prose),
/// then an optional info string (`python`, `text`, `log`, `console`) and nothing else.
bool is_fence(Sv line) {
  Sv s = text::trim(line);
  std::size_t n = 0;
  if (s.starts_with("\\`\\`\\`")) {
    while (s.substr(n, 2) == "\\`") n += 2;
  } else if (!s.empty() && (s[0] == '`' || s[0] == '~')) {
    while (n < s.size() && s[n] == s[0]) ++n;
    if (n < 3) return false;
  } else {
    return false;
  }
  for (std::size_t i = n; i < s.size(); ++i) {
    const char c = s[i];
    if (!(is_alpha(c) || is_digit(c) || c == '_' || c == '-' || c == '+' || c == '.' || c == ' ')) return false;
  }
  return true;
}

/// Length of the Markdown quote markers at the start of `line` (`> `, `>`, nested `> > `), or 0.
/// `>>>` (a Python prompt) and `>foo` (a redirect, a diff's side) are not quote markers.
std::size_t quote_marker(Sv line) {
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ' && i < 3) ++i;
  std::size_t end = 0;
  while (i < line.size() && line[i] == '>') {
    if (i + 1 < line.size() && line[i + 1] == '>') return end;  // `>>` / `>>>`
    if (i + 1 == line.size()) return i + 1;
    if (line[i + 1] != ' ') return end;
    end = i + 2;
    i += 2;
  }
  return end;
}

/// GitHub Actions' raw-log stamp: `2024-05-01T10:00:00.1234567Z ` (seven fraction digits).
std::size_t gha_stamp(Sv s) {
  if (s.size() < 29 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' || s[19] != '.')
    return 0;
  for (std::size_t i : {0, 1, 2, 3, 5, 6, 8, 9, 11, 12, 14, 15, 17, 18})
    if (!is_digit(s[i])) return 0;
  std::size_t i = 20;
  while (i < s.size() && is_digit(s[i])) ++i;
  if (i == 20 || i >= s.size() || s[i] != 'Z') return 0;
  return i + 1 < s.size() && s[i + 1] == ' ' ? i + 2 : 0;
}

/// GitHub Actions' log commands as the viewer shows them in a raw log: `##[group]Run x`,
/// `##[endgroup]`, `##[error]msg`, `##[warning]msg`, … Returns the marker's length, else 0.
std::size_t gha_command(Sv s) {
  if (!s.starts_with("##[")) return 0;
  const std::size_t close = s.find(']', 3);
  if (close == Sv::npos || close > 12) return 0;
  static constexpr Sv kWords[] = {"group", "endgroup", "error", "warning", "notice", "debug", "command", "section"};
  const Sv word = s.substr(3, close - 3);
  for (Sv w : kWords)
    if (word == w) return close + 1;
  return 0;
}

/// Buildkite's web UI, copied: every line is followed by "Actions for L<n>" and then "<n>".
bool is_buildkite_actions(Sv s, Sv& number) {
  s = trim_right(s);
  if (!s.starts_with("Actions for L") || s.size() == 13) return false;
  number = s.substr(13);
  return std::all_of(number.begin(), number.end(), is_digit);
}

/// tmux / screen lines that are the terminal's, not the program's.
bool is_terminal_marker(Sv line) {
  const Sv s = text::trim(line);
  if (s.empty() || s.front() != '[' || s.back() != ']') return false;
  return s == "[exited]" || s == "[screen is terminating]" || s == "[lost tty]" || s == "[detached]" ||
         s.starts_with("[detached (from session ") || s.starts_with("[server exited") ||
         s.starts_with("[remote detached");
}

// ---- 2. gutters ----------------------------------------------------------------------------

struct Gutter {
  std::int64_t number = -1;
  std::size_t length = 0;  // bytes to drop
};

/// A line-number gutter at the start of `line`: spaces, an optional `L`, 1–7 digits, then `| `,
/// `|`, a tab, `: ` or one or more spaces — or the end of the line (a numbered blank line).
Gutter read_gutter(Sv line) {
  Gutter g;
  std::size_t i = 0;
  while (i < line.size() && line[i] == ' ' && i < 8) ++i;
  if (i < line.size() && line[i] == 'L') ++i;
  const std::size_t d = i;
  std::int64_t v = 0;
  while (i < line.size() && is_digit(line[i]) && i - d < 7) v = v * 10 + (line[i++] - '0');
  if (i == d || (i < line.size() && is_digit(line[i]))) return g;
  if (i == line.size()) {
    g = {v, i};
  } else if (line[i] == '|') {
    ++i;
    if (i < line.size() && line[i] == ' ') ++i;
    g = {v, i};
  } else if (line[i] == '\t') {
    g = {v, i + 1};
  } else if (line[i] == ':' && i + 1 < line.size() && line[i + 1] == ' ') {
    g = {v, i + 2};
  } else if (line[i] == ' ') {
    while (i < line.size() && line[i] == ' ') ++i;
    g = {v, i};
  }
  return g;
}

// ---- 3. ANSI escapes written as text -------------------------------------------------------

/// The ways a log writes ESC as text before a CSI's `[`: the first starts with `#`, the rest with a
/// backslash (has_text_escape looks for each kind its own way).
constexpr Sv kTextEscapeForms[] = {"#033[", "\\033[", "\\x1b[", "\\x1B[", "\\u001b[", "\\u001B[", "\\e["};
constexpr Sv kHashEscapeForm = kTextEscapeForms[0];
static_assert(kHashEscapeForm[0] == '#');

/// Length of a textual ESC at `s[i]` followed by a CSI (`[` digits/`;` then a letter), else 0.
std::size_t text_escape(Sv s, std::size_t i) {
  for (Sv f : kTextEscapeForms) {
    // The second byte first: a log full of `#` (SGLang's `#new-seq`) compares once a `#`.
    if (i + 1 >= s.size() || s[i + 1] != f[1] || s.compare(i, f.size(), f) != 0) continue;
    std::size_t j = i + f.size();
    while (j < s.size() && (is_digit(s[j]) || s[j] == ';' || s[j] == '?')) ++j;
    if (j < s.size() && is_alpha(s[j])) return f.size() - 1;  // up to, not including, the '['
    return 0;
  }
  return 0;
}

/// True when `s` holds a textual escape: found by its first byte ('#' or '\\', both rare in
/// most logs), so a log without one costs two scans, or none where `rare` (the census of `s`)
/// says it holds neither byte. The `#` form is looked for whole (text::find): a tqdm bar's
/// `|#######   |` puts a `#` in every line of a training log.
bool has_text_escape(Sv s, const text::RareBytes& rare = text::RareBytes::all()) {
  if (rare.may_hold('#')) {
    for (std::size_t at = text::find(s, kHashEscapeForm); at != Sv::npos; at = text::find(s, kHashEscapeForm, at + 1))
      if (text_escape(s, at)) return true;
  }
  if (rare.may_hold('\\')) {  // (without a census, the memchr below is the scan)
    for (const char* p = s.data(); p < s.data() + s.size();) {
      p = static_cast<const char*>(std::memchr(p, '\\', static_cast<std::size_t>(s.data() + s.size() - p)));
      if (!p) break;
      if (text_escape(s, static_cast<std::size_t>(p - s.data()))) return true;
      ++p;
    }
  }
  return false;
}

// ---- 4. escaped newlines -------------------------------------------------------------------

/// The escape at `s[i]` (a backslash) inside a quoted value: its length, or 0 when it is no
/// escape JSON, Rust's Debug or Python's repr prints.
std::size_t escape_length(Sv s, std::size_t i) {
  if (i + 1 >= s.size()) return 0;
  switch (s[i + 1]) {
    case 'n': case 't': case 'r': case '"': case '\\': case '\'': case '/': case '0': case 'a': case 'b':
    case 'f': case 'v': case 'e':
      return 2;
    case 'x':
      return i + 3 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 2])) &&
                     std::isxdigit(static_cast<unsigned char>(s[i + 3]))
                 ? 4
                 : 0;
    case 'u':
      if (i + 5 < s.size() && std::all_of(s.begin() + static_cast<std::ptrdiff_t>(i + 2),
                                          s.begin() + static_cast<std::ptrdiff_t>(i + 6),
                                          [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; }))
        return 6;
      if (i + 2 < s.size() && s[i + 2] == '{') return 2;  // Rust's \u{1f600}: kept as it is
      return 0;
    default:
      return 0;
  }
}

/// A quoted value [open, close) (quotes excluded) in which `\n` stands for a newline: it has
/// one, every backslash starts a known escape, and no backslash follows a drive letter
/// (`C:\new`, `"D:\temp\new"`).
bool newline_value(Sv s, std::size_t open, std::size_t close) {
  bool newline = false;
  for (std::size_t i = open; i < close; ++i) {
    if (s[i] != '\\') continue;
    const std::size_t n = escape_length(s, i);
    if (n == 0) return false;
    if (i >= 2 && s[i - 1] == ':' && is_alpha(s[i - 2]) && (i == 2 || !is_alpha(s[i - 3]))) return false;
    newline = newline || s[i + 1] == 'n';
    i += n - 1;
  }
  return newline;
}

/// Splits `line` at the `\n` escapes of its quoted values (see newline_value); `\t`, `\"`,
/// `\\`, `\'` and `\r` in them are unescaped too. Empty when the line has no such value.
std::vector<std::string> split_escaped(Sv line) {
  std::vector<std::string> out;
  // A JSON document's line (`{"log": …}`, `"message": "…"`) is its parser's.
  const Sv head = text::trim_left(line);
  if (head.empty() || head[0] == '{' || head[0] == '"' || head[0] == '[') return out;
  std::string cur;
  bool any = false;
  std::size_t i = 0;
  while (i < line.size()) {
    const char q = line[i];
    // A quote opens a value; an apostrophe inside a word (`can't`) does not.
    const bool opens = q == '"' || (q == '\'' && (i == 0 || !is_alpha(line[i - 1])));
    if (!opens) {
      cur += q;
      ++i;
      continue;
    }
    std::size_t j = i + 1;
    while (j < line.size() && line[j] != q) j += line[j] == '\\' ? 2 : 1;
    if (j >= line.size()) {  // unclosed: the rest as it is
      cur.append(line.substr(i));
      break;
    }
    if (!newline_value(line, i + 1, j)) {
      cur.append(line.substr(i, j + 1 - i));
      i = j + 1;
      continue;
    }
    any = true;
    cur += q;
    for (std::size_t k = i + 1; k < j; ++k) {
      if (line[k] != '\\') {
        cur += line[k];
        continue;
      }
      const char e = line[k + 1];
      const std::size_t n = escape_length(line, k);
      if (e == 'n') {
        out.push_back(std::move(cur));
        cur.clear();
      } else if (e == 't') {
        cur += '\t';
      } else if (e == '"' || e == '\\' || e == '\'' || e == '/') {
        cur += e;
      } else if (e == 'r') {
        // a CR before the newline: dropped, as split_lines drops it
      } else {
        cur.append(line.substr(k, n));
      }
      k += n - 1;
    }
    cur += q;
    i = j + 1;
  }
  if (!any) return {};
  out.push_back(std::move(cur));
  return out;
}

// ---- 5. wraps ------------------------------------------------------------------------------

/// A logging level word and what follows it at a record's start: vLLM's `INFO 04-09 00:47:22`
/// (level, blank, `MM-DD `) and Python logging's default `INFO:name:` (level, colon, a name).
bool level_header(Sv s) {
  static constexpr std::array<Sv, 6> kLevels = {"DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL", "WARN"};
  // Every line is asked: each level's first two bytes are compared before the whole name.
  if (s.size() < 2) return false;
  for (const Sv level : kLevels) {
    if (s[0] != level[0] || s[1] != level[1] || s.size() < level.size() + 2 || !s.starts_with(level)) continue;
    const Sv rest = s.substr(level.size());
    if (rest[0] == ':' && (is_alpha(rest[1]) || rest[1] == '_')) return true;
    if (rest.size() >= 7 && rest[0] == ' ' && is_digit(rest[1]) && is_digit(rest[2]) && rest[3] == '-' &&
        is_digit(rest[4]) && is_digit(rest[5]) && rest[6] == ' ')
      return true;
  }
  return false;
}

/// A writer's process prefix, `(Name pid=N)` / `(Name rank=R pid=N)` (vLLM workers, Ray actors).
bool process_prefix(Sv s) {
  if (s.size() < 4 || s[0] != '(' || !(is_alpha(s[1]) || s[1] == '_')) return false;
  std::size_t i = 2;
  while (i < s.size() && i < 64 && (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '_' || s[i] == '-' || s[i] == '.')) ++i;
  if (i >= s.size() || s[i] != ' ') return false;
  const Sv rest = s.substr(i + 1);
  return rest.starts_with("pid=") || rest.starts_with("rank=");
}

/// A tqdm progress bar (`Epoch 0:  45%|####      | 450/1000 [00:12<00:15, 36.2it/s]`, Lightning's
/// and DeepSpeed's too): `N%|` within its first 80 bytes. Each redraw after a `\r` is a line of
/// its own (text::split_lines), a record, never the tail of the redraw before.
bool progress_bar(Sv s) {
  const std::size_t bar = text::find(s.substr(0, 80), "%|");
  return bar != Sv::npos && bar > 0 && is_digit(s[bar - 1]);
}

/// True when `s` starts like a log record of its own (a stamp, a bracketed or escaped prefix,
/// a table border), so it is not the tail of the line before.
bool starts_record(Sv s) {
  if (s.empty()) return true;
  const char c = s[0];
  if (c == '\x1b' || c == '[' || c == '<' || c == '{' || c == '|' || c == '+' || c == '#') return true;
  if (s.size() >= 8 && is_digit(s[0]) && is_digit(s[1])) {
    if (s.size() >= 10 && is_digit(s[2]) && is_digit(s[3]) && s[4] == '-' && is_digit(s[5])) return true;  // 2024-05-
    if (s[2] == ':' && is_digit(s[3]) && is_digit(s[4]) && s[5] == ':') return true;                       // 10:00:00
    if (s[2] == '-' && is_digit(s[3]) && is_digit(s[4]) && s[5] == ' ') return true;                       // 04-24 (vLLM)
  }
  // glog `I0409 05:10:11`, syslog `May 25 10:00:00`.
  if (s.size() >= 6 && (c == 'I' || c == 'W' || c == 'E' || c == 'F') && is_digit(s[1]) && is_digit(s[2]) && is_digit(s[3]) &&
      is_digit(s[4]) && s[5] == ' ')
    return true;
  if (s.size() >= 7 && is_alpha(s[0]) && is_alpha(s[1]) && is_alpha(s[2]) && s[3] == ' ' &&
      (is_digit(s[4]) || s[4] == ' ') && is_digit(s[5]) && (s[6] == ' ' || is_digit(s[6])))
    return true;
  if (c == 'T' && s.starts_with("Traceback (most recent call last)")) return true;
  if (level_header(s) || process_prefix(s) || progress_bar(s)) return true;
  // A tag or exception name and a colon: `NVRM: …`, `ValueError: …`, `kernel: …`.
  if (is_alpha(c)) {
    std::size_t i = 1;
    while (i < s.size() && i < 48 && (is_alpha(s[i]) || is_digit(s[i]) || s[i] == '_' || s[i] == '.')) ++i;
    if (i + 1 < s.size() && s[i] == ':' && s[i + 1] == ' ') return true;
  }
  return nccl_prefix_length(s) != 0;  // NCCL_DEBUG: `node-3:4411:4490 [1] NCCL INFO …`
}

/// Signal ids a raw line's peeled message matches, with the captures each filled.
struct Profile {
  std::vector<std::pair<const text::Signal*, int>> hits;
  int captures(const text::Signal* s) const {
    for (const auto& [sig, n] : hits)
      if (sig == s) return n;
    return -1;
  }
};

class Joiner {
 public:
  explicit Joiner(const text::SignalSet& signals) : signals_(signals) {
    for (const auto& s : signals.signals())
      for (const auto& l : s.literals) max_literal_ = std::max(max_literal_, l.size());
  }

  Profile profile(Sv raw) const {
    Profile p;
    const PeeledLine peeled = peel_line(raw);
    for (const auto& m : signals_.match(peeled.message, "app_log")) {
      int n = 0;
      for (const auto& c : m.captures) n += c.value.empty() ? 0 : 1;
      p.hits.emplace_back(m.signal, n);
    }
    return p;
  }

  /// Could some signal's literal lie in `joined`, built from `left` + `sep` + `right`? Exact
  /// (a literal in either piece, or across the seam); with the prefilter off, always yes.
  bool may_match(bool left_hit, Sv left, Sv sep, Sv right, bool& right_hit) const {
    if (!signals_.prefilter()) return right_hit = true;
    right_hit = signals_.candidate(right) || has_escape(right);
    if (left_hit || right_hit) return true;
    const std::size_t k = max_literal_ > 0 ? max_literal_ - 1 : 0;
    std::string seam(left.substr(left.size() > k ? left.size() - k : 0));
    seam += sep;
    seam += right.substr(0, std::min(k, right.size()));
    return signals_.candidate(seam);
  }

  bool hit(Sv s) const { return !signals_.prefilter() || signals_.candidate(s) || has_escape(s); }

 private:
  static bool has_escape(Sv s) { return s.find('\x1b') != Sv::npos || s.find("^[[") != Sv::npos; }
  const text::SignalSet& signals_;
  std::size_t max_literal_ = 0;
};

/// How `joined` compares with its pieces: it must keep every signal a piece matched (and no
/// two pieces may match one signal: joining would merge two matches into one), and gain a
/// signal, or a capture from a last piece that matches nothing of its own (a line that is a
/// record itself, `NVRM: … fallen off the bus` after an Xid line, is not a tail).
enum class Verdict { loses, same, gains };
Verdict compare(const Profile& joined, const std::vector<const Profile*>& pieces) {
  bool gains = false;
  const bool tail_is_bare = pieces.back()->hits.empty();
  std::vector<const text::Signal*> seen;
  for (const Profile* p : pieces)
    for (const auto& [sig, n] : p->hits) {
      if (std::find(seen.begin(), seen.end(), sig) != seen.end()) return Verdict::loses;
      seen.push_back(sig);
      const int j = joined.captures(sig);
      if (j < 0) return Verdict::loses;
      gains = gains || (tail_is_bare && j > n);
    }
  for (const auto& [sig, n] : joined.hits)
    if (std::find(seen.begin(), seen.end(), sig) == seen.end()) gains = true;
  return gains ? Verdict::gains : Verdict::same;
}

/// The gutter at the start of `line`, if one can start there (length 0: none).
Gutter gutter_of(Sv line) {
  if (line.empty() || !(is_digit(line[0]) || line[0] == ' ' || line[0] == 'L')) return {};
  return read_gutter(line);
}

/// gutters()'s first look at `lines` (each one's text: `text_of`): false where no gutter column
/// can be, with fewer than 3 lines or more than a tenth of the non-blank ones without a gutter,
/// found within the first tenth of a log that has none.
template <class Lines, class TextOf>
bool may_have_gutters(const Lines& lines, TextOf text_of) {
  const std::size_t n = lines.size();
  if (n < 3) return false;
  std::size_t misses = 0;
  for (const auto& line : lines) {
    const Sv text = text_of(line);
    if (!text.empty() && gutter_of(text).length == 0 && ++misses * 10 > n) return false;
  }
  return true;
}

/// chrome()'s first look: whether `line` starts with a byte CI chrome, a quote, a fence or a
/// terminal marker can start with (a `[` only where the line also ends with `]`).
/// `s`: the line less its leading blanks (text::trim_left), where the caller has it.
bool may_be_chrome(Sv line, Sv s) {
  if (s.empty()) return false;
  const char c = s[0];
  // `A` only for Buildkite's "Actions for L<n>" (is_buildkite_actions): a syslog month (`Apr`,
  // `Aug`) opens every line of a kern.log, and each sent the whole text down the repair path.
  if (!(c == '`' || c == '~' || c == '>' || c == '\\' || c == '#' || (c == 'A' && s.starts_with("Actions for L")) ||
        c == '[' || (is_digit(c) && gha_stamp(line))))
    return false;
  return c != '[' || s.back() == ']';
}
bool may_be_chrome(Sv line) { return may_be_chrome(line, text::trim_left(line)); }

/// join_wraps's first look at two neighbouring input lines, each less its leading blanks:
/// whether `next` may continue `line` (neither blank, and `next` starts no record of its own).
bool may_continue_trimmed(Sv line, Sv next) { return !next.empty() && !starts_record(next) && !line.empty(); }
bool may_continue(Sv line, Sv next) { return may_continue_trimmed(text::trim_left(line), text::trim_left(next)); }

class Repairer {
 public:
  Repairer(const text::SignalSet* signals, RepairReport& report, const RepairOptions& options)
      : signals_(signals), report_(report), options_(options) {}

  bool run(Sv text, std::string& storage, LineMap& map, std::vector<Sv>* unchanged_lines);

 private:
  Sv own(std::string s) { return arena_.emplace_back(std::move(s)); }
  /// Whether the stages run on `text` (or its lines) apply at all.
  bool escapes_text(Sv text) const { return !options_.structured && has_text_escape(text, options_.rare); }
  bool joins_lines() const { return signals_ && !options_.structured; }
  bool escaped_newlines(Sv text) const { return options_.rare.may_hold('\\') && text.find("\\n") != Sv::npos; }
  /// True when no stage would change `lines`, the split of `text`, by each stage's first look
  /// (run() then builds no line list): no chrome, no gutter column, no escape, no wrap.
  bool nothing_to_repair(Sv text, const std::vector<Sv>& lines) const;
  void chrome();
  void gutters();
  void ansi_text();
  void unescape();
  void join_wraps();

  const text::SignalSet* signals_;
  RepairReport& report_;
  const RepairOptions& options_;
  std::vector<RLine> lines_;
  std::deque<std::string> arena_;
  bool moved_ = false;    // a line was dropped, split or joined
  bool changed_ = false;  // some text changed
};

void Repairer::chrome() {
  // Cheap look first: does any line start with a chrome byte?
  if (std::none_of(lines_.begin(), lines_.end(), [](const RLine& l) { return may_be_chrome(l.text); })) return;
  std::vector<RLine> out;
  out.reserve(lines_.size());
  Sv pending_number;  // the "<n>" line Buildkite prints after "Actions for L<n>"
  for (RLine l : lines_) {
    if (!pending_number.empty()) {
      const Sv s = text::trim(l.text);
      const Sv n = pending_number;
      pending_number = {};
      if (s == n) {
        report_.ci_chrome.add(l.first);
        moved_ = true;
        continue;
      }
    }
    if (const std::size_t q = quote_marker(l.text)) {
      l.text = l.text.substr(q);
      report_.quote.add(l.first);
      changed_ = true;
    }
    if (is_fence(l.text)) {
      report_.fence.add(l.first);
      moved_ = true;
      continue;
    }
    Sv number;
    if (is_buildkite_actions(l.text, number)) {
      pending_number = number;
      report_.ci_chrome.add(l.first);
      moved_ = true;
      continue;
    }
    if (is_terminal_marker(l.text)) {
      report_.terminal.add(l.first);
      moved_ = true;
      continue;
    }
    const std::size_t stamp = gha_stamp(l.text);
    if (const std::size_t cmd = gha_command(l.text.substr(stamp))) {
      report_.ci_chrome.add(l.first);
      const Sv rest = l.text.substr(stamp + cmd);
      if (text::trim(rest).empty()) {
        moved_ = true;
        continue;
      }
      l.text = stamp == 0 ? rest : own(std::string(l.text.substr(0, stamp)) + std::string(rest));
      changed_ = true;
    }
    out.push_back(l);
  }
  lines_ = std::move(out);
}

void Repairer::gutters() {
  // A viewer numbers every line: consecutive numbers on at least 90% of the non-blank lines
  // (3 or more). A number column that does not count up by one (pids, sizes) is data.
  if (!may_have_gutters(lines_, [](const RLine& l) { return l.text; })) return;
  const std::size_t n = lines_.size();
  std::vector<Gutter> g;
  g.reserve(n);
  for (const RLine& l : lines_) g.push_back(gutter_of(l.text));
  std::vector<bool> seq(n, false);
  std::size_t in_seq = 0, nonblank = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (lines_[i].text.empty()) continue;
    ++nonblank;
    if (g[i].length == 0) continue;
    const bool after = i > 0 && g[i - 1].length && g[i].number == g[i - 1].number + 1;
    const bool before = i + 1 < n && g[i + 1].length && g[i + 1].number == g[i].number + 1;
    seq[i] = after || before;
    in_seq += seq[i];
  }
  if (in_seq < 3 || in_seq * 10 < nonblank * 9) return;
  for (std::size_t i = 0; i < n; ++i) {
    if (!seq[i]) continue;
    lines_[i].text = lines_[i].text.substr(g[i].length);
    report_.gutter.add(lines_[i].first);
  }
  changed_ = true;
}

void Repairer::ansi_text() {
  for (RLine& l : lines_) {
    const Sv s = l.text;
    // A JSON document's line keeps its `\u001b` escapes: a raw ESC inside a string is not JSON.
    const Sv head = text::trim_left(s);
    if (!head.empty() && (head[0] == '{' || head[0] == '"')) continue;
    if (!has_text_escape(s)) continue;
    std::string out;
    out.reserve(s.size());
    bool any = false;
    for (std::size_t i = 0; i < s.size();) {
      if (s[i] == '#' || s[i] == '\\') {
        if (const std::size_t n = text_escape(s, i)) {
          out += '\x1b';
          i += n;
          any = true;
          continue;
        }
      }
      out += s[i++];
    }
    if (!any) continue;
    l.text = own(std::move(out));
    report_.ansi_text.add(l.first);
    changed_ = true;
  }
}

void Repairer::unescape() {
  std::optional<Joiner> joiner;
  std::vector<RLine> out;
  bool split_any = false;
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    const RLine& l = lines_[i];
    if (std::memchr(l.text.data(), '\\', l.text.size()) == nullptr || l.text.find("\\n") == Sv::npos) {
      if (split_any) out.push_back(l);
      continue;
    }
    std::vector<std::string> pieces = split_escaped(l.text);
    if (pieces.size() < 2) {
      if (split_any) out.push_back(l);
      continue;
    }
    // Keep every signal the line matched: a value whose match needs the escaped form stays.
    if (!joiner) joiner.emplace(*signals_);
    const Profile whole = joiner->profile(l.text);
    std::vector<Profile> profiles;
    for (const auto& p : pieces) profiles.push_back(joiner->profile(p));
    bool keeps = true;
    for (const auto& [sig, n] : whole.hits) {
      bool found = false;
      for (const auto& p : profiles) found = found || p.captures(sig) >= 0;
      keeps = keeps && found;
    }
    if (!keeps) {
      if (split_any) out.push_back(l);
      continue;
    }
    if (!split_any) {
      out.assign(lines_.begin(), lines_.begin() + static_cast<std::ptrdiff_t>(i));
      split_any = true;
    }
    for (auto& p : pieces) out.push_back({own(std::move(p)), l.first, l.last});
    report_.unescape.add(l.first);
  }
  if (!split_any) return;
  lines_ = std::move(out);
  moved_ = changed_ = true;
}

void Repairer::join_wraps() {
  if (lines_.size() < 2) return;
  // The terminal's width: the widest lines, when two or more share it (a wrap makes every
  // longer line exactly that wide). Bytes, not columns: a wrapped line with UTF-8 in it
  // measures differently and is only joined as a hand wrap.
  std::size_t width = 0, at_width = 0;
  for (const RLine& l : lines_) {
    if (l.text.size() > width) {
      width = l.text.size();
      at_width = 0;
    }
    at_width += l.text.size() == width;
  }
  if (width < 50 || at_width < 2) width = 0;

  const Joiner joiner(*signals_);
  std::vector<std::optional<Profile>> profiles;  // sized on first use: most inputs never need one
  auto profile_of = [&](std::size_t i) -> const Profile& {
    if (profiles.empty()) profiles.resize(lines_.size());
    if (!profiles[i]) profiles[i] = joiner.profile(lines_[i].text);
    return *profiles[i];
  };
  constexpr std::size_t kMaxPieces = 8;
  std::vector<RLine> out;
  bool joined_any = false;
  // Can line k+1 continue line k? Not when it is blank, starts a record of its own (a stamp, a
  // bracketed or escaped prefix: in a log of records nothing is tried at all), or is a piece of
  // the same input line (split on purpose above).
  auto continues = [&](std::size_t k) {
    return lines_[k + 1].first != lines_[k].last && may_continue(lines_[k].text, lines_[k + 1].text);
  };
  for (std::size_t i = 0; i < lines_.size();) {
    const RLine& first = lines_[i];
    std::size_t best = i;
    std::string best_text;
    if (i + 1 < lines_.size() && continues(i)) {
      std::string cur(first.text);
      bool cur_hit = joiner.hit(cur);
      std::vector<const Profile*> pieces;
      Profile best_profile;  // the best join's so far: a further line must gain on it, not on the raw pieces
      for (std::size_t k = i; k + 1 < lines_.size() && k + 1 - i < kMaxPieces && continues(k); ++k) {
        const bool fixed = width > 0 && lines_[k].text.size() == width;
        const Sv next = lines_[k + 1].text;
        const Sv sep = fixed ? Sv() : Sv(" ");
        const Sv right = fixed ? next : text::trim_left(next);
        if (!fixed) cur.resize(trim_right(cur).size());
        bool right_hit = false;
        const bool may = joiner.may_match(cur_hit, cur, sep, right, right_hit);
        if (!may && !fixed) break;
        cur += sep;
        cur += right;
        cur_hit = cur_hit || right_hit;
        if (!may) continue;  // a fixed-width chain goes on: its message may end further down
        pieces.clear();
        if (best > i) pieces.push_back(&best_profile);
        for (std::size_t p = best > i ? best + 1 : i; p <= k + 1; ++p) pieces.push_back(&profile_of(p));
        Profile joined = joiner.profile(cur);
        const Verdict v = compare(joined, pieces);
        if (v == Verdict::loses) break;
        if (v == Verdict::gains) {
          best = k + 1;
          best_text = cur;
          best_profile = std::move(joined);
        } else if (!fixed) {
          break;  // a hand wrap must pay its way at every line
        }
      }
    }
    if (best == i) {
      if (joined_any) out.push_back(first);
      ++i;
      continue;
    }
    if (!joined_any) {
      out.assign(lines_.begin(), lines_.begin() + static_cast<std::ptrdiff_t>(i));
      joined_any = true;
    }
    out.push_back({own(std::move(best_text)), first.first, lines_[best].last});
    report_.join.add(first.first, static_cast<std::int64_t>(best - i + 1));
    i = best + 1;
  }
  if (!joined_any) return;
  lines_ = std::move(out);
  moved_ = changed_ = true;
}

bool Repairer::nothing_to_repair(Sv text, const std::vector<Sv>& lines) const {
  // The chrome's and the wraps' first looks in one walk, each line's blanks trimmed once (a
  // call of each per line was 3 % of a scan).
  const bool joins = joins_lines();
  Sv previous;  // trimmed; the first line continues none
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Sv trimmed = text::trim_left(lines[i]);
    if (may_be_chrome(lines[i], trimmed) || (joins && i > 0 && may_continue_trimmed(previous, trimmed))) return false;
    previous = trimmed;
  }
  const auto itself = [](Sv line) { return line; };
  if (may_have_gutters(lines, itself) || escapes_text(text)) return false;
  return !joins || !escaped_newlines(text);
}

bool Repairer::run(Sv text, std::string& storage, LineMap& map, std::vector<Sv>* unchanged_lines) {
  std::vector<Sv> views;
  if (unchanged_lines && !unchanged_lines->empty()) views.swap(*unchanged_lines);
  else views = text::split_lines(text, options_.rare);
  // Most texts need no repair, and each stage's own first look says so on the split itself:
  // then no line list is built (32 bytes a line, written and read again by every stage).
  if (nothing_to_repair(text, views)) {
    if (unchanged_lines) *unchanged_lines = std::move(views);
    return false;
  }
  lines_.reserve(views.size());
  for (std::size_t i = 0; i < views.size(); ++i) {
    const auto n = static_cast<std::int64_t>(i + 1);
    lines_.push_back({views[i], n, n});
  }
  chrome();
  gutters();
  if (escapes_text(text)) ansi_text();
  if (joins_lines()) {
    if (escaped_newlines(text)) unescape();
    join_wraps();
  }
  if (!changed_ && !moved_) {
    if (unchanged_lines) *unchanged_lines = std::move(views);
    return false;
  }
  if (unchanged_lines) unchanged_lines->clear();
  storage.clear();
  storage.reserve(text.size() + 16);
  for (std::size_t i = 0; i < lines_.size(); ++i) {
    if (i) storage += '\n';
    storage.append(lines_[i].text);
  }
  if (!text.empty() && (text.back() == '\n' || text.back() == '\r')) storage += '\n';
  map = {};
  if (moved_) {
    map.first.reserve(lines_.size());
    map.last.reserve(lines_.size());
    for (const RLine& l : lines_) {
      map.first.push_back(l.first);
      map.last.push_back(l.last);
    }
  }
  return true;
}

}  // namespace

std::string_view repair_text(std::string_view text, const text::SignalSet* signals, std::string& storage,
                             LineMap& map, RepairReport& report, const RepairOptions& options,
                             std::vector<std::string_view>* unchanged_lines) {
  report = {};
  map = {};
  Repairer r(signals, report, options);
  std::string out;
  if (!r.run(text, out, map, unchanged_lines)) return text;
  storage = std::move(out);
  return storage;
}

}  // namespace culprit::ingest::detail
