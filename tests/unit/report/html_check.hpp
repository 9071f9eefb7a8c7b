// Structural checks on the HTML report for the tests: the tags culprit emits are balanced, no
// tag refers to anything outside the file, and every SVG coordinate is a finite number.
#pragma once

#include <cmath>
#include <cstdlib>
#include <set>
#include <string>
#include <vector>

namespace culprit::report::test {

struct HtmlProblems {
  std::vector<std::string> list;
  bool ok() const { return list.empty(); }
};

/// Walks the tags of `html` (text between tags is content and may hold anything escaped).
inline HtmlProblems check_html(const std::string& html) {
  static const std::set<std::string> kVoid = {"meta", "br", "hr", "img", "input", "link", "col", "wbr"};
  static const std::set<std::string> kNumeric = {"x", "y", "width", "height", "cx", "cy", "r",
                                                 "x1", "y1", "x2", "y2"};
  HtmlProblems p;
  std::vector<std::string> stack;
  std::size_t i = 0;
  while ((i = html.find('<', i)) != std::string::npos) {
    const std::size_t end = html.find('>', i);
    if (end == std::string::npos) {
      p.list.push_back("unterminated tag at " + std::to_string(i));
      break;
    }
    const std::string tag = html.substr(i + 1, end - i - 1);
    i = end + 1;
    if (tag.empty()) continue;
    if (tag[0] == '!') continue;  // doctype
    std::size_t n = 0;
    while (n < tag.size() && (std::isalnum(static_cast<unsigned char>(tag[n])) || tag[n] == '-')) ++n;
    const std::string name = tag[0] == '/' ? std::string() : tag.substr(0, n);
    if (tag[0] == '/') {
      const std::string closing = tag.substr(1);
      if (stack.empty() || stack.back() != closing) {
        p.list.push_back("</" + closing + "> closes <" + (stack.empty() ? std::string("nothing") : stack.back()) + ">");
        return p;
      }
      stack.pop_back();
      continue;
    }
    if (name == "script" || name == "iframe" || name == "object" || name == "embed" || name == "img" ||
        name == "link" || name == "base")
      p.list.push_back("<" + name + "> element");
    // Attributes: name="value" (culprit always quotes with ").
    std::size_t a = n;
    while (a < tag.size()) {
      while (a < tag.size() && (tag[a] == ' ' || tag[a] == '/')) ++a;
      std::size_t k = a;
      while (k < tag.size() && tag[k] != '=' && tag[k] != ' ' && tag[k] != '/') ++k;
      const std::string attr = tag.substr(a, k - a);
      std::string value;
      if (k < tag.size() && tag[k] == '=') {
        if (k + 1 >= tag.size() || tag[k + 1] != '"') {
          p.list.push_back("unquoted attribute " + attr + " in <" + name + ">");
          break;
        }
        const std::size_t close = tag.find('"', k + 2);
        if (close == std::string::npos) {
          p.list.push_back("unterminated attribute " + attr + " in <" + name + ">");
          break;
        }
        value = tag.substr(k + 2, close - k - 2);
        a = close + 1;
      } else {
        a = k;
      }
      if (attr.empty()) continue;
      if (attr.rfind("on", 0) == 0) p.list.push_back("event handler " + attr + " in <" + name + ">");
      if (attr == "src" || attr == "href" || attr == "xlink:href" || attr == "action")
        p.list.push_back("reference " + attr + " in <" + name + ">");
      // Text attributes (labels, data) may quote log text; any other attribute must not name a URL.
      const bool text_attr = attr == "aria-label" || attr == "alt" || attr.rfind("data-", 0) == 0;
      for (const char* bad : {"http:", "https:", "javascript:", "url("})
        if (!text_attr && value.find(bad) != std::string::npos)
          p.list.push_back(std::string("`") + bad + "` in attribute " + attr + " of <" + name + ">");
      if (kNumeric.count(attr) || attr == "points") {
        std::string v = value;
        for (char& c : v)
          if (c == ',') c = ' ';
        const char* s = v.c_str();
        char* e = nullptr;
        int count = 0;
        while (*s) {
          const double d = std::strtod(s, &e);
          if (e == s || !std::isfinite(d)) {
            p.list.push_back("attribute " + attr + "=\"" + value + "\" is not a finite number");
            break;
          }
          ++count;
          s = e;
          while (*s == ' ') ++s;
        }
        if (count == 0) p.list.push_back("attribute " + attr + " is empty");
      }
    }
    if (kVoid.count(name) || (!tag.empty() && tag.back() == '/')) continue;
    // Raw text elements: skip to their end tag.
    if (name == "style" || name == "title") {
      const std::size_t close = html.find("</" + name + ">", i);
      if (close == std::string::npos) {
        p.list.push_back("<" + name + "> never closed");
        return p;
      }
      if (name == "style" && (html.substr(i, close - i).find("url(") != std::string::npos ||
                              html.substr(i, close - i).find("@import") != std::string::npos))
        p.list.push_back("the stylesheet loads something");
      i = close + name.size() + 3;
      continue;
    }
    stack.push_back(name);
  }
  for (const auto& s : stack) p.list.push_back("<" + s + "> never closed");
  return p;
}

/// Number of occurrences of `needle`.
inline std::size_t count_of(const std::string& hay, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t i = hay.find(needle); i != std::string::npos; i = hay.find(needle, i + needle.size())) ++n;
  return n;
}

}  // namespace culprit::report::test
