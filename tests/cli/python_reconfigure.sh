#!/bin/sh
# Issue 37: the README's two commands in order — the quick start configures before pybind11 is
# installed, the test command configures the same build folder after — build the Python module.
# CULPRIT_PYTHON is AUTO: every configure looks for pybind11 again instead of keeping the first
# answer in the cache. pybind11 "absent" is simulated with CMAKE_DISABLE_FIND_PACKAGE_pybind11.
# Usage: python_reconfigure.sh SOURCE_DIR WORK_DIR GENERATOR
set -eu
src=$1 work=$2 generator=$3
fail() { echo "FAIL: $*"; exit 1; }
rm -rf "$work"
mkdir -p "$work"
cmake -S "$src" -B "$work" -G "$generator" -DCULPRIT_DEVELOPER_MODE=OFF -DCMAKE_DISABLE_FIND_PACKAGE_pybind11=ON > "$work/first.log" 2>&1 ||
  { cat "$work/first.log"; fail "the first configure failed"; }
grep -q 'culprit_python' "$work/build.ninja" "$work/Makefile" 2>/dev/null && fail "the module is built without pybind11"
cmake -S "$src" -B "$work" -DCMAKE_DISABLE_FIND_PACKAGE_pybind11=OFF > "$work/second.log" 2>&1 ||
  { cat "$work/second.log"; fail "the second configure failed"; }
if ! grep -q '^pybind11_DIR:PATH=/' "$work/CMakeCache.txt"; then
  echo "python_reconfigure: skipped: pybind11 is not installed (Debian: pybind11-dev)"; exit 77
fi
grep -q 'culprit_python' "$work/build.ninja" "$work/Makefile" 2>/dev/null ||
  fail "the second configure, with pybind11 installed, does not build the module (the first answer was kept)"
rm -rf "$work"
echo ok
