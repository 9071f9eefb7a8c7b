// input::ReadOptions::piece_bytes: an input past it is handed on in pieces. The pieces must be
// the input: joined, they are the text read whole; each ends at a line end and numbers its
// first line as the file does; the bytes each stands for add up to the file; a line the
// cutter cut is noted in the piece that holds it. Inputs that are not lines (UTF-16, an
// archive kept whole) or that piece_end keeps whole are one source, as before.
#include <unistd.h>

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "culprit/input/reader.hpp"
#include "unit/input/archive_bytes.hpp"

namespace fs = std::filesystem;
using culprit::core::Diagnostics;
using culprit::input::ReadOptions;
using culprit::input::Source;

namespace {

constexpr std::int64_t kPiece = culprit::input::kMinPieceBytes;
constexpr std::size_t kLineLimit = 1000;

struct TempFile {
  fs::path path;
  explicit TempFile(std::string_view content, const std::string& name = "big.log") {
    std::string tmpl = (fs::temp_directory_path() / "culprit-pieces-XXXXXX").string();
    dir = ::mkdtemp(tmpl.data());
    path = dir / name;
    std::ofstream(path, std::ios::binary) << content;
  }
  ~TempFile() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  fs::path dir;
};

/// Lines as ingest counts them (\n, \r\n, a lone \r) that end in `text`.
std::int64_t line_ends(std::string_view text) {
  std::int64_t n = 0;
  for (std::size_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n' ? (i == 0 || text[i - 1] != '\r') : text[i] == '\r') ++n;
  return n;
}

/// About `bytes` of log: ordinary lines, CRLF and lone-CR lines (unless `carriage_returns` is
/// false: \n only), and every 97th line far over the per-line limit (some split by the reader's
/// window, some by a piece's growth).
std::string mixed_log(std::size_t bytes, bool carriage_returns = true) {
  std::string out;
  for (int i = 1; out.size() < bytes; ++i) {
    if (i % 97 == 0) out += "long " + std::string(3 * kLineLimit + static_cast<std::size_t>(i % 7) * 911, 'x');
    else out += "2026-04-09 05:10:11 INFO line " + std::to_string(i);
    out += !carriage_returns ? "\n" : i % 13 == 0 ? "\r\n" : i % 29 == 0 ? "\r" : "\n";
  }
  return out;
}

/// The number of the first line in `text` that the reader cut (a `long` line shorter than
/// mixed_log writes any), 0 when none: lines counted as line_ends counts them.
std::size_t first_cut_line(std::string_view text) {
  std::size_t line = 1;
  for (std::size_t at = 0; at < text.size(); ++line) {
    std::size_t end = text.find_first_of("\r\n", at);
    if (end == std::string_view::npos) end = text.size();
    if (text.compare(at, 5, "long ") == 0 && end - at < 3 * kLineLimit) return line;
    at = end + (text.compare(end, 2, "\r\n") == 0 ? 2 : 1);
  }
  return 0;
}

std::vector<Source> read(const fs::path& path, ReadOptions o, Diagnostics& d) {
  o.max_line_bytes = kLineLimit;
  return culprit::input::read_inputs({path.string()}, o, d);
}

/// Joined, the pieces are the whole read; all but the last say `more`; line numbers and byte
/// accounts follow the file; each piece names the first line cut in it.
void require_pieces_are_the_input(const std::vector<Source>& pieces, const Source& whole) {
  REQUIRE(pieces.size() > 2);
  std::string joined;
  std::int64_t line = whole.first_line, bytes = 0;
  for (std::size_t k = 0; k < pieces.size(); ++k) {
    const Source& p = pieces[k];
    INFO("piece " << k);
    CHECK(p.name == whole.name);
    CHECK(p.more == (k + 1 < pieces.size()));
    CHECK(p.first_line == line);
    if (p.more) {  // ends at a line end: a \n, or a lone \r (not the \r of a \r\n)
      const std::size_t next = joined.size() + p.text.size();
      CHECK((p.text.back() == '\n' || (p.text.back() == '\r' && whole.text[next] != '\n')));
    }
    // The first line cut in this piece (a `long` line now short), none cut before it here.
    const std::size_t first_cut = first_cut_line(p.text);
    CHECK(p.cut_line == static_cast<std::int64_t>(first_cut));
    if (p.cut_line != 0) CHECK(p.cut_line_bytes >= static_cast<std::int64_t>(3 * kLineLimit));
    line += line_ends(p.text);
    bytes += p.size();
    joined += p.text;
  }
  CHECK(joined == whole.text);
  CHECK(bytes == whole.size());
}

/// Reads `path` whole and again in pieces of kPiece, ending at the reader's own line ends, and
/// holds the pieces to the whole (require_pieces_are_the_input).
void require_pieces_of_file_are_the_file(const fs::path& path) {
  Diagnostics d;
  const auto whole = read(path, {}, d);
  REQUIRE(whole.size() == 1);
  ReadOptions o;
  o.piece_bytes = kPiece;
  require_pieces_are_the_input(read(path, o, d), whole[0]);
}

}  // namespace

TEST_CASE("a file past piece_bytes is handed on in pieces that are the file", "[input]") {
  const std::string log = mixed_log(static_cast<std::size_t>(10 * kPiece));
  const TempFile file(log);
  Diagnostics d;
  const auto whole = read(file.path, {}, d);
  REQUIRE(whole.size() == 1);
  CHECK_FALSE(whole[0].more);
  CHECK(whole[0].size() == static_cast<std::int64_t>(log.size()));
  ReadOptions o;
  o.piece_bytes = kPiece;
  SECTION("at the last line end") { require_pieces_are_the_input(read(file.path, o, d), whole[0]); }
  SECTION("where piece_end says, after reading on where it finds none") {
    int asked = 0, ended = 0;
    o.piece_end = [&asked, &ended](std::string_view text, bool head, bool) -> std::size_t {
      CHECK(head == (ended == 0));
      if (++asked % 2 == 1) return 0;  // not here: read on
      ++ended;
      const std::size_t nl = text.find('\n', text.size() / 2);
      return nl == std::string_view::npos ? 0 : nl + 1;
    };
    const auto pieces = read(file.path, o, d);
    require_pieces_are_the_input(pieces, whole[0]);
    CHECK(static_cast<std::int64_t>(pieces.front().text.size()) < kPiece);  // the end it chose, not the last
  }
  SECTION("piece_end's kEndWhenMust: it is asked again only when the piece must end") {
    int early = 0;
    o.piece_end = [&early](std::string_view text, bool, bool must) -> std::size_t {
      if (!must) {
        ++early;
        return culprit::input::kEndWhenMust;
      }
      CHECK(static_cast<std::int64_t>(text.size()) >= 2 * kPiece);
      return text.rfind('\n', text.size() - 2) + 1;
    };
    const auto pieces = read(file.path, o, d);
    require_pieces_are_the_input(pieces, whole[0]);
    REQUIRE(pieces.size() >= 3);
    // Once a piece, at piece_bytes (the last piece too where it grew that long), not at every
    // eighth of piece_bytes read after.
    CHECK(early >= static_cast<int>(pieces.size()) - 1);
    CHECK(early <= static_cast<int>(pieces.size()));
    for (std::size_t k = 0; k + 1 < pieces.size(); ++k)
      CHECK(static_cast<std::int64_t>(pieces[k].text.size()) > 2 * kPiece - 4096);
  }
  SECTION("past twice piece_bytes, piece_end is told it must end") {
    o.piece_end = [](std::string_view text, bool, bool must) -> std::size_t {
      if (!must) return 0;
      CHECK(static_cast<std::int64_t>(text.size()) >= 2 * kPiece);
      return text.rfind('\n', text.size() - 2) + 1;
    };
    const auto pieces = read(file.path, o, d);
    require_pieces_are_the_input(pieces, whole[0]);
    for (const auto& p : pieces) CHECK(static_cast<std::int64_t>(p.text.size()) <= 2 * kPiece + kPiece / 8 + 4096);
  }
}

TEST_CASE("a file of LF lines only is numbered across its pieces as one with CR is", "[input]") {
  // Without a '\r' the reader counts a piece's lines by its newlines alone (line_ends' fast path).
  const std::string log = mixed_log(static_cast<std::size_t>(10 * kPiece), false);
  REQUIRE(log.find('\r') == std::string::npos);
  const TempFile file(log);
  require_pieces_of_file_are_the_file(file.path);
}

TEST_CASE("a piece that piece_end never ends stops at 64 times piece_bytes", "[input]") {
  const std::string log = mixed_log(static_cast<std::size_t>(140 * kPiece));  // ~75 pieces once cut
  const TempFile file(log);
  Diagnostics d;
  const auto whole = read(file.path, {}, d);
  ReadOptions o;
  o.piece_bytes = kPiece;
  // "Not here", or "ask again when you must" even when it must (a task table that goes on):
  // either way the hard limit ends the piece.
  const std::size_t answer = GENERATE(std::size_t{0}, culprit::input::kEndWhenMust);
  INFO("piece_end says " << answer);
  o.piece_end = [answer](std::string_view, bool, bool) -> std::size_t { return answer; };
  const auto pieces = read(file.path, o, d);
  REQUIRE(pieces.size() >= 2);
  CHECK(static_cast<std::int64_t>(pieces.front().text.size()) <= 64 * kPiece);
  CHECK(static_cast<std::int64_t>(pieces.front().text.size()) > 63 * kPiece);
  std::string joined;
  for (const auto& p : pieces) joined += p.text;
  CHECK(joined == whole[0].text);
}

TEST_CASE("the tail of a file past max_file_bytes is read in pieces with the file's line numbers", "[input]") {
  const std::string log = mixed_log(static_cast<std::size_t>(6 * kPiece));
  const TempFile file(log);
  ReadOptions o;
  o.max_file_bytes = 4 * kPiece + 17;
  Diagnostics d;
  const auto whole = read(file.path, o, d);
  REQUIRE(whole.size() == 1);
  CHECK(whole[0].first_line > 1);
  o.piece_bytes = kPiece;
  require_pieces_are_the_input(read(file.path, o, d), whole[0]);
}

TEST_CASE("a gzip member past piece_bytes is read in pieces", "[input]") {
  const std::string log = mixed_log(static_cast<std::size_t>(4 * kPiece));
  const TempFile file(culprit::test::gzip_stored(log), "worker.log.gz");
  require_pieces_of_file_are_the_file(file.path);
}

TEST_CASE("inputs that are not lines, or that piece_end keeps whole, are one source", "[input]") {
  ReadOptions o;
  o.piece_bytes = kPiece;
  Diagnostics d;
  SECTION("piece_end: the whole input") {
    const TempFile file(mixed_log(static_cast<std::size_t>(3 * kPiece)));
    o.piece_end = [](std::string_view, bool head, bool) { return head ? culprit::input::kWholeInput : std::size_t{1}; };
    CHECK(read(file.path, o, d).size() == 1);
  }
  SECTION("UTF-16") {
    std::string utf16("\xFF\xFE");
    for (char c : mixed_log(static_cast<std::size_t>(kPiece))) utf16 += {c, '\0'};
    const TempFile file(utf16);
    const auto s = read(file.path, o, d);
    REQUIRE(s.size() == 1);
    CHECK(s[0].text.size() == utf16.size());
  }
  SECTION("documentation: its code block is read whole") {
    const std::string log = mixed_log(static_cast<std::size_t>(3 * kPiece));
    const TempFile file("# Incident\n\n```\n" + log + "```\n", "README.md");
    const auto s = read(file.path, o, d);
    REQUIRE(s.size() == 1);
    CHECK_FALSE(s[0].more);
    CHECK(s[0].text.size() > static_cast<std::size_t>(kPiece));
  }
}

TEST_CASE("pieces are the input for any text and any line starts piece_end chooses", "[input]") {
  // Random texts: lines of every length (some far over the per-line limit), \n, \r\n, lone \r
  // and NULs, cut into pieces wherever a random piece_end says (or nowhere, reading on).
  for (unsigned seed = 1; seed <= 12; ++seed) {
    INFO("seed " << seed);
    std::mt19937 random(seed);
    std::string text;
    while (text.size() < static_cast<std::size_t>(6 * kPiece)) {
      const std::size_t length = random() % 16 == 0 ? random() % (4 * kLineLimit) : random() % 160;
      for (std::size_t i = 0; i < length; ++i) text += random() % 97 == 0 ? '\0' : static_cast<char>('a' + random() % 26);
      const unsigned end = random() % 10;
      text += end == 0 ? "\r\n" : end == 1 ? "\r" : "\n";
    }
    if (text.compare(0, 2, "\r\n") == 0) text[0] = 'x';
    for (std::size_t i = 0; i < 4096; ++i)  // no NUL in the head: it reads as lines, not UTF-16
      if (text[i] == '\0') text[i] = 'n';
    const TempFile file(text);
    Diagnostics d;
    const auto whole = read(file.path, {}, d);
    REQUIRE(whole.size() == 1);
    ReadOptions o;
    o.piece_bytes = kPiece;
    o.piece_end = [&random](std::string_view settled, bool, bool) -> std::size_t {
      if (random() % 3 == 0) return 0;  // not here: read on
      std::size_t at = random() % settled.size();
      while (at > 0 && settled[at - 1] != '\n') --at;  // the line start at or before it
      return at;
    };
    std::vector<Source> pieces = read(file.path, o, d);
    REQUIRE(pieces.size() >= 2);
    std::string joined;
    std::int64_t line = 1, bytes = 0;
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      INFO("piece " << k);
      CHECK(pieces[k].first_line == line);
      CHECK(pieces[k].more == (k + 1 < pieces.size()));
      line += line_ends(pieces[k].text);
      bytes += pieces[k].size();
      joined += pieces[k].text;
    }
    CHECK(joined == whole[0].text);
    CHECK(bytes == whole[0].size());
  }
}

