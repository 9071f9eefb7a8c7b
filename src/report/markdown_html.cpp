// Markdown (the subset our own renderer emits) to HTML. Block structure first (fences, tables,
// lists, headings, paragraphs), then inline spans. Input may hold any bytes: every character
// that reaches the output goes through html::escape.
#include "report/markdown_html.hpp"

#include <fmt/format.h>

#include <vector>

#include "report/html.hpp"

namespace culprit::report {
namespace {

bool is_punct(char c) {
  return (c >= '!' && c <= '/') || (c >= ':' && c <= '@') || (c >= '[' && c <= '`') || (c >= '{' && c <= '~');
}

std::size_t run_of(std::string_view s, std::size_t i, char c) {
  std::size_t n = 0;
  while (i + n < s.size() && s[i + n] == c) ++n;
  return n;
}

/// Inline spans: backslash escapes, code spans (any backtick run length), **strong**.
std::string inline_html(std::string_view s) {
  std::string out, pending;
  bool strong = false;
  auto flush = [&] {
    out += html::escape(pending);
    pending.clear();
  };
  for (std::size_t i = 0; i < s.size();) {
    const char c = s[i];
    if (c == '\\' && i + 1 < s.size() && is_punct(s[i + 1])) {
      pending += s[i + 1];
      i += 2;
      continue;
    }
    if (c == '`') {
      const std::size_t n = run_of(s, i, '`');
      // Find a closing run of exactly n backticks.
      std::size_t j = i + n;
      std::size_t close = std::string_view::npos;
      while (j < s.size()) {
        if (s[j] == '`') {
          const std::size_t m = run_of(s, j, '`');
          if (m == n) {
            close = j;
            break;
          }
          j += m;
        } else {
          ++j;
        }
      }
      if (close == std::string_view::npos) {
        pending.append(s.substr(i, n));
        i += n;
        continue;
      }
      std::string_view code = s.substr(i + n, close - i - n);
      if (code.size() >= 2 && code.front() == ' ' && code.back() == ' ' &&
          code.find_first_not_of(' ') != std::string_view::npos)
        code = code.substr(1, code.size() - 2);
      flush();
      out += "<code>" + html::escape(code) + "</code>";
      i = close + n;
      continue;
    }
    if (c == '*' && i + 1 < s.size() && s[i + 1] == '*') {
      // Open only when a closing ** follows; close only when one is open.
      if (strong || s.find("**", i + 2) != std::string_view::npos) {
        flush();
        out += strong ? "</strong>" : "<strong>";
        strong = !strong;
        i += 2;
        continue;
      }
    }
    pending += c;
    ++i;
  }
  flush();
  if (strong) out += "</strong>";
  return out;
}

std::vector<std::string_view> split_lines(std::string_view text) {
  std::vector<std::string_view> lines;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(start, end - start);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    lines.push_back(l);
    start = end + 1;
  }
  return lines;
}

/// Cells of a table row `| a | b |`: split at pipes not escaped by a backslash; `\|` -> `|`.
std::vector<std::string> cells_of(std::string_view row) {
  while (!row.empty() && row.back() == ' ') row.remove_suffix(1);
  if (!row.empty() && row.front() == '|') row.remove_prefix(1);
  if (!row.empty() && row.back() == '|' && (row.size() < 2 || row[row.size() - 2] != '\\')) row.remove_suffix(1);
  std::vector<std::string> cells(1);
  for (std::size_t i = 0; i < row.size(); ++i) {
    if (row[i] == '\\' && i + 1 < row.size() && row[i + 1] == '|') {
      cells.back() += '|';
      ++i;
    } else if (row[i] == '\\' && i + 1 < row.size()) {
      cells.back() += row[i];
      cells.back() += row[++i];
    } else if (row[i] == '|') {
      cells.emplace_back();
    } else {
      cells.back() += row[i];
    }
  }
  for (auto& c : cells) {
    const auto a = c.find_first_not_of(' ');
    const auto b = c.find_last_not_of(' ');
    c = a == std::string::npos ? std::string() : c.substr(a, b - a + 1);
  }
  return cells;
}

bool is_delimiter_row(std::string_view row) {
  if (row.empty() || row.front() != '|') return false;
  bool dash = false;
  for (char c : row) {
    if (c == '-') dash = true;
    else if (c != '|' && c != ':' && c != ' ') return false;
  }
  return dash;
}

}  // namespace

