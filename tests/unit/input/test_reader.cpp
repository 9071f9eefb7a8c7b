// input::read_inputs and read_archive_memory: folder walk (order, hosts, links), tail reads of
// oversize files with true line numbers, archives from memory (tar, gzip, nested, damaged),
// and the archive-bomb ratio limit. Files are made in a fresh temporary folder per test.
#include <algorithm>
#include <sys/stat.h>
#include <unistd.h>

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "culprit/input/reader.hpp"
#include "input/read_context.hpp"
#include "unit/input/archive_bytes.hpp"
#include "unit/temp_dir.hpp"

namespace fs = std::filesystem;
using culprit::core::Diagnostics;
using culprit::input::ReadOptions;
using culprit::input::Source;
using culprit::test::TempDir;

namespace {

bool has_problem(const Diagnostics& d, std::string_view code, std::string_view where_part) {
  for (const auto& p : d)
    if (p.code == code && p.where.find(where_part) != std::string::npos) return true;
  return false;
}

std::string all_problems(const Diagnostics& d) {
  std::string s;
  for (const auto& p : d) s += p.to_string() + "\n";
  return s;
}

}  // namespace

TEST_CASE("folders are read in path order with hosts from per-node folders", "[input]") {
  TempDir t;
  t.write("spark-b/worker.log", "b\n");
  t.write("spark-a/head.log", "a\n");
  t.write("logs/top.log", "top\n");
  t.write("expected.json", "{}");
  ReadOptions o;
  o.excludes = {"*.json"};
  Diagnostics d;
  const auto sources = culprit::input::read_inputs({t.path.string()}, o, d);
  REQUIRE(sources.size() == 3);
  CHECK(sources[0].name == "logs/top.log");
  CHECK(sources[0].host.empty());  // "logs" names content, not a node
  CHECK(sources[1].name == "spark-a/head.log");
  CHECK(sources[1].host == "spark-a");
  CHECK(sources[2].name == "spark-b/worker.log");
  CHECK(sources[2].text == "b\n");
  CHECK(d.empty());
}

TEST_CASE("link loops, second links and broken links are named and skipped", "[input]") {
  TempDir t;
  t.write("a/x.log", "x\n");
  fs::create_directory_symlink(".", t.path / "a" / "self");
  fs::create_directory_symlink("../a", t.path / "again");
  fs::create_symlink("loop2", t.path / "loop1");
  fs::create_symlink("loop1", t.path / "loop2");
  fs::create_symlink("a/x.log", t.path / "x-link.log");
  ::mkfifo((t.path / "fifo").c_str(), 0600);
  Diagnostics d;
  const auto sources = culprit::input::read_inputs({t.path.string()}, {}, d);
  REQUIRE(sources.size() == 1);
  CHECK(sources[0].name == "a/x.log");
  INFO(all_problems(d));
  CHECK(has_problem(d, "input-link", "a/self"));
  CHECK(has_problem(d, "input-link", "again"));
  CHECK(has_problem(d, "input-link", "loop1"));
  CHECK(has_problem(d, "input-link", "loop2"));
  CHECK(has_problem(d, "input-link", "x-link.log"));
  CHECK(has_problem(d, "input-not-file", "fifo"));
}

TEST_CASE("a second hard link to a file is read once, though the walk lists it", "[input]") {
  // The walk tells a file by its entry's type without a stat of its own; a second hard link is
  // found by the stat of the opened file.
  TempDir t;
  t.write("logs/x.log", "x\n");
  fs::create_hard_link(t.path / "logs" / "x.log", t.path / "logs" / "y.log");
  t.write("logs/z.log", "z\n");
  Diagnostics d;
  const auto sources = culprit::input::read_inputs({t.path.string()}, {}, d);
  // The temporary folder names the host, so every name starts with it.
  const std::string host = t.path.filename().string() + "/";
  REQUIRE(sources.size() == 2);
  CHECK(sources[0].name == host + "logs/x.log");
  CHECK(sources[1].name == host + "logs/z.log");
  INFO(all_problems(d));
  CHECK(has_problem(d, "input-link", host + "logs/y.log"));
  const std::string said = "the same file as " + host + "logs/x.log (a link); read once";
  CHECK(std::any_of(d.begin(), d.end(), [&said](const auto& p) { return p.message == said; }));
}

