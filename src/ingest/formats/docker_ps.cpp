// `docker ps [-a]` tables (default and `--format "table …"`, podman, `docker compose ps`;
// formats.md §5.7) -> one core::ContainerInfo per row, and a `signal_exit` event for a container
// that exited by a signal (`Exited (137) …` = SIGKILL, the OOM killer's signal).
//
// Columns come from the header: names are separated by 2+ spaces (`CONTAINER ID` has one), and
// each column starts where its name starts — counted in characters, not bytes, because a
// truncated COMMAND ends in `…` (3 bytes, 1 column). A row whose text does not break at those
// offsets (re-spaced pastes) is split on runs of 2+ spaces instead; an empty PORTS is then the
// one missing cell.
//
// Field table (header name -> ContainerInfo): CONTAINER ID / ID -> id | IMAGE -> image |
//   COMMAND -> command (quotes removed) | STATUS -> status, up_seconds (`Up 3 hours (healthy)`) |
//   NAMES / NAME -> name | CREATED, PORTS, SIZE, STATE, … -> event fields only.
// `crictl ps` (cri-tools' table: CONTAINER IMAGE CREATED STATE NAME ATTEMPT POD ID POD NAMESPACE):
//   CONTAINER -> id (13 hex, cut) | NAME -> name (the pod's container) | POD -> pod |
//   NAMESPACE -> pod_namespace.
#include <cctype>
#include <optional>
#include <string>
#include <vector>

#include "culprit/core/signal_name.hpp"
#include "culprit/ingest/parser.hpp"
#include "culprit/text/lines.hpp"

namespace culprit::ingest {
namespace {

struct Column {
  std::string name;
  std::size_t start = 0;  // in characters
};

/// Header cells: runs separated by 2+ spaces, with their start columns. Empty when `line` does
/// not look like a docker ps header (upper-case names incl. an id/name column).
std::vector<Column> header_columns(std::string_view line) {
  std::vector<Column> cols;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && line[i] == ' ') ++i;
    if (i >= line.size()) break;
    std::size_t j = i;
    while (j < line.size() && !(line[j] == ' ' && (j + 1 >= line.size() || line[j + 1] == ' '))) ++j;
    cols.push_back(Column{std::string(line.substr(i, j - i)), i});
    i = j;
  }
  bool id_or_name = false, known = false;
  for (const auto& c : cols) {
    for (char ch : c.name)
      if (!(std::isupper(static_cast<unsigned char>(ch)) || ch == ' ' || ch == '_')) return {};
    id_or_name = id_or_name || c.name == "CONTAINER ID" || c.name == "CONTAINER" || c.name == "NAMES" || c.name == "NAME";
    known = known || c.name == "STATUS" || c.name == "IMAGE" || c.name == "STATE";
  }
  if (!id_or_name || !known || cols.size() < 2) return {};
  return cols;
}

/// Byte index of every character start in `s` (UTF-8), plus s.size() at the end.
std::vector<std::size_t> char_starts(std::string_view s) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < s.size(); ++i)
    if ((static_cast<unsigned char>(s[i]) & 0xC0) != 0x80) out.push_back(i);
  out.push_back(s.size());
  return out;
}

std::string trimmed(std::string_view s) { return std::string(text::trim(s)); }

/// Cells by header offsets; nullopt when the row does not break where the header says.
std::optional<std::vector<std::string>> cells_by_offset(std::string_view row, const std::vector<Column>& cols) {
  auto cs = char_starts(row);
  std::size_t nchars = cs.size() - 1;
  auto byte_at = [&](std::size_t ch) { return cs[std::min(ch, nchars)]; };
  std::vector<std::string> out;
  for (std::size_t i = 0; i < cols.size(); ++i) {
    std::size_t a = cols[i].start;
    std::size_t b = i + 1 < cols.size() ? cols[i + 1].start : nchars;
    if (i > 0 && a < nchars && a > 0 && row[byte_at(a - 1)] != ' ') return std::nullopt;
    if (a >= nchars) {
      out.emplace_back();
      continue;
    }
    out.push_back(trimmed(row.substr(byte_at(a), byte_at(b) - byte_at(a))));
  }
  // The last column must not be empty and no cell may start with a space-run cut.
  if (out.empty() || out.back().empty()) return std::nullopt;
  return out;
}

std::vector<std::string> split_runs(std::string_view row) {
  std::vector<std::string> out;
  std::size_t i = 0;
  while (i < row.size()) {
    while (i < row.size() && row[i] == ' ') ++i;
    if (i >= row.size()) break;
    std::size_t j = i;
    while (j < row.size() && !(row[j] == ' ' && j + 1 < row.size() && row[j + 1] == ' ')) ++j;
    out.push_back(trimmed(row.substr(i, j - i)));
    i = j;
  }
  return out;
}

/// Seconds in docker's HumanDuration text (`2 days`, `About an hour`, `Less than a second`).
std::optional<double> human_duration(std::string_view s) {
  s = text::trim(s);
  if (s.rfind("Less than a second", 0) == 0) return 0.5;
  if (s.rfind("About a minute", 0) == 0) return 60;
  if (s.rfind("About an hour", 0) == 0) return 3600;
  if (s.rfind("An hour", 0) == 0 || s.rfind("an hour", 0) == 0) return 3600;
  std::size_t i = 0;
  double n = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) n = n * 10 + (s[i++] - '0');
  if (i == 0 || i >= s.size() || s[i] != ' ') return std::nullopt;
  std::string_view unit = s.substr(i + 1);
  auto is = [&](std::string_view u) { return unit.rfind(u, 0) == 0; };
  if (is("second")) return n;
  if (is("minute")) return n * 60;
  if (is("hour")) return n * 3600;
  if (is("day")) return n * 86400;
  if (is("week")) return n * 7 * 86400;
  if (is("month")) return n * 30 * 86400;
  if (is("year")) return n * 365 * 86400;
  return std::nullopt;
}

