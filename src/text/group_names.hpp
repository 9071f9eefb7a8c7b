// Named groups kept out of RE2's sight. RE2 checks each group name against Unicode letter and
// digit classes that it builds on the first name of the process: ~2 M instructions, a twentieth
// of a 50 KB paste's run. Culprit's group names are ASCII words, so a pattern is given to RE2 with
// its groups unnamed and they are named here, by their index.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace culprit::text {

struct UnnamedGroups {
  std::string regex;               ///< the pattern, each `(?P<name>` written `(`
  std::vector<std::string> names;  ///< by group index (group i at [i-1]); "" for an unnamed group
  /// A group name that comes twice (`(?P<x>\w+) (?P<x>\w+)`): the pattern is refused, whatever
  /// RE2's version says (Debian 12's takes it and names the first group); the rest is unread.
  std::string duplicate;
};

/// The pattern with its named groups made plain, or nullopt where a name is not an ASCII word
/// ([A-Za-z0-9_]+) or the syntax is one this reading does not follow (`(?<name>`): RE2 then
/// reads the original and reports any error in its own words. Escapes (`\(`, `\Q…\E`) and
/// character classes (`[(?P<]`, `[]]`, `[[:alpha:]]`) are read as RE2 reads them.
std::optional<UnnamedGroups> unname_groups(std::string_view regex);

}  // namespace culprit::text
