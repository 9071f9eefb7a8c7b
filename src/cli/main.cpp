// Entry point: dispatches subcommands; `culprit INPUT...` means `culprit diagnose INPUT...`.
// The usage lists the subcommand table (command_table.hpp), which the man page is made from too.
// Exceptions are bugs: they are caught here once and reported with exit code 2.
#include <malloc.h>
#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include <fmt/format.h>

#include "cli/command_table.hpp"
#include "cli/commands.hpp"
#include "cli/interrupt.hpp"
#include "cli/option_checks.hpp"
#include "cli/process_end.hpp"
#include "cli/scan_support.hpp"
#include "cli/version.hpp"
#include "culprit/core/huge_pages.hpp"

namespace {

/// Heap a run takes in any case (rules, signal set, scanners, the timeline): a paste's, 6-8 MiB.
constexpr std::size_t kPrefaultBytes = std::size_t{8} << 20;

/// The heap policy of the executable (glibc; not the library's). The heap keeps what a piece of
/// a big input freed for the next: blocks up to 32 MiB come from the heap, not a fresh mapping
/// each, and up to 256 MiB of freed heap stays mapped. And the heap a run takes in any case is
/// asked for as huge pages where it holds whole 2 MiB stretches (core::ask_huge_pages: a paste
/// reads and writes it all through, and on a VM each TLB miss walks two page tables; only these
/// few pages are asked, not the heap's later growth), then mapped in one system call
/// (MADV_POPULATE_WRITE) rather than a page fault at a time. The figures, before and after:
/// docs/performance.md, "Twelfth pass" and the passes before it. Where the kernel lacks
/// MADV_POPULATE_WRITE (before 5.14) the pages fault in as before. `map_start_up_heap` false:
/// the mapping is left out, where the command reads its inputs on threads of their own (scan's
/// incidents), whose heaps are not this one: it was 7-10 MiB of every scan's peak RSS for no
/// time saved ("Eighteenth pass").
void shape_heap(bool map_start_up_heap) {
#ifdef __GLIBC__
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
  mallopt(M_TOP_PAD, 16 << 20);
#ifndef MADV_POPULATE_WRITE
  constexpr int MADV_POPULATE_WRITE = 23;  // Linux 5.14
#endif
  if (!map_start_up_heap) return;
  if (void* block = std::malloc(kPrefaultBytes)) {  // from the heap (below the mmap threshold)
    culprit::core::ask_huge_pages(block, kPrefaultBytes);
    constexpr std::size_t kPage = 4096;
    char* const bytes = static_cast<char*>(block);
    const std::size_t skip = (kPage - reinterpret_cast<std::uintptr_t>(bytes) % kPage) % kPage;
    ::madvise(bytes + skip, (kPrefaultBytes - skip) / kPage * kPage, MADV_POPULATE_WRITE);
    std::free(block);  // back to the heap's top, which stays (trim threshold above)
  }
#else
  (void)map_start_up_heap;
#endif
}

/// Runs the command `args` name and returns its exit code.
int dispatch(const std::vector<std::string>& args) {
  if (args.empty()) {
    if (culprit::cli::stdin_has_input()) return culprit::cli::run_diagnose(args);  // `pbpaste | culprit`
    std::fputs(culprit::cli::usage_text().c_str(), stderr);
    return culprit::cli::kExitError;
  }
  const std::string& first = args[0];
  if (first == "--help" || first == "-h" || first == "help") {
    std::fputs(culprit::cli::usage_text().c_str(), stdout);
    return 0;
  }
  if (first == "--version" || first == "-V") {
    fmt::print("{}", culprit::cli::version_text());
    return 0;
  }
  // Hidden: the build generates the man page and the shell completions with it.
  if (first == "--generate") return culprit::cli::run_generate({args.begin() + 1, args.end()});
  std::vector<std::string> rest(args.begin() + 1, args.end());
  if (first == "diagnose") return culprit::cli::run_diagnose(rest);
  if (first == "timeline") return culprit::cli::run_timeline(rest);
  if (first == "query") return culprit::cli::run_query(rest);
  if (first == "rules") return culprit::cli::run_rules(rest);
  if (first == "scan") return culprit::cli::run_scan(rest);
  if (first == "merge") return culprit::cli::run_merge(rest);
  if (first == "run") return culprit::cli::run_run(rest);
  if (first == "collect") return culprit::cli::run_collect(rest);
  // Not a command: inputs to diagnose — unless it names no file and is a command's typo.
  std::error_code ec;
  if (first != "-" && first[0] != '-' && !std::filesystem::exists(first, ec)) {
    std::vector<std::string> commands;
    for (const auto& c : culprit::cli::command_table()) commands.push_back(c.name.substr(0, c.name.find(' ')));
    if (auto near = culprit::cli::near_command(first, commands)) {
      fmt::print(stderr, "culprit: '{}' is neither a command nor an input file (did you mean `culprit {}`?)\n",
                 first, *near);
      return culprit::cli::kExitError;
    }
  }
  return culprit::cli::run_diagnose(args);
}

}  // namespace

int main(int argc, char** argv) {
  shape_heap(!(argc > 1 && std::string_view(argv[1]) == "scan"));
  culprit::cli::install_interrupt_handlers();
  int code = culprit::cli::kExitError;
  try {
    code = dispatch({argv + 1, argv + argc});
  } catch (const std::exception& e) {
    fmt::print(stderr, "culprit: internal error: {}\n", e.what());
  }
  culprit::cli::end_process(code);
}
