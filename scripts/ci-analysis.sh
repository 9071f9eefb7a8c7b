#!/bin/sh
# CI: static analysis of src/ — clang-tidy with the checks in .clang-tidy (compile commands
# from a configure-only build dir, build-tidy) and cppcheck with .cppcheck-suppressions. Any
# finding fails the step. Installs clang-tidy-14 and cppcheck when missing.
set -eu
cd "$(dirname "$0")/.."
JOBS=${JOBS:-2}
if ! command -v run-clang-tidy-14 >/dev/null 2>&1 || ! command -v cppcheck >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get install -y -qq --no-install-recommends clang-tidy-14 cppcheck >/dev/null
fi

echo "== cppcheck"
cppcheck --std=c++20 --language=c++ --enable=warning,performance,portability --inline-suppr \
  --suppressions-list=.cppcheck-suppressions --error-exitcode=1 --quiet -j "$JOBS" \
  -I include -I src --template='{file}:{line}: {severity}: {id}: {message}' src

echo "== clang-tidy"
# Configure only (plus the generated sources the library code compiles against).
cmake -S . -B build-tidy -G Ninja -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DCULPRIT_DEVELOPER_MODE=OFF >/dev/null
# Not src/static_runtime: those files only compile the code of fmt and toml++ into the executable.
run-clang-tidy-14 -p build-tidy -j "$JOBS" -quiet "$(pwd)/src/(?!static_runtime/).*\.cpp$" >build-tidy/clang-tidy.log 2>&1 || {
  grep -E "(warning|error):" build-tidy/clang-tidy.log | sort -u | head -n 200
  echo "clang-tidy found problems (full log: build-tidy/clang-tidy.log)"
  exit 1
}
echo "clang-tidy: clean"
