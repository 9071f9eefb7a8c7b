// Documentation next to logs: a README.md / Markdown file is read only for its fenced code
// blocks (where people paste logs), so its prose sentences and tables — which quote messages —
// never become evidence; a documentation file without a code block is skipped with a note.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "culprit/input/reader.hpp"
#include "input/documentation.hpp"

namespace fs = std::filesystem;
using culprit::input::detail::is_documentation_name;
using culprit::input::detail::keep_code_blocks;

TEST_CASE("documentation is known by its name, logs are not", "[input][documentation]") {
  for (const char* doc : {"README.md", "readme", "README.txt", "notes.md", "spark-b/NOTES.markdown", "ops.rst",
                          "runbook.adoc", "CHANGELOG", "LICENSE", "bundle.tar!/dir/README.md"})
    CHECK(is_documentation_name(doc));
  for (const char* log : {"train.log", "notes.txt", "paste.txt", "dmesg", "kern.log", "md.log", "readme-bot.log",
                          "expected.json", "docker-inspect.json", "spark-b/sglang-worker.log", "mdadm.txt"})
    CHECK_FALSE(is_documentation_name(log));
}

TEST_CASE("only fenced code blocks of documentation are kept, line numbers stay", "[input][documentation]") {
  std::string text =
      "# incident\n"                                                   // 1 heading
      "The head then fails when NCCL loses its peer (an echo).\n"     // 2 prose quoting a message
      "| file | what |\n"                                             // 3 a Markdown table
      "| --- | --- |\n"                                               // 4
      "| `spark-a/head.log` | NCCL WARN socketProgress: Connection closed |\n"  // 5
      "```text\n"                                                     // 6 fence opens
      "torch.OutOfMemoryError: CUDA out of memory.\n"                 // 7 kept
      "  ``` not a closing fence (text after it)\n"                   // 8 kept
      "```\n"                                                         // 9 fence closes
      "More prose with `inline code` and ```triple``` inline.\n"      // 10 not a fence
      "~~~~\n"                                                        // 11 opens (tildes)
      "[  12.5] Out of memory: Killed process 4242 (python)\n"        // 12 kept
      "```\n"                                                         // 13 other char: kept
      "~~~~~\n"                                                       // 14 closes
      "after";                                                        // 15 prose, no newline
  const std::size_t kept = keep_code_blocks(text);
  CHECK(kept == 4);
  CHECK(text ==
        "\n\n\n\n\n\n"
        "torch.OutOfMemoryError: CUDA out of memory.\n"
        "  ``` not a closing fence (text after it)\n"
        "\n\n\n"
        "[  12.5] Out of memory: Killed process 4242 (python)\n"
        "```\n"
        "\n");
}

TEST_CASE("an unclosed fence runs to the end: prose alone keeps nothing", "[input][documentation]") {
  std::string open = "intro\n```\nline a\nline b\n";
  CHECK(keep_code_blocks(open) == 2);
  CHECK(open == "\n\nline a\nline b\n");
  std::string prose = "# Notes\n\nThe worker was killed by SIGKILL (exit 137).\n| a | b |\n|---|---|\n";
  CHECK(keep_code_blocks(prose) == 0);
  CHECK(prose == "\n\n\n\n\n");
}

TEST_CASE("a README next to logs yields no source: fenced logs in Markdown do", "[input][documentation]") {
  std::string tmpl = (fs::temp_directory_path() / "culprit-doc-XXXXXX").string();
  const fs::path dir = ::mkdtemp(tmpl.data());
  auto write = [&](const std::string& rel, std::string_view content) {
    fs::create_directories((dir / rel).parent_path());
    std::ofstream(dir / rel, std::ios::binary) << content;
  };
  write("README.md", "# My run\n\nIt died with `CUDA out of memory` after NCCL lost its peer.\n");
  write("issue.md", "What I saw:\n\n```\nRuntimeError: CUDA error: out of memory\n```\n");
  write("node-1/train.log", "RuntimeError: CUDA error: out of memory\n");
  culprit::core::Diagnostics problems;
  const auto sources = culprit::input::read_inputs({dir.string()}, {}, problems);
  std::vector<std::string> names;
  for (const auto& s : sources) names.push_back(s.name);
  CHECK(names == std::vector<std::string>{"issue.md", "node-1/train.log"});
  REQUIRE(sources.size() == 2);
  CHECK(sources[0].text == "\n\n\nRuntimeError: CUDA error: out of memory\n\n");  // line 4 stays line 4
  bool skipped_note = false;
  for (const auto& p : problems)
    skipped_note |= p.code == culprit::input::code::kDocumentation && p.where == "README.md" &&
                    p.level == culprit::core::DiagLevel::note;
  CHECK(skipped_note);
  std::error_code ec;
  fs::remove_all(dir, ec);
}
