// The decoding thread (src/input/archive_stream.*): members bigger than the read-ahead (64
// blocks of 64 KiB), many members, a member cut at max_file_bytes followed by more members,
// excluded members and a handler that takes long (the worker waits, nothing is lost) give the
// same sources, in the same order, as the archive holds.
#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <thread>
#include <vector>

#include "culprit/input/reader.hpp"
#include "unit/input/archive_bytes.hpp"

using culprit::core::Diagnostics;
using culprit::input::ReadOptions;
using culprit::input::Source;

namespace {

/// `lines` numbered log lines of `tag` (each different, so a lost or repeated block shows).
std::string numbered(const std::string& tag, int lines) {
  std::string text;
  for (int i = 0; i < lines; ++i) text += "[ " + std::to_string(i) + ".000000] " + tag + " line " + std::to_string(i) + "\n";
  return text;
}

bool has_code(const Diagnostics& d, const std::string& code, const std::string& where) {
  for (const auto& p : d)
    if (p.code == code && p.where.find(where) != std::string::npos) return true;
  return false;
}

}  // namespace

TEST_CASE("a gzip larger than the read-ahead is read whole, in order", "[input]") {
  const std::string text = numbered("kernel", 600000);  // ~22 MiB: far more than the 4 MiB read-ahead
  REQUIRE(text.size() > (16u << 20));
  Diagnostics d;
  std::vector<Source> out;
  culprit::input::read_archive_memory(culprit::test::gzip_stored(text), "kern.log.gz", {}, d,
                                      [&](Source& s) { out.push_back(std::move(s)); });
  REQUIRE(out.size() == 1);
  CHECK(out[0].text.size() == text.size());
  CHECK(out[0].text == text);
  CHECK(d.empty());
}

TEST_CASE("many members, a slow handler, a cut member and excluded ones keep the archive's order", "[input]") {
  std::vector<std::pair<std::string, std::string>> members;
  for (int i = 0; i < 200; ++i) members.emplace_back("node-" + std::to_string(i % 4) + "/log-" + std::to_string(i) + ".log",
                                                     numbered("m" + std::to_string(i), 50));
  members.emplace_back("node-0/big.log", numbered("big", 100000));  // ~3 MiB: cut below
  members.emplace_back("node-0/expected.json", "{}");               // excluded
  members.emplace_back("node-1/after.log", numbered("after", 10));  // read after the cut one
  const std::string tar = culprit::test::tar_of(members);
  ReadOptions o;
  o.max_file_bytes = 1 << 20;
  o.excludes = {"expected.json"};
  Diagnostics d;
  std::vector<Source> out;
  culprit::input::read_archive_memory(culprit::test::gzip_stored(tar), "batch.tar.gz", o, d, [&](Source& s) {
    if (out.size() % 50 == 0) std::this_thread::sleep_for(std::chrono::milliseconds(2));  // the worker runs ahead
    out.push_back(std::move(s));
  });
  REQUIRE(out.size() == 202);
  for (int i = 0; i < 200; ++i) {
    CHECK(out[static_cast<size_t>(i)].name == "batch.tar.gz!/" + members[static_cast<size_t>(i)].first);
    CHECK(out[static_cast<size_t>(i)].text == members[static_cast<size_t>(i)].second);
    CHECK(out[static_cast<size_t>(i)].host == "node-" + std::to_string(i % 4));
  }
  CHECK(out[200].text.size() == (1u << 20));
  CHECK(members[200].second.compare(0, out[200].text.size(), out[200].text) == 0);
  CHECK(has_code(d, "input-too-large", "big.log"));
  CHECK(out[201].name == "batch.tar.gz!/node-1/after.log");
  CHECK(out[201].text == members[202].second);
  CHECK(d.size() == 1);
}