/// `Exited (137) 5 minutes ago` / `Restarting (137) 2 seconds ago` -> 137.
std::optional<int> exit_code(std::string_view status) {
  std::size_t open = status.find('(');
  if (!(status.rfind("Exited", 0) == 0 || status.rfind("Restarting", 0) == 0) || open == std::string_view::npos)
    return std::nullopt;
  std::size_t close = status.find(')', open);
  if (close == std::string_view::npos) return std::nullopt;
  std::string num(status.substr(open + 1, close - open - 1));
  if (num.empty() || num.size() > 4) return std::nullopt;
  for (char c : num)
    if (!std::isdigit(static_cast<unsigned char>(c)) && c != '-') return std::nullopt;
  return std::stoi(num);
}

class DockerPsParser {
 public:
  explicit DockerPsParser(ParseContext& ctx) : ctx_(ctx) {}

  void run(std::string_view text) {
    std::int64_t seg = 0;
    std::vector<Column> cols;
    bool any_header = false;
    for (std::string_view raw : text::split_lines(text)) {
      ++seg;
      std::string clean = text::has_ansi(raw) ? text::strip_ansi(raw) : std::string(raw);
      std::string_view line = clean;
      while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
      if (auto h = header_columns(line); !h.empty()) {
        cols = std::move(h);
        any_header = true;
        continue;
      }
      if (cols.empty()) continue;
      if (text::trim(line).empty()) {
        cols.clear();  // a blank line ends the table
        continue;
      }
      row(seg, line, cols);
    }
    if (!any_header) ctx_.note("docker_ps_no_header", 1, "docker ps: no header line (CONTAINER ID … NAMES) found");
  }

 private:
  void row(std::int64_t seg, std::string_view line, const std::vector<Column>& cols) {
    std::vector<std::string> cells;
    if (auto c = cells_by_offset(line, cols)) {
      cells = std::move(*c);
    } else {
      cells = split_runs(line);
      if (cells.size() + 1 == cols.size()) {
        for (std::size_t i = 0; i < cols.size(); ++i)
          if (cols[i].name == "PORTS") {
            cells.insert(cells.begin() + static_cast<std::ptrdiff_t>(i), std::string());
            break;
          }
      }
      if (cells.size() != cols.size()) {
        ctx_.note("docker_ps_row_skipped", seg, "docker ps: row does not match the header's columns");
        return;
      }
    }
    core::ContainerInfo info;
    info.host = ctx_.host;
    core::Event ev = ctx_.make_event(seg);
    for (std::size_t i = 0; i < cols.size() && i < cells.size(); ++i) {
      const std::string& n = cols[i].name;
      std::string v = cells[i];
      if (n == "CONTAINER ID" || n == "ID" || n == "CONTAINER") info.id = v;
      else if (n == "POD") info.pod = v;
      else if (n == "NAMESPACE") info.pod_namespace = v;
      else if (n == "NAMES" || n == "NAME") info.name = v;
      else if (n == "IMAGE") info.image = v;
      else if (n == "COMMAND") {
        if (v.size() >= 2 && v.front() == '"' && v.back() == '"') v = v.substr(1, v.size() - 2);
        info.command = v;
      } else if (n == "STATUS") info.status = v;
      else if (!v.empty()) {
        std::string key;
        for (char c : n) key += c == ' ' ? '_' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        ev.set(key, v);
      }
    }
    if (info.status.rfind("Up ", 0) == 0) {
      std::string_view rest = std::string_view(info.status).substr(3);
      if (auto p = rest.find(" ("); p != std::string_view::npos) rest = rest.substr(0, p);
      info.up_seconds = human_duration(rest);
    }
    ctx_.sink->add_container(info);

    auto code = exit_code(info.status);
    if (!code || *code <= 128 || *code > 128 + 64) return;
    int sig = *code - 128;
    ev.kind = std::string(core::kind::kSignalExit);
    ev.rule = "docker_ps_exited";
    ev.severity = sig == 9 ? core::Severity::error : core::Severity::warning;
    ev.comm = info.name;
    ev.message = std::string(text::trim(line));
    ev.set_int("exitcode", *code);
    ev.set_int("signal", sig);
    if (auto name = core::signal_name(sig); !name.empty()) ev.set("signal_name", std::string(name));
    ev.set("container_name", info.name);
    ev.set("container_id", info.id);
    if (!info.image.empty()) ev.set("image", info.image);
    ev.set("status", info.status);
    if (auto p = info.status.find(") "); p != std::string::npos) {
      std::string ago = info.status.substr(p + 2);
      if (ago.size() > 4 && ago.substr(ago.size() - 4) == " ago") {
        if (auto s = human_duration(ago.substr(0, ago.size() - 4))) ev.set_number("exited_ago_seconds", *s);
      }
    }
    ctx_.sink->add_event(ev);
  }

  ParseContext& ctx_;
};

}  // namespace

void parse_docker_ps(std::string_view text, ParseContext& ctx) {
  if (ctx.sink == nullptr) return;
  DockerPsParser(ctx).run(text);
}

}  // namespace culprit::ingest