TEST_CASE("a file over max_file_bytes is read from its tail with true line numbers", "[input]") {
  TempDir t;
  SECTION("LF") {
    t.write("big.log", "line 1\nline 2\nline 3\nline 4\nline 5\n");
    ReadOptions o;
    o.max_file_bytes = 16;  // "line 4\nline 5\n" is 14 bytes; the cut falls inside line 3
    Diagnostics d;
    const auto s = culprit::input::read_inputs({(t.path / "big.log").string()}, o, d);
    REQUIRE(s.size() == 1);
    CHECK(s[0].text == "line 4\nline 5\n");
    CHECK(s[0].first_line == 4);
    CHECK(has_problem(d, "input-too-large", "big.log"));
  }
  SECTION("CRLF split between its CR and LF") {
    t.write("big.log", "aa\r\nbb\r\ncc\r\n");
    ReadOptions o;
    o.max_file_bytes = 5;  // starts at the \n of "bb\r\n"
    Diagnostics d;
    const auto s = culprit::input::read_inputs({(t.path / "big.log").string()}, o, d);
    REQUIRE(s.size() == 1);
    CHECK(s[0].text == "cc\r\n");
    CHECK(s[0].first_line == 3);
  }
  SECTION("lone CR") {
    t.write("big.log", "aa\rbb\rcc\r");
    ReadOptions o;
    o.max_file_bytes = 3;  // exactly "cc\r", after a CR
    Diagnostics d;
    const auto s = culprit::input::read_inputs({(t.path / "big.log").string()}, o, d);
    REQUIRE(s.size() == 1);
    CHECK(s[0].text == "cc\r");
    CHECK(s[0].first_line == 3);
  }
}

TEST_CASE("a file is an archive by its first bytes, whatever its name and however it is read", "[input]") {
  TempDir t;
  t.write("rotated.log", culprit::test::gzip_stored("one\ntwo\n"));  // gzip bytes, a log's name
  t.write("plain.gz", "plain text\n");                               // a gzip's name, text bytes
  t.write("empty.gz", "");
  const auto read = [&](const std::string& name, const ReadOptions& o, Diagnostics& d) {
    return culprit::input::read_inputs({(t.path / name).string()}, o, d);
  };
  ReadOptions o;
  Diagnostics d;
  auto s = read("rotated.log", o, d);  // its first bytes, as read, are the gzip magic
  INFO(all_problems(d));
  REQUIRE(s.size() == 1);
  CHECK(s[0].text == "one\ntwo\n");
  CHECK_FALSE(has_problem(d, "input-archive", "rotated.log"));
  d.clear();
  s = read("plain.gz", o, d);  // read as text, with a warning that the name says otherwise
  REQUIRE(s.size() == 1);
  CHECK(s[0].text == "plain text\n");
  CHECK(has_problem(d, "input-archive", "plain.gz"));
  d.clear();
  s = read("empty.gz", o, d);  // no bytes at all: the same warning
  CHECK(has_problem(d, "input-archive", "empty.gz"));
  REQUIRE(s.size() == 1);  // handed on empty: ingest says it is empty
  CHECK(s[0].text.empty());
  // Too big to read whole: its tail is read, so its head is looked at on its own first.
  d.clear();
  o.max_file_bytes = 8;
  s = read("rotated.log", o, d);
  REQUIRE(s.size() == 1);
  CHECK(s[0].text == "one\ntwo\n");
}

