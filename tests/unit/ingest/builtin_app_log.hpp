// The application-log parser over the shipped rules, with the prefilter on or off, as the
// pipeline runs it: for tests that compare both ways or need the real signals.
#pragma once

#include <string>

#include "culprit/ingest/parser.hpp"
#include "culprit/rules/loader.hpp"
#include "unit/ingest/gpu_recording_sink.hpp"

namespace culprit::test {

/// Parses `text` as the app log `source_name` of `host` with the built-in signals.
inline GpuRecordingSink parse_app_builtin(const std::string& text, bool prefilter = true,
                                          const std::string& source_name = "worker.log",
                                          const std::string& host = "gpu-node-1") {
  static const auto on = rules::load_builtin_rules();
  static auto off = [] {
    auto loaded = rules::load_builtin_rules();
    loaded.rules.signals.set_prefilter(false);
    return loaded;
  }();
  GpuRecordingSink sink;
  ingest::ParseContext ctx;
  ctx.sink = &sink;
  ctx.signals = prefilter ? &on.rules.signals : &off.rules.signals;
  ctx.source_id = 1;
  ctx.source_name = source_name;
  ctx.host = host;
  ctx.format = "app_log";
  ingest::parse_app_log(text, ctx);
  return sink;
}

}  // namespace culprit::test
