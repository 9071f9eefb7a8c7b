// Python's exception line, `ExcType: message`, as one home for the traceback assembler
// (ingest) and the diagnosis engine's reprint check (a re-raise puts the class before the text).
#pragma once

#include <string>
#include <string_view>

namespace culprit::text {

/// Splits `ExcType: message` into type and message; false when `line` does not look like an
/// exception line (`RuntimeError: …`, `torch.OutOfMemoryError: …`, `KeyboardInterrupt`): the type
/// is a dotted identifier whose last part starts upper case (a bare one needs a suffix such as
/// `Error` or `Interrupt`), the line is not indented, and `:` is followed by a space or the end.
bool split_exception_line(std::string_view line, std::string& type, std::string& message);

}  // namespace culprit::text
