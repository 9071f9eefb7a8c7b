// journald entries as JSON (`journalctl -o json`, `json-pretty`, `json-seq`; formats.md §2.5):
// each entry becomes one kernel-log record fed to the same driver as text kernel logs, so OOM
// reports group and line signals run exactly as for dmesg. Why a parser of its own: the entry
// carries both clocks of a kernel record (__REALTIME_TIMESTAMP, _SOURCE_MONOTONIC_TIMESTAMP),
// the best boot anchor there is, and MESSAGE may be an array of bytes rather than a string.
//
// Field table (journal field -> record):
//   MESSAGE (string | array of byte values | null) -> message (each of its lines a record)
//   _SOURCE_REALTIME_TIMESTAMP, else __REALTIME_TIMESTAMP (µs since the epoch) -> ts (wall, UTC)
//   _SOURCE_MONOTONIC_TIMESTAMP / _SOURCE_BOOTTIME_TIMESTAMP (µs; kernel records) -> boot_ts
//   _HOSTNAME -> host | _TRANSPORT=kernel or SYSLOG_IDENTIFIER=kernel -> a kernel record
//   SYSLOG_IDENTIFIER, else _COMM -> ident (comm) | SYSLOG_PID, else _PID -> pid
#include <fmt/format.h>
#include <simdjson.h>

#include <charconv>
#include <string>
#include <vector>

#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "json_spans.hpp"
#include "kernel_log_parser.hpp"

namespace culprit::ingest {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

constexpr std::size_t kMaxEntryBytes = 16 * 1024 * 1024;  // journald caps fields far below this

std::string_view str_field(object obj, std::string_view key) {
  std::string_view v;
  if (obj[key].get_string().get(v)) return {};
  return v;
}

std::optional<std::int64_t> int_field(object obj, std::string_view key) {
  element e;
  if (obj[key].get(e)) return std::nullopt;
  std::int64_t v = 0;
  if (e.is_int64()) return e.get_int64().value();
  std::string_view s;
  if (e.get_string().get(s) || s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

/// MESSAGE as text: a string, or journald's array of byte values for non-UTF-8 / control bytes.
std::optional<std::string> message_of(object obj) {
  element e;
  if (obj["MESSAGE"].get(e)) return std::nullopt;
  if (e.is_string()) return std::string(e.get_string().value());
  if (!e.is_array()) return std::nullopt;
  std::string out;
  for (element b : e.get_array()) {
    std::int64_t v = 0;
    if (b.get_int64().get(v) || v < 0 || v > 255) return std::nullopt;
    out += static_cast<char>(v);
  }
  return out;
}

}  // namespace

void parse_journal_json(std::string_view text, ParseContext& ctx) {
  if (ctx.sink == nullptr) return;
  kernel::KernelLogParser driver(ctx);
  simdjson::dom::parser json;
  std::int64_t bad = 0, first_bad_line = 0;
  for (const json::Span& span : json::split_values(text, false, kMaxEntryBytes)) {
    simdjson::padded_string padded(span.text);
    object obj;
    if (json.parse(padded).get_object().get(obj)) {
      if (bad++ == 0) first_bad_line = span.line;
      continue;
    }
    auto message = message_of(obj);
    if (!message) continue;
    const std::string host(str_field(obj, "_HOSTNAME"));
    const std::string transport(str_field(obj, "_TRANSPORT"));
    std::string ident(str_field(obj, "SYSLOG_IDENTIFIER"));
    if (ident.empty()) ident = std::string(str_field(obj, "_COMM"));
    auto pid = int_field(obj, "SYSLOG_PID");
    if (!pid) pid = int_field(obj, "_PID");
    const bool kernel = transport == "kernel" || ident == "kernel";
    auto realtime = kernel ? std::nullopt : int_field(obj, "_SOURCE_REALTIME_TIMESTAMP");
    if (!realtime) realtime = int_field(obj, "__REALTIME_TIMESTAMP");
    auto mono = int_field(obj, "_SOURCE_MONOTONIC_TIMESTAMP");
    if (!mono) mono = int_field(obj, "_SOURCE_BOOTTIME_TIMESTAMP");
    const std::string ts_raw = realtime ? std::to_string(*realtime) : std::string();

    kernel::KernelLine kl;
    kl.host = host;
    kl.kernel = kernel;
    if (!kernel) {
      kl.ident = ident;
      kl.ident_pid = pid;
    }
    if (realtime) {
      kl.ts_kind = core::TsKind::wall;
      kl.ts = static_cast<double>(*realtime) / 1e6;
      kl.ts_raw = ts_raw;
    } else if (kernel && mono) {
      kl.ts_kind = core::TsKind::boot;
      kl.ts_value = static_cast<double>(*mono) / 1e6;
      kl.ts_raw = ts_raw;
    }
    if (kernel && mono && realtime) kl.boot_ts = static_cast<double>(*mono) / 1e6;

    // A MESSAGE may hold several lines (a multi-line printk record, a program's stderr block):
    // each is a record with the entry's stamp.
    std::string_view rest(*message);
    std::int64_t n = 0;
    do {
      std::size_t nl = rest.find('\n');
      std::string_view part = rest.substr(0, nl);
      if (!part.empty() && part.back() == '\r') part.remove_suffix(1);
      std::string clean;
      if (text::has_ansi(part)) {  // colour codes are why journald wrote MESSAGE as bytes
        clean = text::strip_ansi(part);
        part = clean;
      }
      kl.message = part;
      if (n++ == 0 || !part.empty()) driver.record(span.line, part, kl);
      rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    } while (!rest.empty());
  }
  driver.finish();
  if (bad > 0)
    ctx.note("journal_json_bad_entry", first_bad_line,
             fmt::format("{} journal entr{} could not be read as JSON and were skipped", bad, bad == 1 ? "y" : "ies"));
}

}  // namespace culprit::ingest
