// The public Inputs (paths and in-memory texts, each with an optional host) as the pipeline's
// SourceReader.
#pragma once

#include <vector>

#include "api/parallel_ingest.hpp"
#include "culprit/culprit.hpp"

namespace culprit::api {

/// Reads `inputs` in order. A run of neighbouring paths with one host is one input::read_inputs
/// call, exactly as the CLI reads its arguments (so the byte limits and duplicate checks span
/// them); a text is one source named `Input::name`, read like standard input (never taken for
/// documentation; an archive's bytes are unpacked). `inputs` and `options` must outlive the reader.
SourceReader reader_for(const std::vector<Input>& inputs, const Options& options);

}  // namespace culprit::api
