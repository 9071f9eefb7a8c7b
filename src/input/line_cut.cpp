// LineCutter (see line_cut.hpp). Lines are found by memchr for \n; only a stretch between two
// \n longer than the keep is walked byte by byte (a lone \r also ends a line, NULs do not
// count), and once a line is cut its rest is skipped by memchr to the next terminator.
#include "input/line_cut.hpp"

#include <algorithm>
#include <cstring>

#include "culprit/input/reader.hpp"
#include "culprit/text/lines.hpp"

namespace culprit::input::detail {
namespace {

constexpr std::size_t kNone = std::string::npos;

/// The first \n or \r in `s` from `from`, or kNone.
std::size_t find_terminator(std::string_view s, std::size_t from) {
  if (from >= s.size()) return kNone;
  const char* p = s.data() + from;
  const std::size_t n = s.size() - from;
  const void* nl = std::memchr(p, '\n', n);
  const std::size_t span = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - p) : n;
  const void* cr = std::memchr(p, '\r', span);
  if (cr) return from + static_cast<std::size_t>(static_cast<const char*>(cr) - p);
  return nl ? from + span : kNone;
}

}  // namespace

void LineCutter::append(std::string& out, std::string_view chunk) {
  read_ += static_cast<std::int64_t>(chunk.size());
  if (keep_ == 0 || state_ == State::off) {
    out.append(chunk);
    return;
  }
  if (cutting_) {
    const std::size_t t = find_terminator(chunk, 0);
    if (t == kNone) {
      cuts_.back().bytes += static_cast<std::int64_t>(chunk.size());
      dropped_open_ += static_cast<std::int64_t>(chunk.size());
      return;
    }
    cuts_.back().bytes += static_cast<std::int64_t>(t);
    dropped_done_ += dropped_open_ + static_cast<std::int64_t>(t);
    dropped_open_ = 0;
    cutting_ = false;
    chunk.remove_prefix(t);
    scanned_ = line_start_ = walk_pos_ = walk_begin_ = out.size();  // at the terminator
    walk_count_ = 0;
  }
  out.append(chunk);
  if (state_ == State::undecided) {
    if (out.size() < kProbeBytes) return;  // nothing before kProbeBytes is dropped anyway
    decide(out);
    if (state_ == State::off) return;
  }
  scan(out);
}

bool reads_as_lines(std::string_view head) {
  head = head.substr(0, std::min<std::size_t>(head.size(), 4096));
  const bool utf16_bom = head.size() >= 2 && ((head[0] == '\xFF' && head[1] == '\xFE') ||
                                              (head[0] == '\xFE' && head[1] == '\xFF'));
  const bool nul = std::memchr(head.data(), '\0', head.size()) != nullptr;
  return !utf16_bom && !nul && !looks_like_archive(head.substr(0, std::min<std::size_t>(head.size(), 512)));
}

void LineCutter::decide(const std::string& out) { state_ = reads_as_lines(out) ? State::on : State::off; }

void LineCutter::scan(std::string& out) {
  while (scanned_ < out.size()) {
    const std::size_t end = out.size();
    // Lines no longer than the keep are skipped a keep's span at a time: the last \n within
    // keep_ bytes of the line's start ends every line before it, none of them over the keep.
    // (memrchr finds it near the span's end in ordinary text; no per-line pass.)
    const std::size_t span_end = std::min(end, line_start_ + keep_ + 1);
    if (span_end > scanned_) {
      const void* last = memrchr(out.data() + scanned_, '\n', span_end - scanned_);
      if (last) {
        const std::size_t e = static_cast<std::size_t>(static_cast<const char*>(last) - out.data());
        scanned_ = line_start_ = walk_pos_ = walk_begin_ = e + 1;
        walk_count_ = 0;
        continue;
      }
      if (span_end == end) {
        scanned_ = end;
        return;
      }
    }
    const void* nl = std::memchr(out.data() + scanned_, '\n', end - scanned_);
    const std::size_t e = nl ? static_cast<std::size_t>(static_cast<const char*>(nl) - out.data()) : end;
    if (e - line_start_ > keep_) {
      const std::size_t at = walk(out, e);
      if (at != kNone) {
        start_cut(out, at);
        if (cutting_) return;
        continue;  // the cut line ended inside this chunk: go on from its terminator
      }
    }
    if (!nl) {
      scanned_ = end;
      return;
    }
    scanned_ = line_start_ = walk_pos_ = walk_begin_ = e + 1;
    walk_count_ = 0;
  }
}

