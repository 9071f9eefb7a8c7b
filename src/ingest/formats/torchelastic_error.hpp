// How the sniffer tells torchrun's JSON error file (TORCHELASTIC_ERROR_FILE) from other JSON:
// by its keys, whatever the file is called. Private to the ingest module.
#pragma once

#include <string_view>

namespace culprit::ingest {

/// Whether the head of a JSON value is a torchelastic error record: `extraInfo` with
/// `py_callstack` or `errorCode` (the object form), or one object opening with `"message": `
/// that has a `"timestamp": ` and a Python traceback (the string form).
bool is_torchelastic_error(std::string_view head);

}  // namespace culprit::ingest
