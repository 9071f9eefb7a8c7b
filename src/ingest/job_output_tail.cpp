// add_job_output_tail: the job's last words, walked back from the end of its output.
#include "ingest/job_output_tail.hpp"

#include <algorithm>
#include <vector>

#include "culprit/core/job_output.hpp"
#include "ingest/formats/line_prefix.hpp"

namespace culprit::ingest {

void add_job_output_tail(const ParseContext& ctx, std::span<const std::string_view> lines, std::int64_t after_line) {
  if (!ctx.sink) return;
  std::vector<core::Event> tail;
  for (std::size_t k = lines.size(); k-- > 0 && tail.size() < static_cast<std::size_t>(core::job_output::kTailLines);) {
    const auto seg_line = static_cast<std::int64_t>(k) + 1;
    if (ctx.absolute_line_end(seg_line) <= after_line) break;
    const PeeledLine p = peel_line(lines[k]);
    if (std::all_of(p.message.begin(), p.message.end(), [](char c) { return c == ' ' || c == '\t'; })) continue;
    core::Event e = ctx.make_event(seg_line);
    apply_peeled(p, e, ctx.year_hint);
    e.kind = core::kind::kLog;
    e.rule = std::string(core::job_output::kTailRule);
    e.message = p.message;
    tail.push_back(std::move(e));
  }
  for (auto it = tail.rbegin(); it != tail.rend(); ++it) ctx.sink->add_event(*it);
}

}  // namespace culprit::ingest
