// HTML escaping and the SVG writer used by the HTML report's charts.
#include "report/html.hpp"

#include <fmt/format.h>

#include <cmath>

#include "culprit/core/utf8.hpp"

namespace culprit::report::html {
namespace {

void append_escaped(std::string& out, std::string_view text) {
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
}

}  // namespace

std::string escape(std::string_view text) {
  std::string out;
  append_escaped(out, core::utf8::clean(text));
  return out;
}

std::string escape_line(std::string_view text) {
  std::string out;
  append_escaped(out, core::utf8::one_line(text));
  return out;
}

std::string num(double value) {
  if (!std::isfinite(value)) return "0";
  // Round to two decimals and drop trailing zeros: 12, 12.5, 12.25.
  std::string s = fmt::format("{:.2f}", value);
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  if (s == "-0") s = "0";
  return s;
}

Svg::Svg(double width, double height, std::string_view label)
    : out_(fmt::format("<svg viewBox=\"0 0 {} {}\" width=\"{}\" height=\"{}\" role=\"img\" "
                       "aria-label=\"{}\">",
                       num(width), num(height), num(width), num(height), escape_line(label))) {}

void Svg::close_with_tip(std::string_view tip) {
  if (tip.empty()) {
    out_ += "/>";
    return;
  }
  out_ += "><title>" + escape(tip) + "</title>";
}

void Svg::rect(double x, double y, double w, double h, std::string_view cls, std::string_view tip) {
  out_ += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" class=\"{}\"", num(x), num(y),
                      num(std::max(0.0, w)), num(std::max(0.0, h)), cls);
  close_with_tip(tip);
  if (!tip.empty()) out_ += "</rect>";
}

void Svg::line(double x1, double y1, double x2, double y2, std::string_view cls) {
  out_ += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" class=\"{}\"/>", num(x1), num(y1), num(x2),
                      num(y2), cls);
}

void Svg::circle(double cx, double cy, double r, std::string_view cls, std::string_view tip) {
  out_ += fmt::format("<circle cx=\"{}\" cy=\"{}\" r=\"{}\" class=\"{}\"", num(cx), num(cy), num(r), cls);
  close_with_tip(tip);
  if (!tip.empty()) out_ += "</circle>";
}

void Svg::polygon(std::initializer_list<double> points, std::string_view cls, std::string_view tip) {
  std::string pts;
  std::size_t i = 0;
  for (double p : points) pts += (i == 0 ? "" : (i % 2 ? "," : " ")) + num(p), ++i;
  out_ += fmt::format("<polygon points=\"{}\" class=\"{}\"", pts, cls);
  close_with_tip(tip);
  if (!tip.empty()) out_ += "</polygon>";
}

void Svg::text(double x, double y, std::string_view content, std::string_view cls, std::string_view anchor) {
  out_ += fmt::format("<text x=\"{}\" y=\"{}\" class=\"{}\" text-anchor=\"{}\">{}</text>", num(x), num(y), cls,
                      anchor, escape_line(content));
}

std::string Svg::finish() {
  out_ += "</svg>";
  return std::move(out_);
}

}  // namespace culprit::report::html
