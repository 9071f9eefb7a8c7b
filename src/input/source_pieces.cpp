// SourcePieces (see source_pieces.hpp).
#include "input/source_pieces.hpp"

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "culprit/core/huge_pages.hpp"
#include "input/documentation.hpp"

namespace culprit::input {
namespace {

/// Text buffers given back, for the next pieces and inputs (give_back_text): the biggest few.
struct SpareTexts {
  /// Two readers at once (scan's incidents) each fill one piece while the last is parsed.
  static constexpr std::size_t kMax = 4;
  std::mutex mutex;
  std::vector<std::string> texts;
};

SpareTexts& spare_texts() {
  static SpareTexts spares;
  return spares;
}

}  // namespace

void give_back_text(std::string&& text) {
  if (text.capacity() < static_cast<std::size_t>(kMinPieceBytes)) return;  // not worth keeping
  SpareTexts& spares = spare_texts();
  const std::lock_guard<std::mutex> lock(spares.mutex);
  if (spares.texts.size() < SpareTexts::kMax) {
    spares.texts.push_back(std::move(text));
    return;
  }
  // Full: a bigger buffer takes the smallest one's place (a small input's must not crowd out
  // the pieces' own).
  const auto by_room = [](const std::string& a, const std::string& b) { return a.capacity() < b.capacity(); };
  auto smallest = std::min_element(spares.texts.begin(), spares.texts.end(), by_room);
  if (smallest->capacity() < text.capacity()) *smallest = std::move(text);
}

void drop_spare_texts() {
  std::vector<std::string> dropped;
  const std::lock_guard<std::mutex> lock(spare_texts().mutex);
  dropped.swap(spare_texts().texts);
}

namespace detail {
namespace {

/// An empty text with room for `bytes`: the smallest buffer given back that is big enough (for
/// a piece's worth; a small input's text, which a handler may keep, is its own size).
std::string text_with_room(std::size_t bytes) {
  std::string text;
  if (bytes >= static_cast<std::size_t>(kMinPieceBytes)) {
    SpareTexts& spares = spare_texts();
    const std::lock_guard<std::mutex> lock(spares.mutex);
    auto best = spares.texts.end();
    for (auto it = spares.texts.begin(); it != spares.texts.end(); ++it)
      if (it->capacity() >= bytes && (best == spares.texts.end() || it->capacity() < best->capacity())) best = it;
    if (best != spares.texts.end()) {
      text = std::move(*best);
      spares.texts.erase(best);
    }
  }
  text.clear();
  if (text.capacity() < bytes) {
    text.reserve(bytes);
    core::ask_huge_pages(text.data(), text.capacity());  // before the reader first writes it
  }
  return text;
}

/// The last line start in `text` that follows a whole terminator (not the \r of a \r\n whose
/// \n is past the end), or 0.
std::size_t last_line_start(std::string_view text) {
  for (std::size_t i = text.size(); i > 0; --i) {
    const char c = text[i - 1];
    if (c == '\n') return i;
    if (c == '\r' && i < text.size() && text[i] != '\n') return i;
  }
  return 0;
}

void account(Source& src, std::size_t size, const LineCutter::Account& a) {
  src.read_bytes = a.read_bytes == static_cast<std::int64_t>(size) ? -1 : a.read_bytes;
  src.cut_line = a.read_bytes == static_cast<std::int64_t>(size) ? 0 : a.first_cut_line;
  src.cut_line_bytes = src.cut_line == 0 ? 0 : a.first_cut_bytes;
}

}  // namespace

SourcePieces::SourcePieces(Source& src, ReadContext& ctx, std::size_t max_line_bytes, bool whole)
    : src_(src), ctx_(ctx), cutter_(max_line_bytes) {
  const std::int64_t bytes = ctx.options.piece_bytes;
  // Documentation is read for its code blocks (ReadContext::emit), as a whole.
  const bool may_split = !whole && bytes > 0 && (src.from_stdin || !is_documentation_name(src.name));
  piece_bytes_ = may_split ? static_cast<std::size_t>(std::max(bytes, kMinPieceBytes)) : 0;
  next_try_ = piece_bytes_;
}

void SourcePieces::append(std::string_view chunk) {
  // Fed up to where split() is due, so a piece is never much over its size whatever the chunks.
  while (!chunk.empty()) {
    const std::size_t due = next_try_ > src_.text.size() ? next_try_ - src_.text.size() : 0;
    const std::size_t n = piece_bytes_ == 0 ? chunk.size() : std::min(chunk.size(), std::max<std::size_t>(due, 4096));
    cutter_.append(src_.text, chunk.substr(0, n));
    chunk.remove_prefix(n);
    if (piece_bytes_ != 0 && src_.text.size() >= next_try_) split();
  }
}

void SourcePieces::split() {
  std::string& text = src_.text;
  if (!probed_) {
    probed_ = true;
    if (!reads_as_lines(text)) {  // UTF-16 is decoded, an archive read, as a whole
      piece_bytes_ = 0;
      return;
    }
  }
  const std::string_view settled(text.data(), cutter_.settled(text));
  const bool must = text.size() >= must_bytes();
  std::size_t end = ctx_.options.piece_end ? ctx_.options.piece_end(settled, pieces_ == 0, must) : 0;
  if (end == kWholeInput) {
    piece_bytes_ = 0;
    return;
  }
  if (end == kEndWhenMust && must) end = 0;  // it must now: "not here", and the hard limit holds
  // Without piece_end at the last line start; past the hard limit, at the last one within it.
  if (end == 0 && !ctx_.options.piece_end) end = last_line_start(settled);
  if (end == 0 && text.size() >= kMaxPieceFactor * piece_bytes_)
    end = last_line_start(settled.substr(0, kMaxPieceFactor * piece_bytes_));
  // A piece never takes all there is, so the last one (finish()) is never empty. Read on a little
  // (piece_end looks again at the newest bytes), or, told so, to where the piece must end.
  if (end == 0 || end == kEndWhenMust || end >= text.size()) {
    const std::size_t later = text.size() + std::max<std::size_t>(piece_bytes_ / 8, 1);
    next_try_ = end == kEndWhenMust ? std::max(must_bytes(), later) : later;
    return;
  }
  const LineCutter::Account a = cutter_.take_front(std::string_view(text).substr(0, end));
  // The bytes past the piece's end wait in `tail_` while the piece is handed on. A piece parsed
  // on this thread gives its buffer back before emit() returns, and the input's next bytes then
  // go into that same buffer: one piece's room an input, not two (a scan's incidents each parse
  // on their own thread). A piece parsed on another thread still holds its buffer: the next
  // comes from those given back, or is new.
  tail_.assign(text, end);
  std::string taken = std::move(text);
  text.clear();
  Source piece = src_;  // the input's names and this piece's first line, without text
  piece.more = true;
  taken.resize(end);
  piece.text = std::move(taken);
  account(piece, piece.text.size(), a);
  src_.first_line += a.lines;
  ++pieces_;
  next_try_ = piece_bytes_;
  ctx_.emit(piece);
  text = text_with_room(piece_room());
  text.append(tail_);
}

void SourcePieces::reserve(std::int64_t size) {
  if (size <= 0 || !src_.text.empty()) return;
  if (piece_bytes_ != 0)
    size = std::min<std::int64_t>(size, static_cast<std::int64_t>(piece_room()));
  src_.text = text_with_room(static_cast<std::size_t>(size));
}

void SourcePieces::finish() {
  account(src_, src_.text.size(), cutter_.rest());
  src_.more = false;
}

}  // namespace detail
}  // namespace culprit::input
