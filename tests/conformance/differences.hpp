// tests/conformance/differences.md: the differences culprit keeps on purpose, one table row each
// (peer | file | assertion | peer value | culprit value | reason). A difference the runner finds
// must be listed here (same peer, file, assertion and culprit value) or the test fails.
#pragma once

#include <string>
#include <vector>

namespace culprit::conformance {

struct ListedDifference {
  std::string peer, file, assertion, peer_value, culprit_value, reason;
  int line = 0;          ///< line in differences.md
  mutable bool used = false;
};

/// Reads the Markdown table rows of `path` (rows whose first cell is a peer folder name; the
/// header and separator rows are skipped). Cells are trimmed and lose one pair of backticks;
/// `\|` is a literal bar. Problems (unreadable file, a row without six cells) go to `errors`.
std::vector<ListedDifference> read_differences(const std::string& path, std::vector<std::string>& errors);

/// The listed row for a found difference, or nullptr.
const ListedDifference* find_listed(const std::vector<ListedDifference>& listed, const std::string& peer,
                                    const std::string& file, const std::string& assertion,
                                    const std::string& culprit_value);

/// A cell for a new row: backticks around the value, bars escaped.
std::string cell(const std::string& value);

}  // namespace culprit::conformance