std::size_t LineCutter::walk(const std::string& out, std::size_t end) {
  std::size_t i = std::max(walk_pos_, line_start_);
  std::size_t count = walk_count_;
  for (; i < end; ++i) {
    const char c = out[i];
    if (c == '\r') {
      count = 0;
      walk_begin_ = i + 1;
      continue;
    }
    if (count >= keep_ && i >= probe_) {
      walk_pos_ = i;
      walk_count_ = count;
      return i;
    }
    if (c != '\0') ++count;
  }
  walk_pos_ = i;
  walk_count_ = count;
  return kNone;
}

void LineCutter::start_cut(std::string& out, std::size_t at) {
  const bool bom = walk_begin_ == 0 && taken_ == 0 && out.compare(0, 3, "\xEF\xBB\xBF") == 0;  // normalisation drops it
  // Past kMaxCutLines the lines cut are not noted one by one (a later piece may then lack its
  // note); the one being cut is always the last entry.
  if (cuts_.size() == kMaxCutLines) cuts_.pop_back();
  cuts_.push_back({line_at(out, walk_begin_), static_cast<std::int64_t>(at - walk_begin_) - (bom ? 3 : 0)});
  const std::size_t t = find_terminator(out, at);
  if (t == kNone) {
    cuts_.back().bytes += static_cast<std::int64_t>(out.size() - at);
    dropped_open_ += static_cast<std::int64_t>(out.size() - at);
    out.resize(at);
    scanned_ = at;
    cutting_ = true;
    return;
  }
  cuts_.back().bytes += static_cast<std::int64_t>(t - at);
  dropped_done_ += static_cast<std::int64_t>(t - at);
  out.erase(at, t - at);
  scanned_ = line_start_ = walk_pos_ = walk_begin_ = at;  // at the terminator
  walk_count_ = 0;
}

std::size_t LineCutter::settled(const std::string& out) const {
  if (keep_ == 0 || state_ == State::off) return out.size();  // nothing is ever cut
  if (state_ == State::undecided) return 0;                    // the probe may still turn cutting on
  return std::min(line_start_, out.size());
}

std::int64_t LineCutter::line_at(const std::string& out, std::size_t at) {
  for (; counted_ < at; ++counted_) {
    const char c = out[counted_];
    if (c == '\r' || (c == '\n' && !counted_cr_)) ++counted_lines_;
    counted_cr_ = c == '\r';
  }
  return counted_lines_ + 1;
}

LineCutter::Account LineCutter::take_front(std::string_view piece) {
  const std::size_t end = piece.size();
  Account taken;
  // Every line before `end` has ended, so every byte dropped from it is in dropped_done_.
  taken.read_bytes = static_cast<std::int64_t>(end) + dropped_done_;
  taken_ += taken.read_bytes;
  dropped_done_ = 0;
  // The piece's lines and the cut ones among them; the rest are numbered from the new start.
  const auto lines = taken.lines = static_cast<std::int64_t>(text::count_line_ends(piece));
  auto next = cuts_.begin();
  if (next != cuts_.end() && next->line <= lines) {
    taken.first_cut_line = next->line;
    taken.first_cut_bytes = next->bytes;
  }
  while (next != cuts_.end() && next->line <= lines) ++next;
  cuts_.erase(cuts_.begin(), next);
  for (CutLine& cut : cuts_) cut.line -= lines;
  counted_ = 0;
  counted_lines_ = 0;
  counted_cr_ = false;
  auto shift = [end](std::size_t& at) { at = at >= end ? at - end : 0; };
  shift(scanned_);
  shift(line_start_);
  shift(walk_pos_);
  shift(walk_begin_);
  probe_ = 0;  // the probes saw the input's head; a later piece has none
  return taken;
}

LineCutter::Account LineCutter::rest() const { return {0, read_ - taken_, first_cut_line(), first_cut_bytes()}; }

}  // namespace culprit::input::detail
