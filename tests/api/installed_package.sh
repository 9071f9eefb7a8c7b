#!/bin/sh
# Issue 18: libculprit as an installed package. `cmake --install` into a DESTDIR, then a program
# outside the tree — the C++ example of docs/library.md, cut from it — finds it with
# find_package(culprit), links culprit::culprit and diagnoses the seed paste from standard input;
# with PYTHON (the module was built), the installed Python package imports and diagnoses it too.
# usage: installed_package.sh CMAKE SOURCE_DIR BUILD_DIR WORK_DIR [GENERATOR [PYTHON]]
set -u
cmake=$1; src=$2; build=$3; work=$4; generator=${5:-Ninja}; python=${6:-}
rm -rf "$work"; mkdir -p "$work/app"; cd "$work" || exit 1
fail() { echo "FAIL $*"; exit 1; }
DESTDIR="$work/root" "$cmake" --install "$build" --prefix /usr >install.log 2>&1 || { cat install.log; fail "cmake --install"; }
prefix="$work/root/usr"
[ -s "$prefix/include/culprit/culprit.hpp" ] || fail "not installed: include/culprit/culprit.hpp"
config=$(find "$prefix" -name culpritConfig.cmake | head -n 1)
[ -n "$config" ] || fail "not installed: culpritConfig.cmake"
echo "ok   installed $(echo "$config" | sed "s|^$work/root||")"
sed -n '/^#include <culprit\/culprit.hpp>/,/^}/p' "$src/docs/library.md" >app/main.cpp
[ -s app/main.cpp ] || fail "docs/library.md has no C++ example starting with #include <culprit/culprit.hpp>"
cat >app/CMakeLists.txt <<'EOF'
cmake_minimum_required(VERSION 3.22)
project(culprit_consumer LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(culprit REQUIRED)
add_executable(app main.cpp)
target_link_libraries(app PRIVATE culprit::culprit)
EOF
"$cmake" -S app -B app-build -G "$generator" -DCMAKE_PREFIX_PATH="$prefix" >configure.log 2>&1 || { cat configure.log; fail "find_package(culprit)"; }
"$cmake" --build app-build >build.log 2>&1 || { cat build.log; fail "building docs/library.md's example against the package"; }
out=$(app-build/app <"$src/fixtures/incidents/two-node-stale-embeddings-paste/inputs/paste.txt")
[ "$(echo "$out" | head -n 1)" = cuda_oom ] || { echo "$out" | head -n 5; fail "the example's verdict is not cuda_oom"; }
echo "$out" | grep -q 'VLLM::EngineCore' || fail "the example's Markdown report does not name the culprit"
echo "ok   docs/library.md's example, built against the installed package, diagnoses the seed paste"

[ -n "$python" ] || exit 0
package=$(find "$prefix" -name __init__.py -path '*/culprit/__init__.py' | head -n 1)
[ -n "$package" ] || fail "the Python package is not installed"
site=$(dirname "$(dirname "$package")")
verdict=$(cd / && PYTHONPATH="$site" PYTHONDONTWRITEBYTECODE=1 "$python" -c 'import culprit, sys; print(culprit.diagnose(sys.stdin.read()).verdict)' \
  <"$src/fixtures/incidents/two-node-stale-embeddings-paste/inputs/paste.txt") || fail "the installed Python package does not import"
[ "$verdict" = cuda_oom ] || fail "the installed Python package's verdict is '$verdict', not cuda_oom"
echo "ok   the installed Python package ($(echo "$site" | sed "s|^$work/root||")) diagnoses the seed paste"