TEST_CASE("tar, gzip and a gzip inside a tar are read from memory", "[input]") {
  const std::string inner = culprit::test::gzip_stored("rotated line\n");
  const std::string tar = culprit::test::tar_of(
      {{"node-1/kern.log", "kernel line\n"}, {"node-1/kern.log.1.gz", inner}, {"node-2/app.log", "app\n"}});
  Diagnostics d;
  std::vector<Source> out;
  culprit::input::read_archive_memory(tar, "bundle.tar", {}, d, [&](Source& s) { out.push_back(std::move(s)); });
  INFO(all_problems(d));
  REQUIRE(out.size() == 3);
  CHECK(out[0].name == "bundle.tar!/node-1/kern.log");
  CHECK(out[0].host == "node-1");
  CHECK(out[1].name == "bundle.tar!/node-1/kern.log.1.gz");
  CHECK(out[1].text == "rotated line\n");
  CHECK(out[1].host == "node-1");
  CHECK(out[2].text == "app\n");
  CHECK(d.empty());

  // A bare gzip is one source named after the file.
  out.clear();
  culprit::input::read_archive_memory(culprit::test::gzip_stored("one\ntwo\n"), "dmesg.txt.gz", {}, d,
                                      [&](Source& s) { out.push_back(std::move(s)); });
  REQUIRE(out.size() == 1);
  CHECK(out[0].name == "dmesg.txt.gz");
  CHECK(out[0].text == "one\ntwo\n");
}

TEST_CASE("a truncated gzip keeps what was read and says so", "[input]") {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "[ 12.345678] a kernel line that fills the archive " + std::to_string(i) + "\n";
  const std::string gz = culprit::test::gzip_stored(text);
  const std::string cut = gz.substr(0, gz.size() / 2);
  Diagnostics d;
  std::vector<Source> out;
  culprit::input::read_archive_memory(cut, "kern.log.gz", {}, d, [&](Source& s) { out.push_back(std::move(s)); });
  INFO(all_problems(d));
  REQUIRE(out.size() == 1);
  CHECK(out[0].text.size() > text.size() / 4);
  CHECK(text.compare(0, out[0].text.size(), out[0].text) == 0);  // a true prefix
  CHECK(has_problem(d, "input-archive-data", "kern.log.gz"));
}

TEST_CASE("garbage and empty archives are reported, never read as members", "[input]") {
  Diagnostics d;
  int n = 0;
  culprit::input::read_archive_memory(std::string(4096, '\0'), "zeros.tar", {}, d, [&](Source&) { ++n; });
  CHECK(n == 0);
  CHECK(has_problem(d, "input-archive", "zeros.tar"));
  d.clear();
  culprit::input::read_archive_memory("PK\x03\x04 not really a zip at all", "x.zip", {}, d, [&](Source&) { ++n; });
  CHECK(has_problem(d, "input-archive", "x.zip"));
}

TEST_CASE("an archive bomb stops at the ratio limit with a note", "[input]") {
  ReadOptions o;
  o.archive_ratio_floor = 64 << 10;
  o.max_archive_ratio = 100;
  Diagnostics d;
  std::vector<Source> out;
  culprit::input::read_archive_memory(culprit::test::zstd_bomb_1mib(), "bomb.zst", o, d,
                                      [&](Source& s) { out.push_back(std::move(s)); });
  INFO(all_problems(d));
  CHECK(has_problem(d, "input-archive-bomb", "bomb.zst"));
  REQUIRE(out.size() == 1);
  CHECK(out[0].text.size() < (256u << 10));  // stopped soon after the floor, not at 1 MiB

  // Within the limits the same stream is read whole.
  d.clear();
  out.clear();
  culprit::input::read_archive_memory(culprit::test::zstd_bomb_1mib(), "ok.zst", {}, d,
                                      [&](Source& s) { out.push_back(std::move(s)); });
  REQUIRE(out.size() == 1);
  CHECK(out[0].text.size() == (1u << 20));
  CHECK(d.empty());
}

