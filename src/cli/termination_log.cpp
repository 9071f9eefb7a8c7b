// The termination message of `culprit run --termination-log` (termination_log.hpp).
#include "cli/termination_log.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fmt/format.h>

#include <cerrno>
#include <cstring>

#include "cli/commands.hpp"
#include "culprit/core/utf8.hpp"
#include "report/wording.hpp"

namespace culprit::cli {

std::string fit_utf8(std::string text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  static constexpr std::string_view kEllipsis = "…";
  if (max_bytes < kEllipsis.size()) return {};
  std::size_t end = max_bytes - kEllipsis.size();
  // Back to the first byte of the code point that would be cut (continuation bytes: 10xxxxxx).
  while (end > 0 && (static_cast<unsigned char>(text[end]) & 0xC0) == 0x80) --end;
  text.resize(end);
  return text + std::string(kEllipsis);
}

std::string termination_message(const culprit::Analysis& analysis, std::string_view job_end,
                                 std::string_view incident) {
  const diagnose::Verdict& v = analysis.verdict;
  const report::Headline h = report::headline(v);
  std::string out = core::utf8::one_line(report::headline_body(h) + " " + report::headline_confidence(h)) + "\n";
  if (v.culprit) {
    const diagnose::ProcessRef& c = *v.culprit;
    std::string who = c.pid ? fmt::format("pid {} ", *c.pid) : std::string();
    who += c.name.empty() ? std::string("?") : c.name;
    who += fmt::format(" ({})", c.role.empty() ? "unknown" : c.role);
    if (!c.host.empty()) who += " on " + c.host;
    if (!c.why.empty()) who += ": " + c.why;
    out += core::utf8::one_line("culprit: " + who) + "\n";
  }
  if (!job_end.empty()) out += core::utf8::one_line(job_end) + "\n";
  if (!incident.empty()) out += core::utf8::one_line(fmt::format("incident: {}", incident)) + "\n";
  return fit_utf8(std::move(out), kTerminationLogBytes);
}

std::string write_termination_log(const std::string& path, const std::string& text) {
  std::string atomic = write_file_atomically(path, text);
  if (atomic.empty()) return {};
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return atomic;  // nothing there to write into
  const int fd = ::open(path.c_str(), O_WRONLY | O_TRUNC | O_CLOEXEC);
  if (fd < 0) return fmt::format("{}; nor in place: {}", atomic, std::strerror(errno));
  int err = write_all(fd, text);
  if (::close(fd) != 0 && err == 0) err = errno;
  return err == 0 ? std::string() : fmt::format("cannot write {}: {}", path, std::strerror(err));
}

}  // namespace culprit::cli
