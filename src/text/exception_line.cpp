// Python's `ExcType: message` line, told apart from other `Word: text` lines (see
// exception_line.hpp): the traceback assembler's last line and the engine's reprint check.
#include "culprit/text/exception_line.hpp"

#include <array>
#include <cctype>

#include "culprit/text/lines.hpp"

namespace culprit::text {
namespace {

using Sv = std::string_view;

bool is_ident_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

bool has_exception_suffix(Sv name) {
  static constexpr std::array<Sv, 8> kSuffixes = {"Error",   "Exception", "Interrupt", "Exit",
                                                  "Warning", "Iteration", "Failure",   "Timeout"};
  for (Sv s : kSuffixes)
    if (name.size() >= s.size() && name.substr(name.size() - s.size()) == s) return true;
  return false;
}

}  // namespace

bool split_exception_line(std::string_view line, std::string& type, std::string& message) {
  if (line.empty() || line[0] == ' ' || line[0] == '\t') return false;
  const std::size_t colon = line.find(':');
  Sv head = colon == Sv::npos ? line : line.substr(0, colon);
  while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
  if (head.empty() || head.size() > 200) return false;
  // Ray wraps the cause: `ray.exceptions.RayTaskError(OutOfMemoryError)`.
  Sv name = head;
  if (name.back() == ')') {
    const std::size_t open = name.find('(');
    if (open == Sv::npos || open == 0) return false;
    for (std::size_t i = open + 1; i + 1 < name.size(); ++i)
      if (!is_ident_char(name[i]) && name[i] != '.') return false;
    name = name.substr(0, open);
  }
  if (!(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_')) return false;
  for (char c : name)
    if (!is_ident_char(c) && c != '.') return false;
  if (name.back() == '.') return false;
  const std::size_t dot = name.rfind('.');
  Sv last = dot == Sv::npos ? name : name.substr(dot + 1);
  while (!last.empty() && last[0] == '_') last.remove_prefix(1);  // NumPy's `_ArrayMemoryError`
  if (last.empty() || !(last[0] >= 'A' && last[0] <= 'Z')) return false;
  if (colon == Sv::npos) {
    if (!has_exception_suffix(last)) return false;
    type = std::string(head);
    message.clear();
    return true;
  }
  if (colon + 1 < line.size() && line[colon + 1] != ' ') return false;
  type = std::string(head);
  message = std::string(trim_blanks(line.substr(colon + 1)));
  return true;
}

}  // namespace culprit::text
