#!/bin/sh
# The prefilter and the fast paths it enables may pass false candidates but never drop a real
# match: every fixture incident, every format sample and every real case of the shared set
# (../shared/real-cases; skipped with a note where it is absent) gives the same JSON report with
# the prefilter on (and the block scan that big logs take forced on every segment:
# CULPRIT_BLOCK_SCAN=always) and off, and a scan of the fixture incidents gives the same JSON Lines with 1
# and with 2 threads. The comparisons run in parallel (one process pair per input), so the whole
# set costs about what the fixtures alone cost run one after another.
# Usage: equivalence.sh CULPRIT SOURCE_DIR WORK_DIR [REAL_CASES_DIR]
#        equivalence.sh --one CULPRIT WORK_DIR NAME PATH [CULPRIT ARGS...]   (one comparison)
set -eu
if [ "${1:-}" = "--one" ]; then
  culprit=$2 work=$3 name=$4 path=$5
  shift 5
  on="$work/$name.on.json" off="$work/$name.off.json"
  # With the prefilter on, every segment is block-scanned (the path big logs take).
  CULPRIT_BLOCK_SCAN=always "$culprit" --format json --quiet "$@" "$path" > "$on" 2> /dev/null || true
  "$culprit" --format json --quiet --no-prefilter "$@" "$path" > "$off" 2> /dev/null || true
  if [ ! -s "$on" ]; then
    echo "FAIL: $name: no report" >&2
    exit 1
  fi
  if ! cmp -s "$on" "$off"; then
    echo "FAIL: $name: the report differs with the prefilter off (diff $on $off)" >&2
    exit 1
  fi
  rm -f "$on" "$off"
  exit 0
fi
culprit=$1
src=$2
work=$3
real=${4:-}
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
jobs="$work/jobs.txt"
: > "$jobs"
# One line per comparison: NAME PATH [ARGS...] (no name or path here holds a space).
for dir in "$src"/fixtures/incidents/*/; do
  echo "incident-$(basename "$dir") ${dir}inputs" >> "$jobs"
done
for f in "$src"/fixtures/formats/*/*.txt "$src"/fixtures/formats/*/*.log; do
  [ -f "$f" ] || continue
  echo "format-$(basename "$(dirname "$f")")-$(basename "$f") $f" >> "$jobs"
done
cases=0
if [ -n "$real" ] && [ -d "$real" ]; then
  for dir in "$real"/*/; do
    [ -f "${dir}expected.json" ] || continue
    echo "real-$(basename "$dir") $dir --exclude expected.json" >> "$jobs"
    cases=$((cases + 1))
  done
else
  echo "note: no real-case set at '${real}'; only the fixtures are compared"
fi
n=$(wc -l < "$jobs")
cpus=$(nproc 2> /dev/null || echo 2)
status=0
xargs -P "$cpus" -L 1 sh "$0" --one "$culprit" "$work" < "$jobs" || status=$?
[ "$status" -eq 0 ] || fail "some inputs differ with the prefilter off (above)"
"$culprit" scan --jsonl --jobs 1 --exclude expected.json --exclude '*.md' --exclude report.html "$src/fixtures/incidents" > "$work/jobs1.jsonl"
"$culprit" scan --jsonl --jobs 2 --exclude expected.json --exclude '*.md' --exclude report.html "$src/fixtures/incidents" > "$work/jobs2.jsonl"
[ "$(wc -l < "$work/jobs1.jsonl")" -gt 3 ] || fail "the scan found too few incidents"
cmp -s "$work/jobs1.jsonl" "$work/jobs2.jsonl" || fail "scan output differs between 1 and 2 threads"
[ "$n" -gt 20 ] || fail "only $n inputs were compared"
echo "equivalence: $n inputs ($cases real cases) identical with the prefilter on and off; 1 and 2 threads agree"
