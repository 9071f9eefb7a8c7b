// text::find, text::contains and text::find_folded: a substring search for the checks asked of every line.
//
// std::string_view::find looks for the needle's first byte with memchr and compares the rest at
// each place it lands: a call per place. The checks asked of each line look for needles that
// open with a word's common bytes (` kernel: `, `  `, `, `, `pid`), so a line of a hundred bytes
// cost a dozen calls or more (a fifth of a Python log's scan). Here sixteen starts are weighed
// at once by the needle's first and last bytes, and only the starts where both match are
// compared whole: a line is a few vector steps.
#include <cstdint>
#include <cstring>

#include "ascii_fold.hpp"
#include "byte_vectors.hpp"
#include "culprit/text/lines.hpp"

namespace culprit::text {

namespace {

using detail::fold;
/// The bit that folds a byte onto `c`'s lower case where `c` is a letter (0x20), else 0. A
/// letter's two cases differ in bit 0x20 alone, and OR-ing it in maps no other byte onto a
/// lower-case letter: the OR-ed byte equals the letter's lower case exactly where the text holds
/// either case (other bytes are compared as they are).
unsigned char fold_bit(unsigned char c) { return (fold(c) >= 'a' && fold(c) <= 'z') ? 0x20 : 0; }

/// Where `s` first holds `needle` at or after `from` (npos: nowhere), its bytes compared as they
/// are or, kFolded, with a letter's two cases alike: sixteen starts a step are weighed by the
/// needle's first and last bytes, and only where both match is the whole compared.
template <bool kFolded>
std::size_t find_by_ends(std::string_view s, std::string_view needle, std::size_t from) {
  constexpr std::size_t kNone = std::string_view::npos;
  const std::size_t n = needle.size();
  if (from > s.size()) return kNone;
  if (n == 0) return from;
  if (n > s.size() - from) return kNone;
  const char* p = s.data();
  if (!kFolded && n == 1) {
    const void* at = std::memchr(p + from, needle[0], s.size() - from);
    return at ? static_cast<std::size_t>(static_cast<const char*>(at) - p) : kNone;
  }
  using namespace detail;
  const std::size_t last = n - 1;
  const std::size_t starts_end = s.size() - last;  // every start lies in [from, starts_end)
  const auto u0 = static_cast<unsigned char>(needle[0]), ul = static_cast<unsigned char>(needle[last]);
  const unsigned char bit0 = kFolded ? fold_bit(u0) : 0, bitl = kFolded ? fold_bit(ul) : 0;
  const unsigned char want0 = kFolded ? fold(u0) : u0, wantl = kFolded ? fold(ul) : ul;
  // The whole, where the ends matched: exactly the bytes between them (none for a needle of two:
  // the ends are the match), or every byte folded.
  const auto matches = [&](std::size_t at) {
    if (!kFolded) return n == 2 || std::memcmp(p + at + 1, needle.data() + 1, n - 2) == 0;
    for (std::size_t k = 0; k < n; ++k)
      if (fold(static_cast<unsigned char>(p[at + k])) != fold(static_cast<unsigned char>(needle[k]))) return false;
    return true;
  };
  const Bytes16 first = splat16(want0), first_bit = splat16(bit0);
  const Bytes16 final = splat16(wantl), final_bit = splat16(bitl);
  // The starts [at, at + 16) whose ends match, as bits; load16(p + at + last) reads up to
  // p[starts_end - 1 + last] = the last byte of s.
  const auto ends_match = [&](std::size_t at) {
    return bits16(((load16(p + at) | first_bit) == first) & ((load16(p + at + last) | final_bit) == final));
  };
  const auto first_match = [&](std::size_t at, unsigned bits) {
    for (; bits != 0; bits &= bits - 1)
      if (const std::size_t k = at + static_cast<std::size_t>(__builtin_ctz(bits)); matches(k)) return k;
    return kNone;
  };
  std::size_t i = from;
  for (; i + 16 <= starts_end; i += 16)
    if (const std::size_t k = first_match(i, ends_match(i)); k != kNone) return k;
  // The last starts (fewer than sixteen) in one step that ends at starts_end: it overlaps
  // starts already weighed (or before `from`), whose bits are cleared. A line's tail is one
  // vector step instead of up to fifteen byte steps.
  if (i < starts_end && starts_end >= 16) {
    const std::size_t at = starts_end - 16;
    return first_match(at, ends_match(at) & ~((1u << (i - at)) - 1u));
  }
  for (; i < starts_end; ++i)
    if ((static_cast<unsigned char>(p[i]) | bit0) == want0 && (static_cast<unsigned char>(p[i + last]) | bitl) == wantl &&
        matches(i))
      return i;
  return kNone;
}

}  // namespace

std::size_t find(std::string_view s, std::string_view needle, std::size_t from) {
  return find_by_ends<false>(s, needle, from);
}

bool contains(std::string_view s, std::string_view needle) { return find(s, needle) != std::string_view::npos; }

std::size_t find_folded(std::string_view s, std::string_view needle, std::size_t from) {
  return find_by_ends<true>(s, needle, from);
}

}  // namespace culprit::text