TEST_CASE("an input is read into a buffer handed back, and its own goes back after its handler", "[input]") {
  // A spare of a room no fresh buffer has: the input past kMinPieceBytes read next is read into
  // it (the smallest spare it fits: the other spares are pieces' 1.25 x piece_bytes), and, its
  // handler leaving the text where it is, ReadContext::emit hands it back for the read after.
  // A fresh buffer's room would be the input's own size.
  const std::string log = mixed_log(static_cast<std::size_t>(5 * kPiece), false);
  const TempFile file(log);
  std::string spare;
  spare.reserve(log.size() + 123);
  const std::size_t room = spare.capacity();
  REQUIRE(room < log.size() + 4096);
  culprit::input::give_back_text(std::move(spare));
  Diagnostics d;
  for (int read = 1; read <= 2; ++read) {
    std::vector<std::size_t> rooms;
    culprit::input::read_inputs({file.path.string()}, {}, d,
                                [&rooms](Source& src) { rooms.push_back(src.text.capacity()); });
    INFO("read " << read);
    REQUIRE(rooms.size() == 1);
    CHECK(rooms[0] == room);
  }
}

TEST_CASE("the pieces of an input parsed where it is read are all in one buffer", "[input]") {
  // Each piece's handler parses it before the reader goes on (a scan's incident on one thread),
  // so the buffer it gave back takes the input's next bytes: one piece's room an input, not two.
  culprit::input::drop_spare_texts();  // no spare of another room to be chosen first
  const TempFile file(mixed_log(static_cast<std::size_t>(6 * kPiece), false));
  ReadOptions o;
  o.piece_bytes = kPiece;
  Diagnostics d;
  std::vector<const char*> buffers;
  culprit::input::read_inputs({file.path.string()}, o, d, [&buffers](Source& src) { buffers.push_back(src.text.data()); });
  REQUIRE(buffers.size() > 2);
  CHECK(std::set<const char*>(buffers.begin(), buffers.end()).size() == 1);
}

TEST_CASE("a buffer handed back is not read into once the spares are dropped", "[input]") {
  const std::string log = mixed_log(static_cast<std::size_t>(5 * kPiece), false);
  const TempFile file(log);
  std::string spare;
  spare.reserve(log.size() + 123);
  const std::size_t room = spare.capacity();
  culprit::input::give_back_text(std::move(spare));
  culprit::input::drop_spare_texts();
  Diagnostics d;
  std::vector<std::size_t> rooms;
  culprit::input::read_inputs({file.path.string()}, {}, d, [&rooms](Source& src) { rooms.push_back(src.text.capacity()); });
  REQUIRE(rooms.size() == 1);
  CHECK(rooms[0] != room);
  CHECK(rooms[0] >= log.size());
}