TEST_CASE("max_total_bytes stops the run's reading with one note", "[input]") {
  TempDir t;
  t.write("a.log", std::string(100, 'a'));
  t.write("b.log", std::string(100, 'b'));
  t.write("c.log", std::string(100, 'c'));
  ReadOptions o;
  o.max_total_bytes = 150;
  Diagnostics d;
  const auto s = culprit::input::read_inputs({t.path.string()}, o, d);
  REQUIRE(s.size() == 2);
  CHECK(s[1].text.size() == 50);  // the tail of b.log fits the remaining room
  CHECK(has_problem(d, "input-total-limit", "c.log"));
}

TEST_CASE("archive magic is recognised, text never is", "[input]") {
  using culprit::input::looks_like_archive;
  CHECK(looks_like_archive(culprit::test::gzip_stored("x")));
  CHECK(looks_like_archive(culprit::test::zstd_bomb_1mib()));
  CHECK(looks_like_archive(culprit::test::tar_of({{"a", "b"}})));
  CHECK(looks_like_archive(std::string_view("PK\x03\x04", 4)));
  CHECK_FALSE(looks_like_archive("BZh9 is how a bzip2 file starts; this line is text"));
  CHECK_FALSE(looks_like_archive("[    0.000000] Linux version 6.8.0"));
  CHECK_FALSE(looks_like_archive(""));
}

TEST_CASE("an archive wrapped in one job folder takes hosts from the level below", "[input]") {
  const std::string tar = culprit::test::tar_of({{"./incident-17/node-03/dmesg.txt", "a\n"},
                                                 {"./incident-17/node-04/train.log", "b\n"},
                                                 {"./incident-17/logs/all.log", "c\n"}});
  Diagnostics d;
  std::vector<Source> out;
  culprit::input::read_archive_memory(tar, "incident-17.tar", {}, d, [&](Source& s) { out.push_back(std::move(s)); });
  REQUIRE(out.size() == 3);
  CHECK(out[0].host == "node-03");
  CHECK(out[1].host == "node-04");
  CHECK(out[2].host.empty());
  // Two top folders: each is a node.
  out.clear();
  culprit::input::read_archive_memory(culprit::test::tar_of({{"node-1/a.log", "a\n"}, {"node-2/b.log", "b\n"}}),
                                      "nodes.tar", {}, d, [&](Source& s) { out.push_back(std::move(s)); });
  REQUIRE(out.size() == 2);
  CHECK(out[0].host == "node-1");
  CHECK(out[1].host == "node-2");
}

TEST_CASE("an archive's single root folder holds only when no later member denies it", "[input]") {
  // Read from a file (the descriptor path) and from memory, small and with a 17 MiB member.
  const std::string big(17u << 20, 'x');
  struct Case {
    std::vector<std::pair<std::string, std::string>> members;
    std::vector<std::string> hosts;
  };
  const std::vector<Case> cases = {
      {{{"job/node-1/a.log", "a\n"}, {"job/node-2/b.log", "b\n"}}, {"node-1", "node-2"}},
      // A member at the top, after two under one folder: no root, so `job` is the host.
      {{{"job/node-1/a.log", "a\n"}, {"job/node-2/b.log", "b\n"}, {"top.log", "t\n"}}, {"job", "job", ""}},
      // Another top folder, last.
      {{{"job/node-1/a.log", "a\n"}, {"other/node-2/b.log", "b\n"}}, {"job", "other"}},
      // Folders and excluded names do not answer the question.
      {{{"job/node-1/a.log", "a\n"}, {"expected.json", "{}"}, {"job/node-2/b.log", "b\n"}}, {"node-1", "node-2"}},
      {{{"job/node-1/a.log", big}, {"job/node-2/b.log", "b\n"}}, {"node-1", "node-2"}},
      {{{"job/node-1/a.log", big}, {"job/node-2/b.log", "b\n"}, {"top.log", "t\n"}}, {"job", "job", ""}},
  };
  ReadOptions o;
  o.excludes = {"expected.json"};
  TempDir t;
  for (const auto& c : cases) {
    const std::string tar = culprit::test::tar_of(c.members);
    t.write("x.tar", tar);
    for (int from_file = 0; from_file < 2; ++from_file) {
      Diagnostics d;
      std::vector<Source> out;
      if (from_file) out = culprit::input::read_inputs({(t.path / "x.tar").string()}, o, d);
      else culprit::input::read_archive_memory(tar, "x.tar", o, d, [&](Source& s) { out.push_back(std::move(s)); });
      INFO(all_problems(d) << " case " << c.members.back().first << " from file " << from_file);
      REQUIRE(out.size() == c.hosts.size());
      for (std::size_t i = 0; i < out.size(); ++i) {
        CHECK(out[i].host == c.hosts[i]);
        CHECK(out[i].host_from == (c.hosts[i].empty() ? std::string() : std::string(culprit::input::host_from::kFolder)));
      }
      CHECK(d.empty());
    }
  }
}

