// HTML building blocks for the self-contained report: escaping untrusted log text for element
// content and attribute values, and an SVG writer whose coordinates are always finite numbers.
#pragma once

#include <string>
#include <string_view>

namespace culprit::report::html {

/// Log text made safe as HTML element content or a quoted attribute value: valid UTF-8 with
/// terminal escapes and control characters removed (core::utf8::clean), then `& < > " '` as entities.
/// Newlines are kept (inside <pre> they matter).
std::string escape(std::string_view text);

/// `escape` of the text folded to one line.
std::string escape_line(std::string_view text);

/// A number for an SVG attribute: at most two decimals, `0` for NaN or infinity.
std::string num(double value);

/// Minimal SVG writer. Every method appends one element; text arguments are escaped; `cls`
/// names a CSS class of the page's stylesheet (trusted, chosen by the renderer).
class Svg {
 public:
  Svg(double width, double height, std::string_view label);

  void rect(double x, double y, double w, double h, std::string_view cls, std::string_view tip = {});
  void line(double x1, double y1, double x2, double y2, std::string_view cls);
  void circle(double cx, double cy, double r, std::string_view cls, std::string_view tip = {});
  /// A closed polygon through `points` (x0, y0, x1, y1, …).
  void polygon(std::initializer_list<double> points, std::string_view cls, std::string_view tip = {});
  /// `anchor`: start | middle | end.
  void text(double x, double y, std::string_view content, std::string_view cls,
            std::string_view anchor = "start");
  /// Raw markup the renderer built itself (defs, patterns). Never log text.
  void raw(std::string_view markup) { out_ += markup; }

  /// The finished `<svg>` element.
  std::string finish();

 private:
  void close_with_tip(std::string_view tip);
  std::string out_;
};

}  // namespace culprit::report::html
