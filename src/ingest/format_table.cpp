// The format table (see format_table.hpp): every format culprit reads, as data. Scores rank the
// anchors: a tool's own banner or header over generic shapes (CSV cells, a PID column), blocks
// over kernel lines, kernel lines over the app-log fallback. Equal scores go to the earlier row.
#include "ingest/format_table.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "culprit/ingest/parser.hpp"
#include "culprit/ingest/sniff.hpp"
#include "culprit/text/lines.hpp"
#include "culprit/text/literal_set.hpp"
#include "ingest/format_detect.hpp"
#include "ingest/formats/amd_smi.hpp"
#include "ingest/formats/nvitop.hpp"
#include "ingest/formats/rocm_smi.hpp"

namespace culprit::ingest {
namespace {

constexpr FormatSpec kTable[] = {
    // Above nvidia-smi's: its Processes box says `Processes:` too.
    {.id = kNvitopFormat, .scope = Scope::block, .score = 95, .detect = detect::nvitop_block,
     .parse = parse_nvitop, .merges = false, .anchors = detect::kNvitopAnchors, .samples = {"nvitop"}},
    {.id = format::kNvidiaSmiTable, .scope = Scope::block, .score = 90, .detect = detect::smi_table,
     .parse = parse_nvidia_smi_table, .merges = false,
     .anchors = detect::kSmiTableAnchors, .unanchored = detect::smi_row_shape, .unanchored_first = detect::smi_row_first,
     .samples = {"nvidia_smi"}},
    {.id = format::kFree, .scope = Scope::block, .score = 90, .detect = detect::free_block,
     .parse = parse_free, .merges = false,
     .anchors = detect::kFreeAnchors, .samples = {"free"}},
    {.id = format::kMeminfo, .scope = Scope::block, .score = 90, .detect = detect::meminfo_block,
     .parse = parse_meminfo, .merges = false,
     .anchors = detect::kMeminfoAnchors, .samples = {"meminfo"}},
    {.id = format::kCgroupMemory, .scope = Scope::block, .score = 80, .detect = detect::cgroup_memory_block,
     .parse = parse_cgroup_memory, .merges = false,
     .anchors = detect::kCgroupMemoryAnchors, .samples = {"cgroup_memory"}},
    {.id = kRocmSmiFormat, .scope = Scope::block, .score = 80, .detect = detect::rocm_smi_block,
     .parse = parse_rocm_smi, .merges = false, .anchors = detect::kRocmSmiAnchors, .samples = {"rocm_smi"}},
    {.id = format::kJournalJson, .scope = Scope::block, .score = 80, .detect = detect::journal_json,
     .parse = parse_journal_json, .merges = true,
     .unanchored = detect::json_shape, .unanchored_first = detect::json_first, .samples = {"journal_json"}},
    {.id = format::kDockerInspect, .scope = Scope::block, .score = 80, .detect = detect::docker_inspect,
     .parse = parse_docker_inspect, .merges = true,
     .unanchored = detect::json_shape, .unanchored_first = detect::json_first, .samples = {"docker_inspect"}},
    {.id = format::kTorchelasticError, .scope = Scope::block, .score = 80, .detect = detect::torchelastic_error,
     .parse = parse_torchelastic_error, .merges = false,
     .unanchored = detect::json_shape, .unanchored_first = detect::json_first, .samples = {"torchelastic_error"}},
    {.id = format::kTorchMemorySnapshot, .scope = Scope::block, .score = 80, .detect = detect::torch_memory_snapshot,
     .parse = parse_torch_memory_snapshot, .merges = false,
     .unanchored = detect::json_shape, .unanchored_first = detect::json_first, .samples = {"torch_memory_snapshot"}},
    {.id = format::kKubectlDescribe, .scope = Scope::block, .score = 70, .detect = detect::kubectl_describe,
     .parse = parse_kubectl_describe, .merges = true,
     .anchors = detect::kKubectlAnchors, .samples = {"kubectl_describe"}},
    {.id = format::kNvidiaSmiQ, .scope = Scope::block, .score = 70, .detect = detect::smi_q,
     .announced_by = detect::announces_smi_q, .continues = detect::continues_smi_q,
     .parse = parse_nvidia_smi_q, .merges = false,
     .anchors = detect::kSmiQAnchors, .samples = {"nvidia_smi_q"}},
    {.id = format::kNvidiaSmiXml, .scope = Scope::block, .score = 70, .detect = detect::smi_xml,
     .parse = parse_nvidia_smi_xml, .merges = false,
     .unanchored = detect::smi_xml_shape, .unanchored_first = detect::smi_xml_first, .samples = {"nvidia_smi_xml"}},
    {.id = format::kNvidiaSmiCsv, .scope = Scope::block, .score = 60, .detect = detect::smi_csv,
     .announced_by = detect::announces_smi_csv, .continues = detect::continues_smi_csv,
     .parse = parse_nvidia_smi_csv, .merges = false,
     .anchors = detect::kSmiCsvAnchors, .unanchored = detect::smi_csv_shape, .unanchored_first = detect::smi_csv_first,
     .unanchored_pattern = detect::kSmiCsvShapePattern, .unanchored_pattern_fits = detect::bus_id_cell_at,
     .samples = {"nvidia_smi_csv"}},
    {.id = format::kGpustat, .scope = Scope::block, .score = 60, .detect = detect::gpustat_block,
     .parse = parse_gpustat, .merges = false,
     .unanchored = detect::gpustat_shape, .unanchored_first = detect::gpustat_first,
     .unanchored_pattern = detect::kGpustatShapePattern, .samples = {"gpustat"}},
    {.id = kAmdSmiFormat, .scope = Scope::block, .score = 60, .detect = detect::amd_smi_block,
     .parse = parse_amd_smi, .merges = false, .anchors = detect::kAmdSmiAnchors, .samples = {"amd_smi"}},
    {.id = format::kPs, .scope = Scope::block, .score = 50, .detect = detect::ps_block,
     .parse = parse_ps, .merges = false,
     .unanchored = detect::ps_shape, .unanchored_first = detect::ps_first, .samples = {"ps"}},
    {.id = format::kProcStack, .scope = Scope::block, .score = 50, .detect = detect::proc_stack,
     .announced_by = detect::announces_proc_stack, .continues = detect::continues_proc_stack, .parse = parse_proc_stack, .merges = false,
     .anchors = detect::kProcStackAnchors, .samples = {"proc_stack"}},
    {.id = format::kProcStatus, .scope = Scope::block, .score = 80, .detect = detect::proc_status_block,
     .parse = parse_proc_status, .merges = false,
     .anchors = detect::kProcStatusAnchors, .samples = {"proc_status"}},
    {.id = format::kDockerPs, .scope = Scope::block, .score = 50, .detect = detect::docker_ps,
     .parse = parse_docker_ps, .merges = false,
     .anchors = detect::kDockerPsAnchors, .samples = {"docker"}},
    {.id = format::kKernelLog, .scope = Scope::line, .score = 20, .detect = detect::kernel_run,
     .claims_line = detect::kernel_line, .parse = parse_kernel_log, .merges = true,
     .anchors = detect::kKernelAnchors, .anchor_bit = kKernelAnchorBit, .unanchored = detect::kernel_shape,
     .samples = {"kernel"}},
    {.id = format::kAppLog, .scope = Scope::fallback, .score = 0, .parse = parse_app_log, .merges = true,
     .samples = {"app_log", "torch_oom", "traceback"}},
};

struct Ranks {
  std::vector<const FormatSpec*> block, line, fallback;
  ShapedRows shaped_block, shaped_line, shaped_fallback;
  Ranks() {
    for (const FormatSpec& f : kTable)
      (f.scope == Scope::block ? block : f.scope == Scope::line ? line : fallback).push_back(&f);
    for (auto* v : {&block, &line, &fallback})
      std::stable_sort(v->begin(), v->end(), [](const FormatSpec* a, const FormatSpec* b) { return a->score > b->score; });
    const auto shaped = [](const std::vector<const FormatSpec*>& rows, ShapedRows& out) {
      for (const FormatSpec* f : rows) {
        if (f->unanchored == nullptr && !f->anchors.empty()) continue;  // found by its literals alone
        for (std::size_t c = 0; c <= ShapedRows::kEmpty; ++c)
          if (f->unanchored_first == nullptr || (c < ShapedRows::kEmpty && f->unanchored_first(static_cast<char>(c))))
            out.by_first[c].push_back(f);
      }
    };
    shaped(block, shaped_block);
    shaped_block.stamped_asked_nothing = true;
    shaped(line, shaped_line);
    shaped(fallback, shaped_fallback);
  }
};

const Ranks& ranks() {
  static const Ranks r;
  return r;
}

}  // namespace

std::size_t Scan::pattern_lines_for(std::string_view pattern, PatternFits fits) const {
  auto it = std::find_if(pattern_lines.begin(), pattern_lines.end(),
                         [pattern, fits](const PatternLines& p) { return p.pattern == pattern && p.fits == fits; });
  if (it == pattern_lines.end()) {
    PatternLines found{pattern, fits, std::vector<unsigned char>(end > begin ? end - begin : 0, 0)};
    if (end > begin) {
      const char* base = lines[begin].data();
      const std::string_view text(base, static_cast<std::size_t>(lines[end - 1].data() + lines[end - 1].size() - base));
      std::size_t k = begin;
      text::for_each_pattern(text, pattern, '?', [&](std::size_t at) {
        const char* hit = base + at;
        // The line the match ends in; it holds the match when it starts there too (a match
        // across a line end holds in neither line).
        while (k + 1 < end && lines[k].data() + lines[k].size() < hit + pattern.size()) ++k;
        if (lines[k].data() <= hit && hit + pattern.size() <= lines[k].data() + lines[k].size() &&
            (fits == nullptr || fits(lines[k], static_cast<std::size_t>(hit - lines[k].data()))))
          found.holds[k - begin] = 1;
        return true;
      });
    }
    pattern_lines.push_back(std::move(found));
    it = pattern_lines.end() - 1;
  }
  return static_cast<std::size_t>(it - pattern_lines.begin());
}

std::span<const FormatSpec> format_table() { return kTable; }

const FormatSpec* find_format(std::string_view id) {
  for (const FormatSpec& f : kTable)
    if (f.id == id) return &f;
  return nullptr;
}

const FormatSpec& fallback_format() { return *ranks().fallback.front(); }

std::span<const FormatSpec* const> formats_by_rank(Scope scope) {
  const Ranks& r = ranks();
  return scope == Scope::block ? r.block : scope == Scope::line ? r.line : r.fallback;
}

const ShapedRows& shaped_by_rank(Scope scope) {
  const Ranks& r = ranks();
  return scope == Scope::block ? r.shaped_block : scope == Scope::line ? r.shaped_line : r.shaped_fallback;
}

namespace {
/// Every row's anchors, once each, hand-written; `short_ones`: those under kMinPassAnchorBytes,
/// else the rest.
std::vector<std::string> anchors_of_length(bool short_ones) {
  std::set<std::string> once;
  for (const FormatSpec& f : kTable)
    for (std::string_view a : f.anchors)
      if (const std::string literal = text::hand_written_literal(a); (literal.size() < kMinPassAnchorBytes) == short_ones)
        once.emplace(literal);
  return std::vector<std::string>(once.begin(), once.end());
}
}  // namespace

const std::vector<std::string>& anchor_literals() {
  static const std::vector<std::string> all = anchors_of_length(false);
  return all;
}

const std::vector<std::string>& short_anchor_literals() {
  static const std::vector<std::string> all = anchors_of_length(true);
  return all;
}

unsigned char anchor_bits(std::string_view literal) {
  // Each row's anchors read once (a pass's list asks this of each of its literals).
  static const auto kBits = [] {
    std::map<std::string, unsigned char, std::less<>> bits;
    for (const FormatSpec& f : kTable)
      for (std::string_view a : f.anchors) {
        unsigned char& b = bits.try_emplace(text::hand_written_literal(a), kAnchoredBit).first->second;
        b = static_cast<unsigned char>(b | f.anchor_bit);
      }
    return bits;
  }();
  const auto it = kBits.find(literal);
  return it == kBits.end() ? kAnchoredBit : it->second;
}

void mark_short_anchors(std::string_view text, const std::vector<std::string_view>& lines,
                        std::vector<unsigned char>& bits) {
  for (const std::string& anchor : short_anchor_literals()) {
    const unsigned char marks = anchor_bits(anchor);
    LineOfEnd line_of(text, lines);  // the places come in order, and so do the lines
    const auto mark = [&](std::size_t at) {
      const std::size_t k = line_of(at + anchor.size());
      if (k == lines.size()) return false;
      bits[k] |= marks;
      return true;
    };
    const auto letter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
    if (std::none_of(anchor.begin(), anchor.end(), letter)) {
      text::for_each_pattern(text, anchor, '\0', mark);  // no letter to fold: the bit-word pass
      continue;
    }
    for (std::size_t at = text::find_folded(text, anchor); at != std::string_view::npos && mark(at);
         at = text::find_folded(text, anchor, at + 1)) {
    }
  }
}

void mark_boot_stamps(const std::vector<std::string_view>& lines, std::vector<unsigned char>& bits) {
  // The first byte asked here, inline: a worker log's lines are turned away without a call.
  for (std::size_t k = 0; k < lines.size(); ++k)
    if (!lines[k].empty() && lines[k][0] == '[')
      bits[k] |= kernel::starts_with_boot_stamp(lines[k]) ? kBootStampBit : kNoBootStampBit;
}

}  // namespace culprit::ingest
