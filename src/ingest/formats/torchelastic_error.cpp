// torchrun's root-cause record: the JSON error file that a `@record`-decorated entry point writes
// to $TORCHELASTIC_ERROR_FILE when it raises, and that torchrun's own `@record`ed main copies
// from the first failed worker into its own $TORCHELASTIC_ERROR_FILE (adding `errorCode`, the
// worker's exit code). The exception's traceback is read by the application-log parser, so the
// traceback and exception signals that read a printed traceback read this one too; the file's
// timestamp dates the events that carry none.
//
// Field table (torch/distributed/elastic/multiprocessing/errors/error_handler.py and
// __init__.py, PyTorch 1.13.1 as Debian 12's python3-torch ships it; ErrorHandler's
// record_exception and dump_error_file, ProcessFailure._get_error_data):
//   {"message": {"message": "ExcType: text",            -> the exception line (no traceback: the
//                                                          signals read it)
//                "extraInfo": {"py_callstack": "Traceback (most recent call last):\n…",
//                                                       -> parsed as an app log (traceback events)
//                              "timestamp": "1733400000"},  -> ts (epoch seconds, a string)
//                "errorCode": 1}}                        -> exitcode (the copy torchrun writes)
//   {"message": "text", "timestamp": 1733400000}       -> the string form ProcessFailure also
//                                                          reads (a handler of one's own)
// Neither form names a rank or a pid: torchrun's printed summary (torchrun_block.cpp) does.
#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <optional>
#include <string>

#include "culprit/ingest/parser.hpp"
#include "culprit/ingest/sniff.hpp"
#include "ingest/signal_events.hpp"
#include "json_spans.hpp"
#include "torchelastic_error.hpp"

namespace culprit::ingest {
namespace {

using simdjson::dom::element;

/// The most of one callstack that is read: its first line and its last kMaxCallstackBytes (the
/// exception is at its end), cut at a line start. A Python traceback of a deep recursion is ~100 KiB.
constexpr std::size_t kMaxCallstackBytes = std::size_t{1} << 20;
/// An error file holds one object; a text of more values than this is not one (the rest is noted).
constexpr std::size_t kMaxRecords = 64;

std::string string_at(element parent, std::string_view key) {
  std::string_view v;
  if (parent[key].get_string().get(v)) return {};
  return std::string(v);
}

/// Epoch seconds written as a number or as a string of digits (`str(int(time.time()))`).
std::optional<std::int64_t> seconds_at(element parent, std::string_view key) {
  element e;
  if (parent[key].get(e)) return std::nullopt;
  std::int64_t v = 0;
  if (!e.get_int64().get(v)) return v > 0 ? std::optional<std::int64_t>(v) : std::nullopt;
  std::string_view s;
  if (e.get_string().get(s) || s.empty() || s.size() > 12) return std::nullopt;
  v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    v = v * 10 + (c - '0');
  }
  return v > 0 ? std::optional<std::int64_t>(v) : std::nullopt;
}

std::optional<std::int64_t> integer_at(element parent, std::string_view key) {
  std::int64_t v = 0;
  if (parent[key].get_int64().get(v)) return std::nullopt;
  return v;
}

/// One error file's record.
struct Record {
  std::string message;                 ///< `ExcType: text`, or the string form's text
  std::string callstack;               ///< `traceback.format_exc()`; '' when absent
  std::optional<std::int64_t> ts;      ///< epoch seconds
  std::string ts_raw;
  std::optional<std::int64_t> error_code;
};

/// The record of one JSON value, or nullopt when it is not an error file's.
std::optional<Record> read_record(element root) {
  if (!root.is_object()) return std::nullopt;
  element message;
  if (root["message"].get(message)) return std::nullopt;
  Record r;
  if (message.is_string()) {
    r.message = string_at(root, "message");
    r.ts = seconds_at(root, "timestamp");
    // A handler of one's own may put the whole traceback there.
    if (r.message.find("Traceback (most recent call last)") != std::string::npos) r.callstack = r.message;
  } else if (message.is_object()) {
    r.message = string_at(message, "message");
    element extra;
    if (!message["extraInfo"].get(extra) && extra.is_object()) {
      r.callstack = string_at(extra, "py_callstack");
      r.ts = seconds_at(extra, "timestamp");
    }
    r.error_code = integer_at(message, "errorCode");
  } else {
    return std::nullopt;
  }
  if (r.ts) r.ts_raw = std::to_string(*r.ts);
  return r;
}

/// Passes events on, dating those without a stamp by the record's and adding its error code:
/// the traceback's lines carry no stamp of their own.
class RecordSink final : public core::EventSink {
 public:
  RecordSink(core::EventSink& inner, const Record& record) : inner_(inner), record_(record) {}

