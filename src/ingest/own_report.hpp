// culprit's own reports (text, Markdown, HTML, JSON), recognised so that a report saved next to
// the logs (`culprit -o logs/report.html logs/`) is not read back as a log on the next run: its
// "Ruled out" lines quote the very words the signals look for.
#pragma once

#include <string_view>

namespace culprit::ingest {

/// True when `head` (the first bytes of an input) is a report culprit wrote.
bool is_culprit_report(std::string_view head);

}  // namespace culprit::ingest
