// Text normalisation before sniffing: whatever bytes a source holds become text every parser
// can take. UTF-16 (with or without a byte-order mark) and UTF-32 (with one) are decoded, a UTF-8 BOM dropped, NUL
// bytes (a crash's zero-filled blocks) removed, invalid UTF-8 replaced by U+FFFD, and lines
// over the per-line limit cut. Line numbers never change. Private to the ingest module.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "culprit/text/lines.hpp"

namespace culprit::ingest::detail {

/// What normalisation did, for the one note per kind and source.
struct NormalizeReport {
  bool binary = false;                ///< not text: nothing else was done
  int binary_percent = 0;             ///< share of control bytes in the probe
  std::string encoding;               ///< "UTF-16LE", "UTF-16BE", "UTF-32LE", "UTF-32BE" when decoded; else empty
  bool encoding_from_bom = false;     ///< the byte-order mark said so (else guessed from NULs)
  std::int64_t nul_bytes = 0;         ///< NUL bytes removed
  std::int64_t first_nul_line = 0;
  std::int64_t invalid_utf8_lines = 0;
  std::int64_t first_invalid_line = 0;
  std::int64_t cut_lines = 0;         ///< lines longer than the limit
  std::int64_t first_cut_line = 0;
  std::int64_t first_cut_bytes = 0;   ///< the length of that line before the cut
};

/// Returns the normalised text: `in` itself when nothing had to change (the common case, no
/// copy), else a view of `storage`. `max_line_bytes` 0 means no per-line limit. When the
/// first 64 KiB (after decoding), NULs aside, hold 5% or more control bytes (random data has
/// about 10%), the input is binary: `report.binary` is set and the text is returned unchanged.
/// `rare`, where given, gets the returned text's census (text::RareBytes), which the check for
/// NULs is read from.
std::string_view normalize_text(std::string_view in, std::size_t max_line_bytes, std::string& storage,
                                NormalizeReport& report, text::RareBytes* rare = nullptr);

}  // namespace culprit::ingest::detail
