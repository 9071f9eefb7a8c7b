// Paste segmentation. Shell prompts (and a bug report's section rules) cut the text into
// sections and name their host; in each, the format table's block detectors find structured
// blocks, and its line classes split the gaps into kernel-log and app-log runs (format_table.hpp).
#include "culprit/ingest/sniff.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>

#include "culprit/text/block_scanner.hpp"
#include "culprit/text/lines.hpp"
#include "culprit/text/pattern.hpp"
#include "ingest/format_table.hpp"
#include "ingest/line_hits.hpp"
#include "ingest/signal_events.hpp"

namespace culprit::ingest {
namespace {

using text::contains;
using text::starts_with;
using text::trim;

// `user@host:~/dir$ cmd`, `root@host:/# cmd`, `[user@host dir]$ cmd`, `(venv) user@host:~$ cmd`.
const text::Pattern& prompt_re() {
  static const text::Pattern re(
      R"(^(?:\([^)]*\) )?(?:\[)?(?P<user>[A-Za-z0-9_.-]+)@(?P<host>[A-Za-z0-9_.-]+)(?::[^\s$#]*|\s[^\]]*\])?[$#](?: (?P<cmd>.*))?$)");
  return re;
}

/// How far into a line a prompt's `@` may be (the user name and a venv's tag before it).
constexpr std::size_t kPromptAtWithin = 65;

bool match_plain_prompt(std::string_view line, std::string& host, std::string& cmd);

/// Matches a prompt line; fills host and command. A coloured prompt (Ubuntu's default PS1 as
/// `script` or `tmux capture-pane -e` record it: `ESC[01;32muser@host ESC[00m:…$`) is read
/// without its escapes, as the log lines after it are.
bool match_prompt(std::string_view line, std::string& host, std::string& cmd) {
  if (line.size() > 512 || line.size() < 4) return false;
  if (line[0] == '\x1b' || line[0] == '^' || (line[0] == '(' && text::has_ansi(line))) {
    if (!text::has_ansi(line)) return false;
    return match_plain_prompt(text::strip_ansi(line), host, cmd);
  }
  return match_plain_prompt(line, host, cmd);
}

/// match_prompt for a line without escapes.
bool match_plain_prompt(std::string_view line, std::string& host, std::string& cmd) {
  // Cheap rejections first: this runs on every line that may be a prompt.
  if (line.size() > 512 || line.size() < 4) return false;
  // The regex's first bytes: a venv's `(`, or a user name (`[A-Za-z0-9_.-]`), after an optional
  // `[` (a dmesg stamp's `[ ` is no prompt).
  using text::is_host_char;
  if (!(line[0] == '(' || is_host_char(line[0]) || (line[0] == '[' && is_host_char(line[1])))) return false;
  const auto at = line.substr(0, kPromptAtWithin).find('@');  // the user@host part starts a prompt
  if (at == std::string_view::npos) return false;
  if (line.find_first_of("$#", at) == std::string_view::npos) return false;
  std::vector<text::Capture> caps;
  if (!prompt_re().match(line, caps)) return false;
  host.clear();
  cmd.clear();
  for (const auto& c : caps) {
    if (c.name == "host") host = c.value;
    if (c.name == "cmd") cmd = c.value;
  }
  return true;
}

/// The indexes of the lines that may be prompts, in order: those with an `@` in their first
/// kPromptAtWithin bytes (match_prompt's own test), found by memchr over the lines' text, which
/// most logs hold none of, instead of a call per line. `lines` are split_lines of one text.
std::vector<std::size_t> lines_with_prompt_at(const std::vector<std::string_view>& lines) {
  std::vector<std::size_t> out;
  if (lines.empty()) return out;
  const char* p = lines.front().data();
  const char* const end = lines.back().data() + lines.back().size();
  std::size_t k = 0;
  while (p < end) {
    const auto* at = static_cast<const char*>(std::memchr(p, '@', static_cast<std::size_t>(end - p)));
    if (at == nullptr) break;
    while (lines[k].data() + lines[k].size() <= at) ++k;  // the line holding it (terminators hold no `@`)
    if (static_cast<std::size_t>(at - lines[k].data()) < kPromptAtWithin) out.push_back(k);
    p = lines[k].data() + lines[k].size();  // on from the line's end
  }
  return out;
}

struct Block {
  size_t begin, end;  // [begin, end) line indexes
  const FormatSpec* format;
};

/// The blocks the table's block detectors find in [b, e): at each line the best-ranked detector
/// that finds something wins; a block may start above its anchor, never inside the previous one.
std::vector<Block> structured_blocks(const std::vector<std::string_view>& lines, size_t b, size_t e,
                                     const std::vector<unsigned char>* anchored) {
  std::vector<Block> blocks;
  Scan scan{lines, b, e};
  scan.anchored = anchored;
  // A line holding no anchor literal (most of them) is asked only the rows whose shape its first
  // byte does not rule out (most lines: none but the pattern-gated nvidia-smi CSV row).
  const auto rank = formats_by_rank(Scope::block);
  const ShapedRows& shaped = shaped_by_rank(Scope::block);
  size_t i = b;
  while (i < e) {
    Detection d;
    const FormatSpec* format = nullptr;
    for (const FormatSpec* f : scan.may_anchor(i) ? rank : shaped.at(lines[i], scan.boot_stamp(i))) {
      if (!may_anchor(*f, scan, i)) continue;  // no anchor of its own on this line: nothing to find
      d = f->detect(scan, i);
      if (d.found()) {
        format = f;
        break;
      }
    }
    if (!format) {
      ++i;
      continue;
    }
    if (!d.opaque) blocks.push_back({blocks.empty() ? d.begin : std::max(d.begin, blocks.back().end), d.end, format});
    i = d.end;
  }
  return blocks;
}

/// Splits [b, e) (no blocks inside) into runs of the line classes (kernel text) and fallback
/// (app-log) runs between them.
void split_line_runs(const std::vector<std::string_view>& lines, size_t b, size_t e,
                     const std::vector<unsigned char>* anchored, std::vector<Block>& out) {
  Scan scan{lines, b, e};
  scan.anchored = anchored;
  const auto rank = formats_by_rank(Scope::line);
  const FormatSpec* fallback = &fallback_format();
  auto claimed = [&](size_t k) {
    for (const FormatSpec* f : rank)
      if (may_anchor(*f, scan, k) && f->claims_line(lines[k])) return true;
    return false;
  };
  size_t i = b;
  while (i < e) {
    const FormatSpec* format = nullptr;
    Detection d;
    for (const FormatSpec* f : rank) {
      d = f->detect(scan, i);
      if (d.found()) {
        format = f;
        break;
      }
    }
    if (!format) {
      d = {i, i + 1};
      while (d.end < e && !claimed(d.end)) ++d.end;
      format = fallback;
    }
    out.push_back({i, d.end, format});
    i = d.end;
  }
}

/// The format a typed command announces for the first lines of its output; nullptr if none.
const FormatSpec* announced_format(std::string_view cmd) {
  for (const FormatSpec& f : format_table())
    if (f.announced_by && f.announced_by(cmd)) return &f;
  return nullptr;
}

/// Where the build prebuilt no database for the anchors (another build of the format table), the
/// pass saves ~3 ms of detector checks per MB (the bench corpus) and compiling the ~90 anchor
/// literals costs about what 16 MiB of that saves.
constexpr std::size_t kAnchorPassAfterBytes = std::size_t{16} << 20;

/// Per line of `lines`, whether it holds one of the format table's anchor literals: one block
/// pass (text::BlockScanner, which decides when a pass pays), so that the detectors look only at
/// those lines and at the shapes no literal tells. nullptr (every line is asked) where the scanner
/// declines, or where the build has no SIMD matcher (the automaton is no faster than the
/// detectors' own checks); CULPRIT_BLOCK_SCAN=always takes the pass on every text (the
/// equivalence test).
std::unique_ptr<std::vector<unsigned char>> anchored_lines(std::string_view text,
                                                           const std::vector<std::string_view>& lines) {
  static const text::BlockScanner scanner(anchor_literals(), text::BlockScanner::Engine::automatic,
                                          kAnchorPassAfterBytes);
  std::vector<size_t> ends;
  if (!scanner.hit_lines(text, ends)) return nullptr;
  auto out = std::make_unique<std::vector<unsigned char>>(lines.size(), 0);
  LineOfEnd line_of(text, lines);  // hits come in order of their line
  for (const size_t end : ends) {
    const size_t k = line_of(end);
    if (k == lines.size()) break;
    (*out)[k] = kAnchoredBit | kKernelAnchorBit;  // the pass tells no literal: any row's
  }
  mark_short_anchors(text, lines, *out);
  mark_boot_stamps(lines, *out);
  return out;
}

std::string_view slice(std::string_view text, const std::vector<std::string_view>& lines, size_t b, size_t e) {
  if (b >= e) return {};
  const char* start = lines[b].data();
  const char* stop = lines[e - 1].data() + lines[e - 1].size();
  (void)text;
  return std::string_view(start, static_cast<size_t>(stop - start));
}

}  // namespace

/// Commands that report on a job from wherever they are typed (a login node): Slurm's accounting
/// and queue tools, PBS's qstat. Their output is about the job's nodes, never about the prompt's
/// host. (kubectl is not among them: `kubectl describe` typed on a node is read as that node's,
/// as its own `Node:` field says.)
constexpr std::string_view kClusterQueries[] = {"sacct", "sstat", "squeue", "scontrol", "sinfo", "qstat"};

/// Whether `cmd` runs one of kClusterQueries (after `sudo` / `watch` and their options).
bool queries_cluster(std::string_view cmd) {
  std::size_t i = 0;
  for (;;) {
    while (i < cmd.size() && (cmd[i] == ' ' || cmd[i] == '\t')) ++i;
    std::size_t e = i;
    while (e < cmd.size() && cmd[e] != ' ' && cmd[e] != '\t') ++e;
    std::string_view word = cmd.substr(i, e - i);
    if (const auto slash = word.rfind('/'); slash != std::string_view::npos) word.remove_prefix(slash + 1);
    if (word == "sudo" || word == "watch" || (!word.empty() && word[0] == '-')) {
      if (e == i) return false;
      i = e;
      continue;
    }
    for (std::string_view q : kClusterQueries)
      if (word == q) return true;
    return false;
  }
}

std::string host_from_command_line(std::string_view line) {
  std::string host, cmd;
  if (!match_prompt(line, host, cmd)) cmd = std::string(line);
  // `sacct -j 4412873` on a login node reports on the job's nodes: its output is no login01's.
  if (queries_cluster(cmd)) host.clear();
  // The last `ssh [opts] [user@]dest` hop names where the output came from. Options that take
  // a value (-p 22, -i key, -o X, -J jump, -l user) skip their value.
  static const std::string_view kValued = "bcDEeFIiJLlmOoPpRSWw";
  std::string_view rest(cmd);
  for (size_t at = rest.find("ssh"); at != std::string_view::npos; at = rest.find("ssh", at + 3)) {
    const bool word_start = at == 0 || std::string_view(" \t'\"(;&|").find(rest[at - 1]) != std::string_view::npos;
    if (!word_start || at + 3 >= rest.size() || (rest[at + 3] != ' ' && rest[at + 3] != '\t')) continue;
    size_t i = at + 3;
    auto next_token = [&]() {
      while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\t')) ++i;
      size_t b = i;
      while (i < rest.size() && rest[i] != ' ' && rest[i] != '\t' && rest[i] != '\'' && rest[i] != '"') ++i;
      return rest.substr(b, i - b);
    };
    for (std::string_view tok = next_token(); !tok.empty(); tok = next_token()) {
      if (tok[0] == '-') {
        if (tok.size() == 2 && kValued.find(tok[1]) != std::string_view::npos) next_token();
        continue;
      }
      const size_t atsign = tok.find('@');
      std::string_view dest = atsign == std::string_view::npos ? tok : tok.substr(atsign + 1);
      if (!dest.empty() && std::isalnum(static_cast<unsigned char>(dest[0]))) host = std::string(dest);
      break;
    }
  }
  return host;
}

std::string not_text_format(std::string_view text) {
  if (trim(text).empty()) return std::string(format::kEmpty);
  const size_t probe = std::min<size_t>(text.size(), 8192);
  size_t bad = 0;
  // Most texts hold no control byte at all, which one pass tells (then neither a NUL nor a bad
  // byte is there). A worker log's colour codes make ESC one on every line: then the NUL is
  // looked for by memchr and the others counted in vectors (a branch per byte here was 5.8 % of
  // a batch of small files' CPU).
  if (text::has_control_bytes(text.substr(0, probe))) {
    if (std::memchr(text.data(), '\0', probe) != nullptr) return std::string(format::kBinary);
    bad = text::count_controls(text.substr(0, probe), [](std::uint8_t c) {
      return static_cast<std::uint8_t>((c == '\n') + (c == '\r') + (c == '\t') + (c == 0x1b));
    });
  }
  if (bad * 10 > probe) return std::string(format::kBinary);
  return {};
}

std::string majority_format(const std::vector<Segment>& segments) {
  if (segments.empty()) return std::string(format::kEmpty);
  // The format covering most lines wins.
  std::string best;
  size_t best_lines = 0;
  for (const auto& seg : segments) {
    size_t n = text::count_newlines(seg.text) + 1;
    if (n > best_lines) { best_lines = n; best = seg.format; }
  }
  return best;
}

std::string sniff_format(std::string_view text) {
  if (std::string kind = not_text_format(text); !kind.empty()) return kind;
  return majority_format(segment_text(text));
}

/// A line of underscores: the section separator of nvidia-bug-report.log.
bool is_section_rule(std::string_view line) {
  return line.size() >= 40 && line.find_first_not_of('_') == std::string_view::npos;
}

/// The host an nvidia-bug-report.log names in its header (`uname: Linux <host> …`), or ''.
std::string bug_report_host(const std::vector<std::string_view>& lines) {
  for (size_t i = 0; i < lines.size() && i < 40; ++i) {
    if (!starts_with(lines[i], "uname: ")) continue;
    std::string_view rest = lines[i].substr(7);
    const auto sp = rest.find(' ');
    if (sp == std::string_view::npos) return {};
    rest = rest.substr(sp + 1);
    return std::string(rest.substr(0, rest.find(' ')));
  }
  return {};
}

std::vector<Segment> segment_text(std::string_view text) { return segment_text(text, text::split_lines(text)); }

std::vector<Segment> segment_text(std::string_view text, const std::vector<std::string_view>& lines,
                                  const std::vector<std::uint8_t>* line_hits, const text::RareBytes& rare) {
  std::vector<Segment> segments;
  // The lines split_lines gives for lines [b, e): a text stops at the end of its last line, so
  // where that line is empty it stops after the terminator before it, which ends no line.
  const auto line_count = [&lines](std::size_t b, std::size_t e) { return e - b - (e > b && lines[e - 1].empty()); };
  // 1. Prompts split the text into command sections (and a bug report's separators into its
  //    sections, all on the report's host).
  bool bug_report = false;
  for (size_t i = 0; i < lines.size() && i < 8; ++i)
    bug_report |= contains(lines[i], "Start of NVIDIA bug report log file");
  const std::string report_host = bug_report ? bug_report_host(lines) : std::string();
  std::vector<std::pair<size_t, std::string>> starts;  // line index, host
  std::vector<std::string> commands;
  starts.push_back({0, report_host});
  commands.emplace_back();
  const auto section_start = [&](std::size_t i) {
    std::string host, cmd;
    if (match_prompt(lines[i], host, cmd)) {
      starts.push_back({i, host_from_command_line(lines[i])});
      commands.push_back(cmd);
    } else if (bug_report && is_section_rule(lines[i])) {
      starts.push_back({i, report_host});
      commands.push_back(i + 2 < lines.size() ? std::string(trim(lines[i + 2])) : std::string());
    }
  };
  if (bug_report) {
    for (size_t i = 0; i < lines.size(); ++i) section_start(i);
  } else if (rare.may_hold('@')) {
    for (const size_t i : lines_with_prompt_at(lines)) section_start(i);
  }
  starts.push_back({lines.size(), ""});
  // The input's one pass marks anchored lines in its kAnchorHit bit, Scan::anchored's own.
  std::unique_ptr<std::vector<unsigned char>> own_pass;
  const std::vector<unsigned char>* anchored = line_hits;
  if (!line_hits || line_hits->size() != lines.size()) {
    own_pass = anchored_lines(text, lines);
    anchored = own_pass.get();
  }
  for (size_t s = 0; s + 1 < starts.size(); ++s) {
    size_t b = starts[s].first;
    const size_t e = starts[s + 1].first;
    const bool prompt = s > 0;
    if (prompt) ++b;  // the prompt line itself is not output
    if (b >= e) continue;
    // 2. Structured blocks, then kernel / app runs in the gaps.
    std::vector<Block> blocks;
    // The command says what its first lines are (`nvidia-smi --query-gpu=… --format=csv,noheader`
    // prints bare values no anchor can tell); what follows them is sniffed as usual.
    size_t cursor = b;
    if (const FormatSpec* hinted = prompt ? announced_format(commands[s]) : nullptr) {
      size_t end = b;
      while (end < e && hinted->continues(lines[end])) ++end;
      while (end > b && trim(lines[end - 1]).empty()) --end;
      if (end > b) blocks.push_back({b, end, hinted});
      cursor = end;
    }
    auto structured = structured_blocks(lines, cursor, e, anchored);
    for (const auto& blk : structured) {
      if (blk.begin > cursor) split_line_runs(lines, cursor, blk.begin, anchored, blocks);
      blocks.push_back(blk);
      cursor = blk.end;
    }
    if (cursor < e) split_line_runs(lines, cursor, e, anchored, blocks);
    for (const auto& blk : blocks) {
      Segment seg;
      seg.text = slice(text, lines, blk.begin, blk.end);
      if (trim(seg.text).empty()) continue;
      seg.first_line = static_cast<std::int64_t>(blk.begin) + 1;
      seg.format = std::string(blk.format->id);
      seg.host = starts[s].second;
      seg.command = commands[s];
      seg.line_count = line_count(blk.begin, blk.end);
      segments.push_back(seg);
    }
  }
  // Merge neighbouring runs of a format that merges (a short run between two app-log runs is
  // usually noise); snapshots (tables, listings) stay one segment each.
  std::vector<Segment> merged;
  for (auto& seg : segments) {
    if (!merged.empty() && merged.back().format == seg.format && merged.back().host == seg.host &&
        merged.back().command == seg.command && find_format(seg.format)->merges) {
      Segment& into = merged.back();
      const char* start = into.text.data();
      const char* stop = seg.text.data() + seg.text.size();
      into.text = std::string_view(start, static_cast<size_t>(stop - start));
      // Every line from its first to the end of `seg`'s (and `seg`'s last-line rule).
      into.line_count = static_cast<std::size_t>(seg.first_line - into.first_line) + seg.line_count;
      continue;
    }
    merged.push_back(std::move(seg));
  }
  return merged;
}

}  // namespace culprit::ingest
