// One byte's ASCII case fold, the one the literal index and the substring search both compare
// by: a literal folded one way and a line folded another would miss matches. Not installed.
#pragma once

namespace culprit::text::detail {

/// `c` with an ASCII upper-case letter mapped onto its lower case; every other byte as it is.
inline unsigned char fold(unsigned char c) { return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c | 0x20) : c; }

}  // namespace culprit::text::detail
