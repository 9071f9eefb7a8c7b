// The JSON contract's `allocator` object (README "allocator object", the schema's $defs/allocator).
#pragma once

#include <optional>

#include "culprit/diagnose/allocator_view.hpp"
#include "culprit/report/json_writer.hpp"

namespace culprit::report {

/// Writes the allocator object, or null when no snapshot was read.
void write_allocator_json(JsonWriter& w, const std::optional<diagnose::AllocatorView>& a);

}  // namespace culprit::report
