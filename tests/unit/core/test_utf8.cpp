// The one home of terminal-safe text (core/utf8.hpp): decoding with replacement, columns,
// cleaning log text, showing names visibly, cut and wrap.
#include <catch2/catch.hpp>

#include <string>

#include "culprit/core/utf8.hpp"

namespace utf8_tests {

using namespace culprit;  // core::utf8

TEST_CASE("core::utf8::columns counts code points, wide characters twice, combining marks not", "[core]") {
  CHECK(core::utf8::columns("") == 0);
  CHECK(core::utf8::columns("abc") == 3);
  CHECK(core::utf8::columns("—…") == 2);
  CHECK(core::utf8::columns("中文") == 4);
  CHECK(core::utf8::columns("e\xcc\x81") == 1);  // e + combining acute
  CHECK(core::utf8::columns("\xff\xfe") == 2);   // each invalid byte is one U+FFFD
}

TEST_CASE("core::utf8::clean strips terminal escapes and controls, keeps newlines", "[core]") {
  CHECK(core::utf8::clean("\x1b[1;31mred\x1b[0m") == "red");
  CHECK(core::utf8::clean("\x1b]0;title\x07text") == "text");
  CHECK(core::utf8::clean("a\r\nb\rc") == "a\nb\nc");
  CHECK(core::utf8::clean("a\tb\x01\x7f") == "a b");
  CHECK(core::utf8::clean("\xc2\x9b" "c1") == "c1");                 // C1 control dropped
  CHECK(core::utf8::clean("x\xffy") == "x\xef\xbf\xbdy");
  CHECK(core::utf8::clean("\x1b[" + std::string(100, '1')) == "[" + std::string(100, '1'));  // unterminated
  CHECK(core::utf8::one_line("  first\n\nsecond \n") == "first second");
}

TEST_CASE("core::utf8::cut cuts at a word with an ellipsis, within the width", "[core]") {
  CHECK(core::utf8::cut("short", 10) == "short");
  CHECK(core::utf8::cut("exactly ten", 11) == "exactly ten");
  CHECK(core::utf8::cut("the quick brown fox jumps", 16) == "the quick brown…");
  CHECK(core::utf8::cut("the quick brown fox jumps", 15) == "the quick…");
  CHECK(core::utf8::cut("abcdefghijklmnopqrstuvwxyz", 10) == "abcdefghi…");  // no space: hard cut
  CHECK(core::utf8::cut("中文中文中文", 5) == "中文…");
  CHECK(core::utf8::cut("anything", 0) == "anything");
  CHECK(core::utf8::columns(core::utf8::cut(std::string(500, 'x') + " y", 37)) == 37);
}

TEST_CASE("core::utf8::wrap breaks at spaces and splits words longer than a line", "[core]") {
  using V = std::vector<std::string>;
  CHECK(core::utf8::wrap("one two three four", 9) == V{"one two", "three", "four"});
  CHECK(core::utf8::wrap("abcdefghij kl", 4) == V{"abcd", "efgh", "ij", "kl"});
  CHECK(core::utf8::wrap("", 10) == V{""});
  CHECK(core::utf8::wrap("  spaced   out  ", 20) == V{"spaced out"});
  CHECK(core::utf8::wrap("no limit at all", 0) == V{"no limit at all"});
}

// Issue 36 (redteam findings 1 and 5): a name or log line can hold escape sequences, OSC 52 (the
// clipboard), newlines that forge a diagnostic, bidi overrides ("Trojan Source") and zero-width
// characters. None reaches a terminal as such.
TEST_CASE("core::utf8::clean shows bidi controls and zero-width characters instead of passing them", "[core]") {
  CHECK(core::utf8::clean("E\xe2\x80\xae" "cba") == "E<U+202E>cba");               // RLO
  CHECK(core::utf8::clean("a\xe2\x81\xa6" "b\xe2\x81\xa9") == "a<U+2066>b<U+2069>");  // LRI / PDI
  CHECK(core::utf8::clean("py\xe2\x80\x8bthon") == "py<U+200B>thon");              // zero-width space
  CHECK(core::utf8::clean("\xef\xbb\xbfx") == "<U+FEFF>x");
  CHECK(core::utf8::clean("\xc2\x9b" "31m") == "31m");                              // the 8-bit CSI dropped
  CHECK(core::utf8::clean("caf\xc3\xa9 \xe4\xb8\xad") == "caf\xc3\xa9 \xe4\xb8\xad");  // ordinary text untouched
  CHECK(core::utf8::is_invisible_format(0x202E));
  CHECK(core::utf8::is_invisible_format(0x200D));
  CHECK_FALSE(core::utf8::is_invisible_format(0x2010));                              // a hyphen
}

TEST_CASE("core::utf8::visible shows every control of a name on one line", "[core]") {
  CHECK(core::utf8::visible("plain name-1.log") == "plain name-1.log");
  CHECK(core::utf8::visible("bin\x1b]0;PWNED-TITLE\x07\x1b[2J.log") == "bin\\x1b]0;PWNED-TITLE\\x07\\x1b[2J.log");
  CHECK(core::utf8::visible("empty\x1b]52;c;cm0gLXJmIH4K\x07.log") == "empty\\x1b]52;c;cm0gLXJmIH4K\\x07.log");
  CHECK(core::utf8::visible("nl\nfake: error[input-x]: forged\n.log") == "nl\\nfake: error[input-x]: forged\\n.log");
  CHECK(core::utf8::visible("a\tb\rc\x7f") == "a\\tb\\rc\\x7f");
  CHECK(core::utf8::visible("c1\xc2\x9b" "2J") == "c1<U+009B>2J");
  CHECK(core::utf8::visible("E\xe2\x80\xae" "x\xe2\x80\x8b") == "E<U+202E>x<U+200B>");
  CHECK(core::utf8::visible("latin1 caf\xe9") == "latin1 caf\\xe9");           // invalid UTF-8: the byte itself
  CHECK(core::utf8::visible("\xef\xbf\xbd") == "\xef\xbf\xbd");                  // a real U+FFFD stays one
  CHECK(core::utf8::visible("caf\xc3\xa9 \xe4\xb8\xad") == "caf\xc3\xa9 \xe4\xb8\xad");
  // Whatever the bytes, the result holds no byte a terminal acts on.
  std::string all;
  for (int c = 0; c < 256; ++c) all += static_cast<char>(c);
  for (unsigned char c : core::utf8::visible(all)) CHECK((c >= 0x20 && c != 0x7f));
}

}  // namespace utf8_tests
