#!/bin/sh
# The many-shapes benchmark runs and prints a row per shape (label bench: a tiny corpus, one
# run, no timing asserted — the benchmark is not a timed test): culprit_gen_shapes writes every
# shape, tests/bench/shapes.sh prints one row for each with culprit's and rg's figures and the
# ratio, and `culprit scan --jsonl` reports both incidents of every shape.
# Usage: shapes_rows.sh BUILD_DIR WORK_DIR
set -eu
build=$1
work=$2
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
"$build/tests/culprit_gen_shapes" "$work/corpus" 2 42 > /dev/null
shapes=$(ls "$work/corpus" | wc -l)
[ "$shapes" -ge 20 ] || fail "only $shapes shapes written"
BENCH_SHAPES="$work/corpus" sh "$here/shapes.sh" "$build" 2 1 > "$work/table.txt"
cat "$work/table.txt"
# A row: the shape, its MiB, then `|`-separated figures ending in two ratios.
rows=$(grep -cE '^[a-z][a-zA-Z0-9.-]+ +[0-9]+\|.*\| +[0-9.]+ +[0-9.]+$' "$work/table.txt" || true)
[ "$rows" -eq "$shapes" ] || fail "$rows rows for $shapes shapes"
for dir in "$work/corpus"/*/; do
  n=$("$build/culprit" scan --jsonl --jobs 2 "$dir" 2> /dev/null | grep -c '"verdict"' || true)
  [ "$n" -eq 2 ] || fail "$n incidents reported in $(basename "$dir"), not 2"
done
echo "shapes: $rows rows, one per shape"