  std::int64_t add_source(const core::SourceInfo& source) override { return inner_.add_source(source); }
  std::int64_t add_event(const core::Event& event) override {
    core::Event e = event;
    if (!e.ts && record_.ts) {
      e.ts = static_cast<double>(*record_.ts);
      e.ts_raw = record_.ts_raw;
      e.ts_kind = core::TsKind::wall;
    }
    if (record_.error_code && e.kind == core::kind::kTraceback) e.set_int("exitcode", *record_.error_code);
    e.set("reported_by", "torchelastic error file");
    return inner_.add_event(e);
  }
  void add_gpu_snapshot(const core::GpuSnapshot& s) override { inner_.add_gpu_snapshot(s); }
  void add_host_memory(const core::HostMemory& m) override { inner_.add_host_memory(m); }
  void add_oom_report(const core::OomReport& r) override { inner_.add_oom_report(r); }
  void add_process(const core::ProcessSighting& p) override { inner_.add_process(p); }
  void add_container(const core::ContainerInfo& c) override { inner_.add_container(c); }

 private:
  core::EventSink& inner_;
  const Record& record_;
};

/// The callstack's first line (`Traceback (most recent call last):`, which opens it for the
/// traceback parser) and its last kMaxCallstackBytes from a line start: the innermost frames and
/// the exception. The middle frames of a deep recursion are what is dropped.
std::string bounded_callstack(std::string_view s, bool& cut) {
  cut = s.size() > kMaxCallstackBytes;
  if (!cut) return std::string(s);
  const std::size_t first_end = s.find('\n');
  const std::string_view head = first_end == std::string_view::npos || first_end > 256 ? std::string_view() : s.substr(0, first_end + 1);
  std::string_view tail = s.substr(s.size() - kMaxCallstackBytes);
  const std::size_t nl = tail.find('\n');
  if (nl != std::string_view::npos) tail.remove_prefix(nl + 1);
  return std::string(head) + std::string(tail);
}

void emit(const Record& r, std::int64_t seg_line, ParseContext& ctx) {
  RecordSink sink(*ctx.sink, r);
  // The callstack's lines all stand at the input line that holds them (one JSON string).
  ParseContext sub = ctx;
  sub.sink = &sink;
  sub.format = std::string(format::kAppLog);
  sub.lines = {};
  sub.lines_text = {};
  sub.line_hits = {};
  sub.rare = text::RareBytes::all();  // decoded escapes may hold bytes the input's census lacks
  bool cut = false;
  const std::string stack = bounded_callstack(r.callstack, cut);
  if (cut)
    ctx.note("torchelastic_callstack_cut", seg_line,
             "the error file's py_callstack is over 1 MiB; its first line and its last 1 MiB are read");
  if (!stack.empty()) {
    const std::int64_t at = ctx.absolute_line(seg_line);
    LineMap map;
    const auto n = static_cast<std::size_t>(std::count(stack.begin(), stack.end(), '\n')) + 1;
    map.first.assign(n, at);
    map.last.assign(n, ctx.absolute_line_end(seg_line));
    sub.first_line = 1;
    sub.map_offset = 0;
    sub.line_map = &map;
    parse_app_log(stack, sub);
    return;
  }
  // No traceback: the exception line alone, as the signals read a printed one.
  core::Event base = ctx.make_event(seg_line);
  base.message = r.message;
  base.rule = "torchelastic_error";
  std::vector<core::Event> events =
      ctx.signals != nullptr ? events_from_signals(base, r.message, sub) : std::vector<core::Event>{};
  if (events.empty() && !r.message.empty()) {
    base.kind = core::kind::kLog;
    base.severity = core::Severity::error;
    events.push_back(base);
  }
  for (const auto& e : events) sink.add_event(e);
}

}  // namespace

void parse_torchelastic_error(std::string_view text, ParseContext& ctx) {
  if (ctx.sink == nullptr) return;
  simdjson::dom::parser json;
  std::size_t records = 0;
  for (const auto& span : json::split_values(text, false)) {
    if (++records > kMaxRecords) {
      ctx.note("torchelastic_too_many", span.line, fmt::format("more than {} JSON values; the rest are not read", kMaxRecords));
      return;
    }
    simdjson::padded_string padded(span.text);
    element root;
    std::optional<Record> record;
    if (!json.parse(padded).get(root)) record = read_record(root);
    if (!record) {
      ctx.note("torchelastic_bad_record", span.line, "a JSON value that is no torchelastic error record was skipped");
      continue;
    }
    // The line of the callstack (a pretty-printed file has one per key), else the value's first.
    const std::int64_t key = json::line_of(span.text, record->callstack.empty() ? "\"message\"" : "\"py_callstack\"");
    emit(*record, span.line + (key > 0 ? key - 1 : 0), ctx);
  }
}

bool is_torchelastic_error(std::string_view head) {
  const auto has = [head](std::string_view s) { return head.find(s) != std::string_view::npos; };
  // The object form: its own keys. The string form's keys (`message`, `timestamp`) are any JSON
  // log's, so it counts only as one object opening with them that carries a Python traceback.
  if (has("\"extraInfo\"") && (has("\"py_callstack\"") || has("\"errorCode\""))) return true;
  std::size_t at = head.find_first_not_of(" \t\r\n");
  if (at == std::string_view::npos || head.substr(at, 12) != "{\"message\": ") return false;
  return has("\"timestamp\": ") && has("Traceback (most recent call last):") && head.find("}\n{") == std::string_view::npos;
}

}  // namespace culprit::ingest