TEST_CASE("a gzip's stated size only sizes the buffer: a wrong one reads the same text", "[input]") {
  std::string text;
  for (int i = 0; i < 5000; ++i) text += "[ 1.000000] line " + std::to_string(i) + "\n";
  for (const std::uint32_t stated : {0u, 1u, 100u, 0xFFFFFFFFu}) {
    std::string gz = culprit::test::gzip_stored(text);
    for (int i = 0; i < 4; ++i) gz[gz.size() - 4 + i] = static_cast<char>((stated >> (8 * i)) & 0xFF);
    Diagnostics d;
    std::vector<Source> out;
    culprit::input::read_archive_memory(gz, "kern.log.gz", {}, d, [&](Source& s) { out.push_back(std::move(s)); });
    INFO(stated << ": " << all_problems(d));
    REQUIRE(out.size() == 1);
    CHECK(out[0].text == text);
    CHECK(out[0].text.capacity() < 2 * text.size() + (64u << 10));
  }
}

// Redteam finding 16: a million tiny members cost 1.2 GB (a source's bookkeeping is held to the
// end). One archive gives at most max_archive_members sources, then says it stopped.
TEST_CASE("an archive's members past max_archive_members are not read, with a warning", "[input][redteam]") {
  std::vector<std::pair<std::string, std::string>> members;
  for (int i = 0; i < 5; ++i) members.emplace_back("node-1/part-" + std::to_string(i) + ".log", "line\n");
  culprit::input::ReadOptions o;
  o.max_archive_members = 3;
  Diagnostics d;
  std::vector<Source> out;
  culprit::input::read_archive_memory(culprit::test::tar_of(members), "many.tar", o, d,
                                      [&](Source& s) { out.push_back(std::move(s)); });
  CHECK(out.size() == 3);
  REQUIRE(d.size() == 1);
  CHECK(d[0].code == culprit::input::code::kTooManyMembers);
  CHECK(d[0].where == "many.tar");
  CHECK(d[0].message == "more than 3 files in the archive; the rest are not read (a bound on what one archive may hold)");
  CHECK(culprit::input::ReadOptions{}.max_archive_members == culprit::input::kMaxArchiveMembers);
}

// Redteam finding 15: an .xz whose header asks a 4 GiB dictionary cost 1 GiB per file (libarchive
// sets liblzma no memory limit). Its first block header is read, and a dictionary over
// kMaxDictionaryBytes is not decoded.
TEST_CASE("an xz stream declaring a dictionary over kMaxDictionaryBytes is not read", "[input][redteam]") {
  // Stream header (magic, flags: CRC32, a CRC not checked here), then a block header of 12 bytes:
  // no sizes, one filter, LZMA2 (0x21) with one property byte.
  const auto xz = [](char property) {
    std::string s("\xfd" "7zXZ\x00\x00\x01" "CRC!", 12);
    s += std::string("\x02\x00\x21\x01", 4) + property + std::string(7, '\0');
    return s + "payload that is never decoded";
  };
  using culprit::input::detail::xz_dictionary_bytes;
  CHECK(xz_dictionary_bytes(xz(40)) == 0xFFFFFFFF);                    // 4 GiB - 1
  CHECK(xz_dictionary_bytes(xz(28)) == std::int64_t{64} << 20);         // xz -9
  CHECK(xz_dictionary_bytes(xz(29)) == std::int64_t{96} << 20);
  CHECK(xz_dictionary_bytes("plain text") == -1);
  Diagnostics d;
  std::vector<Source> out;
  culprit::input::read_archive_memory(xz(40), "bigdict.log.xz", {}, d, [&](Source& s) { out.push_back(std::move(s)); });
  CHECK(out.empty());
  REQUIRE(d.size() == 1);
  CHECK(d[0].code == culprit::input::code::kArchiveMemory);
  CHECK(d[0].message == "an xz stream whose dictionary is 4.0 GiB (more than 64.0 MiB, xz -9's); not read");
}

