// Which of the events that restate a fact the timeline stores. A serving engine may echo its
// memory share (`gpu_memory_utilization=0.90`) in a status line every few seconds: 10^4 events an
// hour that say the same thing, each costing the timeline a row, three index entries and a place
// in the clock census (a third of a many-hits log's scan; docs/performance.md, seventeenth pass),
// while the diagnosis reads only the first of each setting and value.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "culprit/core/event.hpp"
#include "culprit/store/timeline.hpp"
#include "culprit/text/text_hash.hpp"

namespace culprit::store {

/// Counts, instead of storing, an event that restates a fact its input already stated
/// kRestatedKept times alike (timeline.hpp). Such an event is routine (kind `log`, severity info
/// or debug), carries a fact (the `provides` field a signal gives its events: core/facts.hpp),
/// and is alike an earlier one of the same input (its sources: the pieces of a big log are one
/// input) in all but its line, stamp and message: rule, kind, severity, stamp kind, host, pid,
/// rank, process name and every field. So the timeline still holds the first kRestatedKept of
/// each (what any question of "the first", "whether any" or "which values" finds), every event
/// that states something new, and every failure; what it no longer holds is the 10^4th echo of a
/// setting. Where the kept events' count matters (a census of stamps, how most of a source's
/// stamps were placed), the events alike share their stamp kind: each kind a host's events have
/// is still there.
///
/// Bounds: kMaxGroups kinds of alike events are followed in all (an event of a kind past them
/// is stored), and an event whose key is longer than kMaxKeyBytes is stored: memory stays a few
/// MiB whatever the input.
class RestatedFacts {
 public:
  static constexpr std::size_t kMaxGroups = 4096;
  static constexpr std::size_t kMaxKeyBytes = 1024;
  /// The rules an input's count names, at most (RestatedEvents::rules).
  static constexpr std::size_t kRulesNamed = 4;

  /// Source `id` is read from input `source` (its origin and name): sources of one input count
  /// together.
  void add_source(std::int64_t id, const core::SourceInfo& source);
  /// Whether event `e` is one to count, not store. Counts it when so.
  bool restated(const core::Event& e);
  /// Each input's counted events, in the order of the first counted.
  const std::vector<RestatedEvents>& counted() const { return counted_; }

 private:
  struct Group {
    std::int64_t seen = 0;
    std::size_t input = 0;  // the input's index in inputs_
  };
  struct Input {
    std::string name;
    std::size_t counted = SIZE_MAX;  // its entry in counted_ (none yet)
  };
  std::unordered_map<std::int64_t, std::size_t> source_input_;  // source id -> inputs_ index
  std::unordered_map<std::string, std::size_t, text::TextHash, std::equal_to<>> input_index_;
  std::vector<Input> inputs_;
  std::unordered_map<std::string, Group, text::TextHash, std::equal_to<>> groups_;
  std::vector<RestatedEvents> counted_;
  std::string key_;  // the key being looked up (kept: one allocation for every event)
};

}  // namespace culprit::store
