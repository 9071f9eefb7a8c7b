// Python traceback assembly (CPython's format, incl. 3.11+ caret lines and chained exceptions;
// IPython/Jupyter's `Cell In[3], line 5` / `----> 5` rendering; Rich's boxed rendering). Membership is decided per line from indentation and anchors:
// `File "…", line N, in f` frames, indented source lines, and a final unindented
// `ExcType: message` line; anything else ends the traceback (truncated when no exception yet).
#include "ingest/formats/traceback.hpp"

#include <array>
#include <cctype>

#include "culprit/text/lines.hpp"

namespace culprit::ingest {

namespace {

using Sv = std::string_view;

constexpr Sv kTracebackAnchor = "Traceback (most recent call last)";
constexpr Sv kBoxTopLeft = "\xE2\x95\xAD";      // ╭
constexpr Sv kBoxBottomLeft = "\xE2\x95\xB0";   // ╰
constexpr Sv kBoxVertical = "\xE2\x94\x82";     // │
constexpr Sv kDuringHandling = "During handling of the above exception, another exception occurred:";
constexpr Sv kDirectCause = "The above exception was the direct cause of the following exception:";


std::size_t indent_of(Sv s) {
  std::size_t i = 0;
  while (i < s.size() && (s[i] == ' ' || s[i] == '\t')) ++i;
  return i;
}

// `File "path", line N, in func` (the `, in func` part is absent for SyntaxError frames).
bool parse_frame(Sv t, TracebackFrame& f) {
  if (t.substr(0, 6) != "File \"") return false;
  const std::size_t q = t.find('"', 6);
  if (q == Sv::npos) return false;
  f.file = std::string(t.substr(6, q - 6));
  Sv r = t.substr(q + 1);
  if (r.substr(0, 7) != ", line ") return true;
  r.remove_prefix(7);
  std::int64_t n = 0;
  std::size_t i = 0;
  while (i < r.size() && r[i] >= '0' && r[i] <= '9' && i < 12) n = n * 10 + (r[i++] - '0');
  f.line = n;
  r.remove_prefix(i);
  if (r.substr(0, 5) == ", in ") f.func = std::string(text::trim_blanks(r.substr(5)));
  return true;
}

// Rich frame header inside the box: `/path/to/file.py:42 in forward`.
bool parse_rich_frame(Sv content, TracebackFrame& f) {
  const std::size_t in = content.rfind(" in ");
  if (in == Sv::npos || in == 0) return false;
  const Sv left = content.substr(0, in);
  if (left.find(' ') != Sv::npos) return false;
  const std::size_t colon = left.rfind(':');
  if (colon == Sv::npos || colon == 0 || colon + 1 == left.size()) return false;
  std::int64_t n = 0;
  for (std::size_t i = colon + 1; i < left.size(); ++i) {
    if (left[i] < '0' || left[i] > '9') return false;
    n = n * 10 + (left[i] - '0');
  }
  const Sv func = text::trim_blanks(content.substr(in + 4));
  if (func.empty() || func.find(' ') != Sv::npos) return false;
  f.file = std::string(left.substr(0, colon));
  f.line = n;
  f.func = std::string(func);
  return true;
}

// IPython frame headers: `Cell In[3], line 5`, `File /x/y.py:40, in f(*args)`,
// `<ipython-input-3-4c5d> in <module>`, `/x/y.py in f(a, b)` (older IPython).
bool parse_ipython_frame(Sv t, TracebackFrame& f) {
  if (t.substr(0, 8) == "Cell In[") {
    const std::size_t comma = t.find("], line ");
    if (comma == Sv::npos) return false;
    f.file = std::string(t.substr(0, comma + 1));  // `Cell In[3]`
    f.line = 0;
    for (std::size_t i = comma + 8; i < t.size() && t[i] >= '0' && t[i] <= '9'; ++i)
      f.line = f.line * 10 + (t[i] - '0');
    f.func = "<cell>";
    return true;
  }
  Sv rest = t;
  if (rest.substr(0, 5) == "File ") rest.remove_prefix(5);
  const std::size_t in = rest.find(", in ") != Sv::npos ? rest.find(", in ") : rest.find(" in ");
  if (in == Sv::npos || in == 0) return false;
  const bool comma = rest.substr(in, 5) == ", in ";
  Sv where = rest.substr(0, in);
  if (where.find(' ') != Sv::npos && where.substr(0, 1) != "<") return false;
  if (where.find('/') == Sv::npos && where.substr(0, 1) != "<" && where.find(".py") == Sv::npos)
    return false;
  f.line = 0;
  const std::size_t colon = where.rfind(':');
  if (colon != Sv::npos && colon + 1 < where.size() && where[colon + 1] >= '0' && where[colon + 1] <= '9') {
    for (std::size_t i = colon + 1; i < where.size() && where[i] >= '0' && where[i] <= '9'; ++i)
      f.line = f.line * 10 + (where[i] - '0');
    where = where.substr(0, colon);
  }
  f.file = std::string(where);
  Sv func = rest.substr(in + (comma ? 5 : 4));
  const std::size_t paren = func.find('(');
  f.func = std::string(text::trim_blanks(func.substr(0, paren)));
  return !f.func.empty();
}

// IPython's header: `OutOfMemoryError                          Traceback (most recent call last)`
// (an exception type before the anchor, no colon after it).
bool looks_ipython(Sv message, std::size_t offset) {
  const Sv before = text::trim_blanks(message.substr(0, offset));
  if (before.empty() || before.find(':') != Sv::npos || before.find(' ') != Sv::npos) return false;
  if (message.substr(offset + kTracebackAnchor.size()).find(':') != Sv::npos) return false;
  std::string type, msg;
  return split_exception_line(before, type, msg);
}


}  // namespace


bool TracebackBuilder::opens(std::string_view message, std::size_t* offset) {
  const std::size_t pos = message.find(kTracebackAnchor);
  if (pos == Sv::npos) return false;
  std::size_t start = pos;
  const std::size_t box = message.substr(0, pos).find(kBoxTopLeft);
  if (box != Sv::npos) start = box;
  if (offset) *offset = start;
  return true;
}

TracebackBuilder::TracebackBuilder(std::int64_t seg_line, std::string_view message,
                                   PeeledLine start) {
  tb_.start = std::move(start);
  tb_.first_line = seg_line;
  tb_.last_line = seg_line;
  std::size_t offset = 0;
  opens(message, &offset);
  tb_.preamble = std::string(text::trim_blanks(message.substr(0, offset)));
  base_indent_ = indent_of(message);
  tb_.rich = message.substr(offset, kBoxTopLeft.size()) == kBoxTopLeft;
  tb_.ipython = !tb_.rich && looks_ipython(message, offset);
  if (tb_.ipython) tb_.preamble.clear();
  state_ = tb_.rich ? State::rich_box : tb_.ipython ? State::ipython_frames : State::frames;
}

std::size_t TracebackBuilder::rel_indent(std::string_view message) const {
  const std::size_t n = indent_of(message);
  return n > base_indent_ ? n - base_indent_ : 0;
}

void TracebackBuilder::restart(std::int64_t seg_line, std::string_view message) {
  tb_.chained = true;
  tb_.innermost.reset();
  tb_.innermost_own.reset();
  tb_.frames = 0;
  tb_.last_line = seg_line;
  std::size_t offset = 0;
  opens(message, &offset);
  const bool rich = message.substr(offset, kBoxTopLeft.size()) == kBoxTopLeft;
  const bool ipython = !rich && looks_ipython(message, offset);
  tb_.rich = tb_.rich || rich;
  tb_.ipython = tb_.ipython || ipython;
  state_ = rich ? State::rich_box : ipython ? State::ipython_frames : State::frames;
}

namespace {
/// A frame in installed or standard-library code, as paths print on Linux, macOS, Windows
/// and conda: the program's own frames are the others.
bool library_frame(std::string_view file) {
  for (std::string_view marker : {"site-packages", "dist-packages", "/lib/python3", "\\Lib\\", "/lib/python2",
                                  "<frozen ", "<string>", "/usr/lib64/python"})
    if (file.find(marker) != std::string_view::npos) return true;
  return false;
}
}  // namespace

void TracebackBuilder::note_frame(TracebackFrame f) {
  if (!library_frame(f.file)) tb_.innermost_own = f;
  tb_.innermost = std::move(f);
}

TracebackBuilder::Step TracebackBuilder::exception_line(std::int64_t seg_line, std::string_view t) {
  std::string type, msg;
  split_exception_line(t, type, msg);
  tb_.exc_line = seg_line;
  tb_.last_line = seg_line;
  tb_.exc_text = std::string(t);
  tb_.exc_type = std::move(type);
  tb_.exc_message = std::move(msg);
  ++tb_.exceptions;
  state_ = State::after_exception;
  return Step::exception;
}

TracebackBuilder::Step TracebackBuilder::frame_line(std::int64_t seg_line, std::string_view m) {
  const Sv t = text::trim_blanks(m);
  if (t.empty()) return Step::taken;
  TracebackFrame f;
  if (parse_frame(t, f)) {
    ++tb_.frames;
    note_frame(std::move(f));
    tb_.last_line = seg_line;
    return Step::taken;
  }
  if (t.substr(0, 23) == "[Previous line repeated" || rel_indent(m) > 0) {
    tb_.last_line = seg_line;
    return Step::taken;
  }
  // Another `Traceback` without a chain sentence is another writer's (unprefixed ranks
  // interleaving): this one ends, truncated, and the caller opens the next.
  if (opens(t)) return Step::rejected;
  std::string type, msg;
  if (split_exception_line(t, type, msg)) return exception_line(seg_line, t);
  return Step::rejected;
}

TracebackBuilder::Step TracebackBuilder::ipython_line(std::int64_t seg_line, std::string_view m) {
  const Sv t = text::trim_blanks(m);
  if (t.empty()) return Step::taken;
  TracebackFrame f;
  if (rel_indent(m) == 0 && parse_ipython_frame(t, f)) {
    ++tb_.frames;
    note_frame(std::move(f));
    tb_.last_line = seg_line;
    return Step::taken;
  }
  // Source lines: `      4 x = 1`, `----> 5 y = x * 2`, `--> 40     return f(*args)`, and
  // `-> 1858     ret = …` (IPython 8 shortens the arrow as the line number grows).
  const std::size_t dashes = t.find_first_not_of('-');
  const bool arrow = dashes != Sv::npos && dashes >= 1 && t[dashes] == '>';
  if (rel_indent(m) > 0 || t.substr(0, 2) == "--" || arrow) {
    tb_.last_line = seg_line;
    return Step::taken;
  }
  std::string type, msg;
  if (split_exception_line(t, type, msg)) return exception_line(seg_line, t);
  return Step::rejected;
}

TracebackBuilder::Step TracebackBuilder::offer(std::int64_t seg_line, std::string_view message) {
  const Sv t = text::trim_blanks(message);
  switch (state_) {
    case State::frames:
      return frame_line(seg_line, message);
    case State::ipython_frames:
      return ipython_line(seg_line, message);
    case State::rich_box: {
      if (t.empty()) return Step::taken;
      if (t.substr(0, kBoxVertical.size()) == kBoxVertical) {
        Sv content = t.substr(kBoxVertical.size());
        if (content.size() >= kBoxVertical.size() &&
            content.substr(content.size() - kBoxVertical.size()) == kBoxVertical)
          content.remove_suffix(kBoxVertical.size());
        TracebackFrame f;
        if (parse_rich_frame(text::trim_blanks(content), f)) {
          ++tb_.frames;
          note_frame(std::move(f));
        }
        tb_.last_line = seg_line;
        return Step::taken;
      }
      if (t.substr(0, kBoxBottomLeft.size()) == kBoxBottomLeft) {
        tb_.last_line = seg_line;
        state_ = State::after_box;
        return Step::taken;
      }
      return Step::rejected;
    }
    case State::after_box: {
      if (t.empty()) return Step::taken;
      std::string type, msg;
      if (rel_indent(message) == 0 && split_exception_line(t, type, msg))
        return exception_line(seg_line, t);
      return Step::rejected;
    }
    case State::after_exception:
      if (t.empty()) return Step::taken;
      if (t == kDuringHandling || t == kDirectCause) {
        tb_.chained = true;
        state_ = State::expect_traceback;
        return Step::taken;
      }
      return Step::rejected;
    case State::expect_traceback:
      if (t.empty() || (t.size() > 20 && t.find_first_not_of('-') == Sv::npos)) return Step::taken;
      if (opens(t)) {
        restart(seg_line, t);
        return Step::taken;
      }
      return Step::rejected;
  }
  return Step::rejected;
}

const Traceback& TracebackBuilder::result() {
  // Truncated when the last traceback of the chain never reached its exception line.
  tb_.truncated = state_ == State::frames || state_ == State::ipython_frames ||
                  state_ == State::rich_box || state_ == State::after_box;
  return tb_;
}

}  // namespace culprit::ingest