// The same, for a block after the first: the xz file's index (at its end, xz-file-format 4) lists
// every block, and each block header's dictionary is read. Written to the format: stream header,
// blocks of a 12-byte header and a payload, the index (indicator, count, unpadded / uncompressed
// sizes, padding, CRC), the footer (CRC, backward size, flags, `YZ`); CRCs are not checked.
TEST_CASE("an xz file whose later block declares a dictionary over kMaxDictionaryBytes is not read", "[input][redteam]") {
  const auto block = [](char property, std::size_t payload) {
    std::string b = std::string("\x02\x00\x21\x01", 4) + property + std::string(7, '\0');
    return b + std::string(payload, 'x');
  };
  const auto xz = [&](std::vector<char> properties) {
    std::string s("\xfd" "7zXZ\x00\x00\x01" "CRC!", 12);
    std::string index("\x00", 1);
    index += static_cast<char>(properties.size());
    for (char p : properties) {
      const std::string b = block(p, 20);  // unpadded 32: already a multiple of 4
      s += b;
      index += static_cast<char>(b.size());
      index += static_cast<char>(100);
    }
    while (index.size() % 4) index += '\0';
    index += "CRC!";
    s += index;
    const std::uint32_t backward = static_cast<std::uint32_t>(index.size() / 4 - 1);
    s += "CRC!";
    for (int i = 0; i < 4; ++i) s += static_cast<char>((backward >> (8 * i)) & 0xFF);
    s += std::string("\x00\x01", 2) + "YZ";
    return s;
  };
  using culprit::input::detail::xz_dictionary_bytes;
  using culprit::input::detail::xz_max_dictionary;
  const std::string later = xz({28, 28, 40});
  const auto read_at = [&later](std::int64_t offset, std::size_t n) {
    return offset < 0 || static_cast<std::size_t>(offset) >= later.size() ? std::string()
                                                                           : later.substr(static_cast<std::size_t>(offset), n);
  };
  CHECK(xz_dictionary_bytes(later) == std::int64_t{64} << 20);  // the first block alone looks fine
  CHECK(xz_max_dictionary(read_at, static_cast<std::int64_t>(later.size())) == 0xFFFFFFFF);
  Diagnostics d;
  std::vector<Source> out;
  culprit::input::read_archive_memory(later, "later.log.xz", {}, d, [&](Source& s) { out.push_back(std::move(s)); });
  CHECK(out.empty());
  REQUIRE(d.size() == 1);
  CHECK(d[0].code == culprit::input::code::kArchiveMemory);
  // Every block within the bound: the index says so, and nothing is refused for it.
  const std::string fine = xz({28, 26});
  const auto read_fine = [&fine](std::int64_t offset, std::size_t n) {
    return offset < 0 || static_cast<std::size_t>(offset) >= fine.size() ? std::string()
                                                                          : fine.substr(static_cast<std::size_t>(offset), n);
  };
  CHECK(xz_max_dictionary(read_fine, static_cast<std::int64_t>(fine.size())) == std::int64_t{64} << 20);
  // Cut (no footer): no index, -1, and the first block decides.
  CHECK(xz_max_dictionary(read_at, static_cast<std::int64_t>(later.size()) - 12) == -1);
}