std::string markdown_to_html(std::string_view markdown) {
  const auto lines = split_lines(markdown);
  std::string out;
  std::string para;
  auto end_para = [&] {
    if (para.empty()) return;
    out += "<p>" + inline_html(para) + "</p>\n";
    para.clear();
  };
  std::size_t i = 0;
  while (i < lines.size()) {
    const std::string_view l = lines[i];
    // Fenced code: ``` or longer, closed by a run at least as long.
    if (const std::size_t n = run_of(l, 0, '`'); n >= 3) {
      end_para();
      std::string code;
      ++i;
      while (i < lines.size()) {
        const std::size_t m = run_of(lines[i], 0, '`');
        if (m >= n && lines[i].find_first_not_of('`', m) == std::string_view::npos) break;
        code.append(lines[i]);
        code += '\n';
        ++i;
      }
      ++i;  // the closing fence (or the end)
      out += "<pre><code>" + html::escape(code) + "</code></pre>\n";
      continue;
    }
    if (l.empty()) {
      end_para();
      ++i;
      continue;
    }
    if (l.front() == '#') {
      const std::size_t level = run_of(l, 0, '#');
      if (level <= 6 && level < l.size() && l[level] == ' ') {
        end_para();
        out += fmt::format("<h{0}>{1}</h{0}>\n", level, inline_html(l.substr(level + 1)));
        ++i;
        continue;
      }
    }
    if (l.front() == '|' && i + 1 < lines.size() && is_delimiter_row(lines[i + 1])) {
      end_para();
      const auto header = cells_of(l);
      const auto aligns = cells_of(lines[i + 1]);
      auto attr = [&](std::size_t col, const std::string& cell = {}) -> std::string {
        std::string cls;
        if (col < aligns.size() && !aligns[col].empty() && aligns[col].back() == ':') cls = "num";
        // A short cell without spaces (a host, a time, a size) is not broken at its hyphens.
        if (!cell.empty() && cell.size() <= 32 && cell.find(' ') == std::string::npos) cls += cls.empty() ? "nw" : " nw";
        return cls.empty() ? std::string() : " class=\"" + cls + "\"";
      };
      out += "<table>\n<thead><tr>";
      for (std::size_t c = 0; c < header.size(); ++c) out += "<th" + attr(c) + ">" + inline_html(header[c]) + "</th>";
      out += "</tr></thead>\n<tbody>\n";
      i += 2;
      while (i < lines.size() && !lines[i].empty() && lines[i].front() == '|') {
        const auto row = cells_of(lines[i]);
        out += "<tr>";
        for (std::size_t c = 0; c < header.size(); ++c)
          out += "<td" + attr(c, c < row.size() ? row[c] : std::string()) + ">" +
                 (c < row.size() ? inline_html(row[c]) : std::string()) + "</td>";
        out += "</tr>\n";
        ++i;
      }
      out += "</tbody>\n</table>\n";
      continue;
    }
    if (l.size() >= 2 && l[0] == '-' && l[1] == ' ') {
      end_para();
      out += "<ul>\n";
      while (i < lines.size() && lines[i].size() >= 2 && lines[i][0] == '-' && lines[i][1] == ' ') {
        out += "<li>" + inline_html(lines[i].substr(2)) + "</li>\n";
        ++i;
      }
      out += "</ul>\n";
      continue;
    }
    if (!para.empty()) para += ' ';
    para.append(l);
    ++i;
  }
  end_para();
  return out;
}

}  // namespace culprit::report
