// ChildFailedError summary block parsing (formats.md §5.1.3). Field keys are matched after
// trimming, so both `exitcode  : ` (padded) and `exitcode: ` (early torchelastic) work.
#include "ingest/formats/torchrun_block.hpp"

#include "culprit/text/lines.hpp"

namespace culprit::ingest {

namespace {

using Sv = std::string_view;

using text::is_digit;

std::optional<std::int64_t> read_int(Sv s, std::size_t& i) {
  bool neg = false;
  if (i < s.size() && s[i] == '-') {
    neg = true;
    ++i;
  }
  const std::size_t start = i;
  std::int64_t v = 0;
  while (i < s.size() && is_digit(s[i]) && i - start < 18) v = v * 10 + (s[i++] - '0');
  if (i == start) return std::nullopt;
  return neg ? -v : v;
}

// `<n> (<label>: <m>)` → n and m.
void read_pair(Sv v, Sv label, std::optional<std::int64_t>& first, std::optional<std::int64_t>& second) {
  std::size_t i = 0;
  first = read_int(v, i);
  const std::size_t p = v.find(label, i);
  if (p == Sv::npos) return;
  std::size_t k = p + label.size();
  second = read_int(v, k);
}

bool is_separator(Sv t) {
  if (t.size() < 3) return false;
  for (char c : t)
    if (c != '=' && c != '-' && c != '*') return false;
  return true;
}

bool is_section(Sv t) {
  return t == "Failures:" || t == "Other Failures:" || t.substr(0, 10) == "Root Cause";
}

}  // namespace

bool TorchrunFailureBlock::opens(std::string_view message) {
  const Sv t = text::trim_blanks(message);
  return t == "Failures:" || t == "Other Failures:" || t == "Root Cause:" ||
         t == "Root Cause (first observed failure):";
}

bool TorchrunFailureBlock::is_title(std::string_view message, std::string* entrypoint) {
  const Sv t = text::trim_blanks(message);
  if (t.size() < 8 || t.substr(t.size() - 7) != " FAILED") return false;
  const Sv name = text::trim_blanks(t.substr(0, t.size() - 7));
  if (name.empty() || name.find(' ') != Sv::npos) return false;
  if (entrypoint) *entrypoint = std::string(name);
  return true;
}

TorchrunFailureBlock::TorchrunFailureBlock(std::int64_t, std::string_view message,
                                           std::string entrypoint)
    : entrypoint_(std::move(entrypoint)) {
  section(text::trim_blanks(message));
}

void TorchrunFailureBlock::section(std::string_view header) {
  close_entry();
  root_section_ = header.substr(0, 10) == "Root Cause";
}

void TorchrunFailureBlock::close_entry() {
  if (cur_) done_.push_back(std::move(*cur_));
  cur_.reset();
}

TorchrunFailureBlock::Offer TorchrunFailureBlock::offer(std::int64_t seg_line,
                                                        std::string_view message) {
  const Sv t = text::trim_blanks(message);
  if (t.empty()) return Offer::ended;
  if (is_separator(t)) {
    close_entry();
    return Offer::consumed;
  }
  if (is_section(t)) {
    section(t);
    return Offer::consumed;
  }
  if (t == "<NO_OTHER_FAILURES>") return Offer::consumed;
  if (t.size() >= 4 && t.front() == '[' && t.substr(t.size() - 2) == "]:") {
    std::size_t i = 1;
    auto idx = read_int(t, i);
    if (idx && i == t.size() - 2) {
      close_entry();
      cur_.emplace();
      cur_->first_line = cur_->last_line = seg_line;
      cur_->index = static_cast<int>(*idx);
      cur_->root_cause = root_section_;
      cur_->entrypoint = entrypoint_;
      return Offer::consumed;
    }
  }
  const bool indented = !message.empty() && (message[0] == ' ' || message[0] == '\t');
  if (!cur_ || !indented) return Offer::ended;
  const std::size_t colon = t.find(':');
  const Sv key = colon == Sv::npos ? Sv() : text::trim_blanks(t.substr(0, colon));
  const Sv value = colon == Sv::npos ? Sv() : text::trim_blanks(t.substr(colon + 1));
  TorchrunFailure& f = *cur_;
  if (key == "time") {
    f.time = std::string(value);
  } else if (key == "host") {
    f.host = std::string(value);
  } else if (key == "rank") {
    std::optional<std::int64_t> r, lr;
    read_pair(value, "local_rank: ", r, lr);
    if (r) f.rank = static_cast<int>(*r);
    if (lr) f.local_rank = static_cast<int>(*lr);
  } else if (key == "exitcode") {
    std::optional<std::int64_t> rc, pid;
    read_pair(value, "pid: ", rc, pid);
    if (rc) f.exitcode = static_cast<int>(*rc);
    f.pid = pid;
    if (rc && *rc < 0) f.signal = static_cast<int>(-*rc);
  } else if (key == "error_file") {
    if (value != "<N/A>") f.error_file = std::string(value);
  } else if (key == "traceback" || key == "msg") {
    Sv v = value;
    if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
    f.traceback = std::string(v);
    // `Signal 9 (SIGKILL) received by PID 1246013`
    if (v.substr(0, 7) == "Signal ") {
      std::size_t i = 7;
      if (auto n = read_int(v, i)) {
        f.signal = static_cast<int>(*n);
        if (v.substr(i, 2) == " (") {
          const std::size_t close = v.find(')', i);
          if (close != Sv::npos && v.substr(i + 2, close - i - 2) != "<N/A>")
            f.signal_name = std::string(v.substr(i + 2, close - i - 2));
        }
      }
    }
  } else {
    // A continuation of a multi-line traceback value (`@record` workers).
    f.last_line = seg_line;
    return Offer::pass_through;
  }
  f.last_line = seg_line;
  return Offer::consumed;
}

std::vector<TorchrunFailure> TorchrunFailureBlock::finish() {
  close_entry();
  return std::move(done_);
}

}  // namespace culprit::ingest
