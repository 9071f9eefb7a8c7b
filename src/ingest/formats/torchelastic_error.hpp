// How the sniffer tells torchrun's JSON error file (TORCHELASTIC_ERROR_FILE) from other JSON:
// by its keys, whatever the file is called. Private to the ingest module.
#pragma once

#include <string_view>

namespace culprit::ingest {

/// A torchelastic error record is `extraInfo` with `py_callstack` or `errorCode` (the object
/// form: format_detect.cpp's key search finds those keys), or one object opening with
/// `"message": ` that has a `"timestamp": ` and a Python traceback (the string form, told here).
/// Cheap to ask at every line of a JSON-lines log, which it rejects within the first line.
bool is_torchelastic_string_record(std::string_view head);

}  // namespace culprit::ingest
