#!/bin/sh
# CI: the whole test suite again under AddressSanitizer + UndefinedBehaviorSanitizer, in its
# own build directory (build-asan). A sanitizer report fails the test that triggered it
# (-fno-sanitize-recover, abort_on_error). Hostile-input tests run too, without their ulimit.
# The `report` label (Chromium loading each fixture's HTML) is left to the plain build: its
# culprit part, rendering the HTML, runs here in the `golden` label (the same HTML, compared
# byte for byte); what the label adds is Chromium's work, which no sanitizer of ours checks.
set -eu
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
cmake -S . -B build-asan -G Ninja -DCULPRIT_SANITIZE=ON -DCMAKE_BUILD_TYPE=RelWithDebInfo
cmake --build build-asan -j "$JOBS"
ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=1:check_initialization_order=1:strict_init_order=1} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1} \
  ctest --test-dir build-asan --output-on-failure -j "$JOBS" -LE "bench|report"
