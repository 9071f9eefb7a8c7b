// Literal-pass benchmark: the scan's one block pass alone, on one core. ingest::line_hit_list
// over the built-in rules (the format table's anchors, the parsers' markers and the signals'
// literals: one Hyperscan database, text::BlockScanner::hit_line_ids) over a corpus cut into
// pieces of the reader's size at line ends, beside the same number of literals drawn from rare
// letters, and beside text::split_lines. The first figure bounds `culprit scan`: every byte goes through it
// once, so on N cores the scan is never faster than N times it. The second shows what sets it:
// Hyperscan's FDR confirms every place a bucket of literals may end, so literals of common
// letters (log words) make it slower than rare ones of the same number and length.
//
// Usage: culprit_bench_literal_pass CORPUS [ROUNDS=3]   (CORPUS: a folder or a file)
// Prints one line per pass: its literals, GB/s (the best of ROUNDS), the lines with a hit. The
// corpus is held in memory (read once, so the passes time no I/O): size it to the machine.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "culprit/culprit.hpp"
#include "culprit/rules/loader.hpp"
#include "culprit/text/block_scanner.hpp"
#include "culprit/text/lines.hpp"
#include "ingest/line_hits.hpp"

namespace {

using Clock = std::chrono::steady_clock;

/// The reader's piece size, so blocks are the size a scan hands the pass.
constexpr auto kPieceBytes = static_cast<std::size_t>(culprit::kDefaultPieceBytes);

/// Every file under `root` (or `root` itself), each cut into pieces at the last line end within
/// kPieceBytes (the reader ends a piece where no block is open; on these blocks the pass's speed
/// is the same).
std::vector<std::string> read_pieces(const std::filesystem::path& root) {
  std::vector<std::filesystem::path> files;
  if (std::filesystem::is_directory(root)) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(
             root, std::filesystem::directory_options::follow_directory_symlink))
      if (e.is_regular_file()) files.push_back(e.path());
  } else {
    files.push_back(root);
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> pieces;
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    const std::string all((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (std::size_t at = 0; at < all.size();) {
      std::size_t end = std::min(all.size(), at + kPieceBytes);
      if (end < all.size()) {
        const std::size_t nl = all.rfind('\n', end - 1);
        if (nl != std::string::npos && nl >= at) end = nl + 1;
      }
      pieces.push_back(all.substr(at, end - at));
      at = end;
    }
  }
  return pieces;
}

struct PassTime {
  double seconds = 1e30;  ///< the best round
  std::size_t hit_lines = 0;
};

/// The best of `rounds` passes of `scanner` over every piece.
PassTime time_pass(const culprit::text::BlockScanner& scanner, const std::vector<std::string>& pieces, int rounds) {
  PassTime r;
  std::vector<culprit::text::BlockScanner::LineIds> hits;
  for (int round = 0; round < rounds; ++round) {
    std::size_t lines = 0;
    const auto start = Clock::now();
    for (const auto& piece : pieces) {
      hits.clear();
      if (!scanner.hit_line_ids(piece, hits)) {
        std::fprintf(stderr, "the scanner declined a block (no Hyperscan in this build?)\n");
        std::exit(1);
      }
      lines += hits.size();
    }
    r.seconds = std::min(r.seconds, std::chrono::duration<double>(Clock::now() - start).count());
    r.hit_lines = lines;
  }
  return r;
}

/// As many literals as `like` holds, each as long as its own, of letters log text seldom holds.
culprit::text::LiteralList rare_letters(const culprit::text::LiteralList& like) {
  std::mt19937 random(42);
  const std::string letters = "qxzjkvw";
  culprit::text::LiteralList out;
  for (const auto& lit : like.literals) {
    std::string s;
    for (std::size_t i = 0; i < lit.size(); ++i) s += letters[random() % letters.size()];
    out.literals.push_back(s);
    out.ids.push_back(1);
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || argc > 3) {
    std::fprintf(stderr, "usage: %s CORPUS [ROUNDS=3]\n", argv[0]);
    return 2;
  }
  using namespace culprit;
  if (text::BlockScanner::engine() != "hyperscan") {
    std::printf("literal pass: this build has no Hyperscan; nothing to measure\n");
    return 0;
  }
  const int rounds = argc == 3 ? std::max(1, std::atoi(argv[2])) : 3;
  const auto pieces = read_pieces(argv[1]);
  std::size_t bytes = 0;
  for (const auto& p : pieces) bytes += p.size();
  if (bytes == 0) {
    std::fprintf(stderr, "%s: no bytes to scan\n", argv[1]);
    return 2;
  }
  const rules::LoadResult loaded = rules::load_builtin_rules();
  const text::LiteralList culprits = ingest::line_hit_list(loaded.rules.signals);
  const text::LiteralList rare = rare_letters(culprits);
  const auto gbs = [bytes](double seconds) { return static_cast<double>(bytes) / 1e9 / seconds; };
  const auto report = [&](const char* what, const text::LiteralList& list) {
    const text::BlockScanner scanner(list.literals, text::BlockScanner::Engine::hyperscan,
                                     text::BlockScanner::kCompileAfterBytes, list.ids);
    const PassTime r = time_pass(scanner, pieces, rounds);
    std::printf("literal pass  %3zu literals, %-34s %5.2f GB/s one core  (%zu lines with a hit)\n",
                list.literals.size(), what, gbs(r.seconds), r.hit_lines);
  };
  std::printf("%.0f MB in %zu pieces of up to %zu MiB, best of %d\n", static_cast<double>(bytes) / 1e6,
              pieces.size(), kPieceBytes >> 20, rounds);
  report("culprit's (ingest::line_hit_list)", culprits);
  report("as many, of rare letters (qxzjkvw)", rare);
  double split = 1e30;
  std::size_t lines = 0;
  for (int round = 0; round < rounds; ++round) {
    lines = 0;
    const auto start = Clock::now();
    for (const auto& piece : pieces) lines += text::split_lines(piece).size();
    split = std::min(split, std::chrono::duration<double>(Clock::now() - start).count());
  }
  std::printf("split_lines   (for scale)                                     %5.2f GB/s one core  (%zu lines)\n",
              gbs(split), lines);
  return 0;
}
