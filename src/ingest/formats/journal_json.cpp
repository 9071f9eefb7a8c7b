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

#include <algorithm>
#include <charconv>
#include <cstring>
#include <optional>
#include <span>
#include <string_view>
#include <string>
#include <vector>

#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/line_hits.hpp"
#include "json_spans.hpp"
#include "kernel_log_parser.hpp"

namespace culprit::ingest {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

constexpr std::size_t kMaxEntryBytes = 16 * 1024 * 1024;  // journald caps fields far below this

/// The fields the parser reads, each the first of its name in the entry (as `obj[key]` finds
/// it), gathered in one walk over the entry's fields rather than one walk a name.
enum Field : unsigned { kMessage, kHostname, kTransport, kIdentifier, kComm, kSyslogPid, kPid, kSourceRealtime,
                        kRealtime, kSourceMonotonic, kSourceBoottime, kFieldCount };
constexpr std::string_view kFieldNames[kFieldCount] = {
    "MESSAGE", "_HOSTNAME", "_TRANSPORT", "SYSLOG_IDENTIFIER", "_COMM", "SYSLOG_PID", "_PID",
    "_SOURCE_REALTIME_TIMESTAMP", "__REALTIME_TIMESTAMP", "_SOURCE_MONOTONIC_TIMESTAMP", "_SOURCE_BOOTTIME_TIMESTAMP"};

struct Fields {
  element value[kFieldCount];
  unsigned seen = 0;  ///< bit f: value[f] is set
  bool has(Field f) const { return (seen >> f & 1u) != 0; }
};

Fields fields_of(object obj) {
  Fields out;
  for (const auto field : obj) {
    const std::string_view key = field.key;
    for (unsigned f = 0; f < kFieldCount; ++f) {
      if (key != kFieldNames[f]) continue;
      if (!out.has(static_cast<Field>(f))) {
        out.value[f] = field.value;
        out.seen |= 1u << f;
      }
      break;
    }
  }
  return out;
}

std::string_view str_field(const Fields& fields, Field f) {
  std::string_view v;
  if (!fields.has(f) || fields.value[f].get_string().get(v)) return {};
  return v;
}

std::optional<std::int64_t> int_field(const Fields& fields, Field f) {
  if (!fields.has(f)) return std::nullopt;
  const element e = fields.value[f];
  std::int64_t v = 0;
  if (e.is_int64()) return e.get_int64().value();
  std::string_view s;
  if (e.get_string().get(s) || s.empty()) return std::nullopt;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

/// MESSAGE as text: a string (a view into the parser's buffer), or journald's array of byte
/// values for non-UTF-8 / control bytes (copied into `bytes`).
std::optional<std::string_view> message_of(const Fields& fields, std::string& bytes) {
  if (!fields.has(kMessage)) return std::nullopt;
  const element e = fields.value[kMessage];
  if (e.is_string()) return e.get_string().value();
  if (!e.is_array()) return std::nullopt;
  bytes.clear();
  for (element b : e.get_array()) {
    std::int64_t v = 0;
    if (b.get_int64().get(v) || v < 0 || v > 255) return std::nullopt;
    bytes += static_cast<char>(v);
  }
  return std::string_view(bytes);
}

/// What the escapes of an entry write, read from its bytes (a backslash and the byte after it).
struct Escapes {
  /// A byte other than itself (`\/`, `\u0041`): a literal in a string, decoded, may then lie
  /// in no run of the entry's own bytes. `\"`, `\\`, `\t` write those three, `\n` ends a part.
  bool other = false;
  /// A control byte (`\b`, `\f`, `\r`, `\u001b`) a part may then hold though the text has none.
  bool control = false;
};
Escapes escapes_of(std::string_view entry) {
  Escapes out;
  for (std::size_t at = entry.find('\\'); at != std::string_view::npos; at = entry.find('\\', at + 2)) {
    const char e = at + 1 < entry.size() ? entry[at + 1] : 'u';  // (a cut escape: assume the worst)
    out.other = out.other || e == 'u' || e == '/';
    out.control = out.control || e == 'u' || e == 'b' || e == 'f' || e == 'r';
  }
  return out;
}

/// ASCII lower case, as the block scan and the signals compare literals.
char fold(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }

/// The bytes an escape writes that a part can hold: `"`, `\`, tab.
bool escape_written(char c) { return c == '"' || c == '\\' || c == '\t'; }

/// A literal holding an escape_written byte (lower case), and the place of its first such byte.
struct EscapedLiteral {
  std::string text;
  std::size_t pin = 0;
};

/// Whether `part` holds `literal`, ASCII case-insensitively: tried only where the part has the
/// literal's pinned byte (a few places a part).
bool holds_folded(std::string_view part, const EscapedLiteral& literal) {
  const std::string_view l = literal.text;
  const std::size_t pin = literal.pin;
  for (std::size_t at = part.find(l[pin]); at != std::string_view::npos; at = part.find(l[pin], at + 1)) {
    if (at < pin || at - pin + l.size() > part.size()) continue;
    const std::string_view here = part.substr(at - pin, l.size());
    if (std::equal(here.begin(), here.end(), l.begin(), [](char t, char c) { return fold(t) == c; })) return true;
  }
  return false;
}

/// The block scan's verdict for one part of a MESSAGE string, where the entry's lines hold no
/// literal (`entry_no_hit`) and no escape of the entry writes a byte other than itself
/// (Escapes::other): a literal in the part lies in the entry's own bytes too, unless it holds a
/// byte an escape wrote (`"`, `\`, tab) and crosses one in the part. `escaped` gives the literals
/// that hold such a byte (lower case), asked only of a part with one: where none of them is in
/// the part, no literal is.
template <class Escaped>
LiteralHit part_hit(bool entry_no_hit, std::string_view part, const Escaped& escaped) {
  if (!entry_no_hit) return LiteralHit::unknown;
  if (part.find('"') == std::string_view::npos && part.find('\\') == std::string_view::npos &&
      part.find('\t') == std::string_view::npos)
    return LiteralHit::no;
  for (const EscapedLiteral& literal : escaped())
    if (holds_folded(part, literal)) return LiteralHit::unknown;
  return LiteralHit::no;
}

}  // namespace

void parse_journal_json(std::string_view text, ParseContext& ctx) {
  if (ctx.sink == nullptr) return;
  kernel::KernelLogParser driver(ctx);
  simdjson::dom::parser json;
  std::int64_t bad = 0, first_bad_line = 0;
  // The input's block scan, where it ran over this very text: an entry whose lines hold no
  // literal of the kernel parser's (its markers and the signals') opens no report and matches
  // no signal, so those checks are skipped for its message (part_hit).
  const std::span<const std::uint8_t> hits = ctx.line_hits_of(text);
  // The literals of that scan holding a byte an escape writes (part_hit), read once if asked.
  std::optional<std::vector<EscapedLiteral>> escaped_literals;
  const auto escaped = [&]() -> const std::vector<EscapedLiteral>& {
    if (!escaped_literals) {
      escaped_literals.emplace();
      if (ctx.signals != nullptr)
        for (std::string literal : ctx.signals->block_literals(kernel_log_markers())) {
          const auto pin = std::find_if(literal.begin(), literal.end(), escape_written);
          if (pin == literal.end()) continue;
          const auto at = static_cast<std::size_t>(pin - literal.begin());
          for (char& c : literal) c = fold(c);
          escaped_literals->push_back({std::move(literal), at});
        }
    }
    return *escaped_literals;
  };
  std::string padded;  // the entry and simdjson's padding: one buffer for every entry
  std::string bytes;
  const auto parse = [&](std::string_view value, object& obj) {
    // simdjson reads up to SIMDJSON_PADDING bytes past the value: the buffer keeps that much
    // room (what lies there is never part of the value).
    if (padded.size() < value.size() + simdjson::SIMDJSON_PADDING) padded.resize(value.size() + simdjson::SIMDJSON_PADDING);
    std::memcpy(padded.data(), value.data(), value.size());
    return !json.parse(padded.data(), value.size(), false).get_object().get(obj);
  };
  // The text's census: no control byte, CR or `^` anywhere (then a message holds one only
  // where an escape of its entry writes it).
  const bool plain_text = !ctx.rare.may_hold_control() && !ctx.rare.may_hold('\r') && !ctx.rare.may_hold('^');
  // One entry: its fields, then each line of its MESSAGE a record.
  const auto entry = [&](const json::Span& span, object obj) {
    const Fields fields = fields_of(obj);
    const auto message = message_of(fields, bytes);
    if (!message) return;
    const std::string_view host = str_field(fields, kHostname);
    const std::string_view transport = str_field(fields, kTransport);
    std::string_view ident = str_field(fields, kIdentifier);
    if (ident.empty()) ident = str_field(fields, kComm);
    const bool kernel = transport == "kernel" || ident == "kernel";
    std::optional<std::int64_t> pid;  // a program's (a kernel record has none)
    if (!kernel) {
      pid = int_field(fields, kSyslogPid);
      if (!pid) pid = int_field(fields, kPid);
    }
    auto realtime = kernel ? std::nullopt : int_field(fields, kSourceRealtime);
    if (!realtime) realtime = int_field(fields, kRealtime);
    auto mono = int_field(fields, kSourceMonotonic);
    if (!mono) mono = int_field(fields, kSourceBoottime);
    char ts_digits[24];  // the stamp as written back (20 bytes hold any int64), not a heap string
    const std::string_view ts_raw =
        realtime ? std::string_view(ts_digits, static_cast<std::size_t>(std::to_chars(ts_digits, ts_digits + sizeof ts_digits,
                                                                                      *realtime).ptr - ts_digits))
                 : std::string_view();

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

    bool entry_no_hit = !hits.empty() && fields.value[kMessage].is_string() && span.line >= 1 &&
                        static_cast<std::size_t>(span.last_line) <= hits.size();
    for (std::int64_t k = span.line; entry_no_hit && k <= span.last_line; ++k)
      entry_no_hit = (hits[static_cast<std::size_t>(k - 1)] & kKernelLogHit) == 0;
    const Escapes escapes = escapes_of(span.text);
    entry_no_hit = entry_no_hit && !escapes.other;
    // Most messages hold no control byte and no `^[[`: their parts are not asked one by one. A
    // string's bytes are the text's but for its escapes: where the text's census has no control
    // byte, CR or `^` and no escape writes one, the message has none either.
    // (A lone `\r` is a control byte to has_ansi but not to block_has_ansi, which ends lines there.)
    const bool may_hold_ansi =
        !(plain_text && fields.value[kMessage].is_string() && !escapes.control) &&
        (text::block_has_ansi(*message) || message->find('\r') != std::string_view::npos);

    // A MESSAGE may hold several lines (a multi-line printk record, a program's stderr block):
    // each is a record with the entry's stamp.
    std::string_view rest(*message);
    std::int64_t n = 0;
    do {
      std::size_t nl = rest.find('\n');
      std::string_view part = rest.substr(0, nl);
      if (!part.empty() && part.back() == '\r') part.remove_suffix(1);
      std::string clean;
      LiteralHit hit = LiteralHit::unknown;
      if (may_hold_ansi && text::has_ansi(part)) {  // colour codes are why journald wrote MESSAGE as bytes
        clean = text::strip_ansi(part);
        part = clean;
      } else {
        hit = part_hit(entry_no_hit, part, escaped);
      }
      kl.message = part;
      if (n++ == 0 || !part.empty()) driver.record(span.line, part, kl, hit);
      rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    } while (!rest.empty());
  };
  json::ValueCursor cursor(text);
  json::Span span;
  for (;;) {
    object obj;
    // A line that is one JSON object and nothing else (a `-o json` entry; blanks may follow it)
    // is the value split_values' walk would find there: simdjson reads it whole, so the walk is
    // not made. Any other line is walked.
    if (cursor.i < text.size() && text[cursor.i] == '{') {
      const std::size_t eol = text.find('\n', cursor.i);
      std::string_view line = text.substr(cursor.i, eol == std::string_view::npos ? std::string_view::npos : eol - cursor.i);
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.remove_suffix(1);
      if (!line.empty() && line.size() <= kMaxEntryBytes && line.back() == '}' && parse(line, obj)) {
        span = {line, cursor.line, cursor.line};
        if (eol == std::string_view::npos) {
          cursor.i = text.size();
        } else {
          cursor.i = eol + 1;
          ++cursor.line;
        }
        entry(span, obj);
        continue;
      }
    }
    const json::Step step = json::next_value(text, false, kMaxEntryBytes, cursor, span);
    if (step == json::Step::end) break;
    if (step == json::Step::line) continue;
    if (!parse(span.text, obj)) {
      if (bad++ == 0) first_bad_line = span.line;
      continue;
    }
    entry(span, obj);
  }
  driver.finish();
  if (bad > 0)
    ctx.note("journal_json_bad_entry", first_bad_line,
             fmt::format("{} journal entr{} could not be read as JSON and were skipped", bad, bad == 1 ? "y" : "ies"));
}

}  // namespace culprit::ingest
