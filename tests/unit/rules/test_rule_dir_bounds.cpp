// What a rules folder may hold (redteam findings 20 and 29): a rule file over kMaxRuleFileBytes is
// an error, named and not read (a 300 MB file cost 1.5 GB); a `*.toml` that is no regular file (a
// FIFO) is named and never opened, where it was ignored without a word.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <fstream>

#include "culprit/rules/loader.hpp"
#include "unit/temp_dir.hpp"

namespace rule_dir_bounds_tests {

using namespace culprit::rules;

TEST_CASE("a rules folder's FIFO and oversized file are named, not read", "[rules][redteam]") {
  const culprit::test::TempDir dir;
  REQUIRE(::mkfifo(dir.file("pipe.toml").c_str(), 0600) == 0);
  {
    std::ofstream big(dir.file("huge.toml"), std::ios::binary);
  }
  REQUIRE(::truncate(dir.file("huge.toml").c_str(), static_cast<off_t>(kMaxRuleFileBytes + 1)) == 0);  // sparse
  std::ofstream(dir.file("ok.toml")) << "# nothing yet\n";
  culprit::core::Diagnostics problems;
  const auto texts = read_rule_dir(dir.path.string(), problems);
  REQUIRE(texts.size() == 1);
  CHECK(texts[0].path == dir.file("ok.toml"));
  REQUIRE(problems.size() == 2);
  CHECK(problems[0].code == code::kNotAFile);
  CHECK(problems[0].where == dir.file("pipe.toml"));
  CHECK(problems[1].code == code::kTooLarge);
  CHECK(problems[1].where == dir.file("huge.toml"));
  CHECK(problems[1].message == "4194305 bytes; a rule file may hold at most 4 MiB, and is not read");
}

}  // namespace rule_dir_bounds_tests
