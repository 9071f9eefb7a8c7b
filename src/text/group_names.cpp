#include "group_names.hpp"

namespace culprit::text {
namespace {

bool word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

}  // namespace

std::optional<UnnamedGroups> unname_groups(std::string_view regex) {
  UnnamedGroups out;
  out.regex.reserve(regex.size());
  const std::size_t n = regex.size();
  std::size_t i = 0;
  bool in_class = false;
  while (i < n) {
    const char c = regex[i];
    if (c == '\\') {
      if (i + 1 < n && regex[i + 1] == 'Q') {  // \Q…\E quotes everything up to \E (or the end)
        const std::size_t end = regex.find("\\E", i + 2);
        const std::size_t stop = end == std::string_view::npos ? n : end + 2;
        out.regex.append(regex.substr(i, stop - i));
        i = stop;
        continue;
      }
      out.regex.append(regex.substr(i, i + 1 < n ? 2 : 1));
      i += 2;
      continue;
    }
    if (in_class) {
      if (c == '[' && i + 1 < n && regex[i + 1] == ':') {  // [:alpha:] inside a class
        const std::size_t end = regex.find(":]", i + 2);
        if (end != std::string_view::npos) {
          out.regex.append(regex.substr(i, end + 2 - i));
          i = end + 2;
          continue;
        }
      }
      if (c == ']') in_class = false;
      out.regex.push_back(c);
      ++i;
      continue;
    }
    if (c == '[') {
      in_class = true;
      out.regex.push_back(c);
      ++i;
      if (i < n && regex[i] == '^') out.regex.push_back(regex[i++]);
      if (i < n && regex[i] == ']') out.regex.push_back(regex[i++]);  // a literal ] first
      continue;
    }
    if (c == '(') {
      if (i + 1 < n && regex[i + 1] == '?') {
        if (regex.substr(i, 4) == "(?P<") {
          const std::size_t close = regex.find('>', i + 4);
          if (close == std::string_view::npos || close == i + 4) return std::nullopt;
          const std::string_view name = regex.substr(i + 4, close - i - 4);
          for (char k : name)
            if (!word_char(k)) return std::nullopt;
          for (const std::string& seen : out.names)
            if (seen == name) {  // a name twice: refused (RE2 before 2023 took it, naming the first)
              out.duplicate = std::string(name);
              return out;
            }
          out.names.emplace_back(name);
          out.regex.push_back('(');
          i = close + 1;
          continue;
        }
        if (regex.substr(i, 3) == "(?<" && regex.substr(i, 4) != "(?<=" && regex.substr(i, 4) != "(?<!")
          return std::nullopt;  // another spelling of a named group
        out.regex.push_back(c);  // (?: (?i) (?i: … : not a capturing group
        ++i;
        continue;
      }
      out.names.emplace_back();  // an unnamed capturing group
    }
    out.regex.push_back(c);
    ++i;
  }
  return out;
}

}  // namespace culprit::text
