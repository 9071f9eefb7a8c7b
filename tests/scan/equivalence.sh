#!/bin/sh
# The prefilter and the fast paths it enables may pass false candidates but never drop a real
# match: every fixture incident gives the same report with the prefilter on and off, and a scan
# of all of them gives the same JSON Lines with 1 and with 2 threads.
# Usage: equivalence.sh CULPRIT SOURCE_DIR WORK_DIR
set -euf  # no globbing: the --exclude patterns are passed through
culprit=$1
src=$2
work=$3
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
for dir in "$src"/fixtures/incidents/*/; do
  name=$(basename "$dir")
  args="--format json --quiet --exclude expected.json --exclude README.md --exclude *.md --exclude report.html"
  # shellcheck disable=SC2086
  "$culprit" $args "$dir" > "$work/$name.on.json" || true
  # shellcheck disable=SC2086
  "$culprit" $args --no-prefilter "$dir" > "$work/$name.off.json" || true
  cmp -s "$work/$name.on.json" "$work/$name.off.json" || fail "$name: the report differs with the prefilter off"
  n=$((n + 1))
done
for f in "$src"/fixtures/formats/*/*.txt "$src"/fixtures/formats/*/*.log; do
  [ -f "$f" ] || continue
  a=$("$culprit" --format json --quiet "$f" 2>/dev/null || true)
  b=$("$culprit" --format json --quiet --no-prefilter "$f" 2>/dev/null || true)
  [ "$a" = "$b" ] || fail "$f: the report differs with the prefilter off"
  n=$((n + 1))
done
ex="--exclude expected.json --exclude *.md --exclude report.html"
# shellcheck disable=SC2086
"$culprit" scan --jsonl --jobs 1 $ex "$src/fixtures/incidents" > "$work/jobs1.jsonl"
# shellcheck disable=SC2086
"$culprit" scan --jsonl --jobs 2 $ex "$src/fixtures/incidents" > "$work/jobs2.jsonl"
cmp -s "$work/jobs1.jsonl" "$work/jobs2.jsonl" || fail "scan output differs between 1 and 2 threads"
echo "equivalence: $n inputs identical with the prefilter on and off; 1 and 2 threads agree"
