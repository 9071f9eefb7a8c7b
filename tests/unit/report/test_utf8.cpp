// The renderers' UTF-8 helpers: decoding with replacement, columns, cleaning, cut and wrap.
#include <catch2/catch.hpp>

#include <string>

#include "report/utf8.hpp"

using namespace culprit::report;

TEST_CASE("utf8::columns counts code points, wide characters twice, combining marks not", "[report]") {
  CHECK(utf8::columns("") == 0);
  CHECK(utf8::columns("abc") == 3);
  CHECK(utf8::columns("—…") == 2);
  CHECK(utf8::columns("中文") == 4);
  CHECK(utf8::columns("e\xcc\x81") == 1);  // e + combining acute
  CHECK(utf8::columns("\xff\xfe") == 2);   // each invalid byte is one U+FFFD
}

TEST_CASE("utf8::clean strips terminal escapes and controls, keeps newlines", "[report]") {
  CHECK(utf8::clean("\x1b[1;31mred\x1b[0m") == "red");
  CHECK(utf8::clean("\x1b]0;title\x07text") == "text");
  CHECK(utf8::clean("a\r\nb\rc") == "a\nb\nc");
  CHECK(utf8::clean("a\tb\x01\x7f") == "a b");
  CHECK(utf8::clean("\xc2\x9b" "c1") == "c1");                 // C1 control dropped
  CHECK(utf8::clean("x\xffy") == "x\xef\xbf\xbdy");
  CHECK(utf8::clean("\x1b[" + std::string(100, '1')) == "[" + std::string(100, '1'));  // unterminated
  CHECK(utf8::one_line("  first\n\nsecond \n") == "first second");
}

TEST_CASE("utf8::cut cuts at a word with an ellipsis, within the width", "[report]") {
  CHECK(utf8::cut("short", 10) == "short");
  CHECK(utf8::cut("exactly ten", 11) == "exactly ten");
  CHECK(utf8::cut("the quick brown fox jumps", 16) == "the quick brown…");
  CHECK(utf8::cut("the quick brown fox jumps", 15) == "the quick…");
  CHECK(utf8::cut("abcdefghijklmnopqrstuvwxyz", 10) == "abcdefghi…");  // no space: hard cut
  CHECK(utf8::cut("中文中文中文", 5) == "中文…");
  CHECK(utf8::cut("anything", 0) == "anything");
  CHECK(utf8::columns(utf8::cut(std::string(500, 'x') + " y", 37)) == 37);
}

TEST_CASE("utf8::wrap breaks at spaces and splits words longer than a line", "[report]") {
  using V = std::vector<std::string>;
  CHECK(utf8::wrap("one two three four", 9) == V{"one two", "three", "four"});
  CHECK(utf8::wrap("abcdefghij kl", 4) == V{"abcd", "efgh", "ij", "kl"});
  CHECK(utf8::wrap("", 10) == V{""});
  CHECK(utf8::wrap("  spaced   out  ", 20) == V{"spaced out"});
  CHECK(utf8::wrap("no limit at all", 0) == V{"no limit at all"});
}