TEST_CASE("a truncated gzip inside a tar says which member is damaged and keeps its start", "[input]") {
  const std::string text = numbered("kernel", 20000);
  const std::string gz = culprit::test::gzip_stored(text);
  const std::string tar = culprit::test::tar_of({{"node-1/ok.log", "fine\n"}, {"node-1/kern.log.gz", gz.substr(0, gz.size() / 2)}});
  Diagnostics d;
  std::vector<Source> out;
  culprit::input::read_archive_memory(tar, "bundle.tar", {}, d, [&](Source& s) { out.push_back(std::move(s)); });
  REQUIRE(out.size() == 2);
  CHECK(out[0].text == "fine\n");
  CHECK(out[1].name == "bundle.tar!/node-1/kern.log.gz");
  CHECK(out[1].text.size() > text.size() / 4);
  CHECK(text.compare(0, out[1].text.size(), out[1].text) == 0);
  CHECK(has_code(d, "input-archive-data", "bundle.tar!/node-1/kern.log.gz"));
}

TEST_CASE("archive links, devices and FIFOs are named as not read, never dropped unsaid (redteam 25)", "[input]") {
  using culprit::test::TarMember;
  const std::string tar = culprit::test::tar_of_members({
      {"node1/train.log", "step 1\n", '0', ""},
      {"node1/passwd.log", "", '2', "/etc/passwd"},
      {"node1/shadow.log", "", '1', "/etc/shadow"},
      {"node1/dev", "", '3', ""},
      {"node1/fifo", "", '6', ""},
      {"node1/sub", "", '5', ""},
  });
  Diagnostics d;
  std::vector<Source> out;
  culprit::input::read_archive_memory(tar, "traversal.tar", {}, d, [&](Source& s) { out.push_back(std::move(s)); });
  REQUIRE(out.size() == 1);
  CHECK(out[0].name == "traversal.tar!/node1/train.log");
  CHECK(has_code(d, "input-not-file", "traversal.tar!/node1/passwd.log"));
  CHECK(has_code(d, "input-not-file", "traversal.tar!/node1/shadow.log"));
  CHECK(has_code(d, "input-not-file", "traversal.tar!/node1/dev"));
  CHECK(has_code(d, "input-not-file", "traversal.tar!/node1/fifo"));
  CHECK_FALSE(has_code(d, "input-not-file", "traversal.tar!/node1/sub"));  // a folder is no news
  for (const auto& p : d) {
    if (p.where == "traversal.tar!/node1/passwd.log") CHECK(p.message.find("symbolic link to '/etc/passwd'") != std::string::npos);
    if (p.where == "traversal.tar!/node1/shadow.log") CHECK(p.message.find("hard link to '/etc/shadow'") != std::string::npos);
    if (p.where == "traversal.tar!/node1/fifo") CHECK(p.message.find("FIFO") != std::string::npos);
  }
}

// Issue 36 (redteam finding 26): a gzip cut before libarchive's first 64 KiB output block fails
// its open ("truncated gzip input"); what decodes before the cut is read, as zcat reads it,
// with a note — the decisive line it holds is not lost.
TEST_CASE("a small truncated gzip is read up to the damage, with a note", "[input]") {
  const std::string text = numbered("train", 40) + "torch.OutOfMemoryError: CUDA out of memory.\n" + numbered("after", 40);
  const std::string gz = culprit::test::gzip_stored(text);
  const std::string cut = gz.substr(0, gz.size() * 3 / 4);
  Diagnostics d;
  std::vector<Source> out;
  culprit::input::read_archive_memory(cut, "train.log.gz", {}, d, [&](Source& s) { out.push_back(std::move(s)); });
  REQUIRE(out.size() == 1);
  CHECK(out[0].name == "train.log.gz");
  CHECK(out[0].text.find("torch.OutOfMemoryError: CUDA out of memory.") != std::string::npos);
  CHECK(text.rfind(out[0].text.substr(0, out[0].text.size() - 100), 0) == 0);  // a prefix of the text
  CHECK(has_code(d, "input-archive-data", "train.log.gz"));
  CHECK_FALSE(has_code(d, "input-archive", "train.log.gz"));
  // No gzip at all: still "cannot open".
  Diagnostics none;
  std::vector<Source> nothing;
  culprit::input::read_archive_memory(std::string("\x1f\x8b") + std::string(40, '\x07'), "bad.gz", {}, none,
                                      [&](Source& s) { nothing.push_back(std::move(s)); });
  CHECK(nothing.empty());
  CHECK(has_code(none, "input-archive", "bad.gz"));
}
