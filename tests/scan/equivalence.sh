#!/bin/sh
# The prefilter and the fast paths it enables may pass false candidates but never drop a real
# match: every fixture incident gives the same report with the prefilter on and off, and a scan
# of all of them gives the same JSON Lines with 1 and with 2 threads.
# Usage: equivalence.sh CULPRIT SOURCE_DIR WORK_DIR
set -eu
culprit=$1
src=$2
work=$3
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
n=0
for dir in "$src"/fixtures/incidents/*/; do
  name=$(basename "$dir")
  run() { "$culprit" --format json --quiet "$@"; }
  run "${dir}inputs" > "$work/$name.on.json" || true
  run --no-prefilter "${dir}inputs" > "$work/$name.off.json" || true
  [ -s "$work/$name.on.json" ] || fail "$name: no report"
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
"$culprit" scan --jsonl --jobs 1 --exclude expected.json --exclude '*.md' --exclude report.html "$src/fixtures/incidents" > "$work/jobs1.jsonl"
"$culprit" scan --jsonl --jobs 2 --exclude expected.json --exclude '*.md' --exclude report.html "$src/fixtures/incidents" > "$work/jobs2.jsonl"
[ "$(wc -l < "$work/jobs1.jsonl")" -gt 3 ] || fail "the scan found too few incidents"
cmp -s "$work/jobs1.jsonl" "$work/jobs2.jsonl" || fail "scan output differs between 1 and 2 threads"
[ "$n" -gt 20 ] || fail "only $n inputs were compared"
echo "equivalence: $n inputs identical with the prefilter on and off; 1 and 2 threads agree"
