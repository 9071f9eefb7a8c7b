#!/bin/sh
# Big inputs (1 MiB+) are parsed on worker threads and replayed in input order: the report and
# the timeline must be the same with 1, 2 and 3 threads. The incident mixes big generated
# worker/kernel logs, a fixture incident's small files and a binary file (a skip note whose
# place among the problems must not move). And `culprit scan` of it beside a small incident
# gives the same rows with 1, 2 and 3 cores.
# Usage: thread_equivalence.sh CULPRIT GEN_CORPUS SOURCE_DIR WORK_DIR
set -eu
culprit=$1
gen=$2
src=$3
work=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
"$gen" "$work/corpus" 12 1 42 > /dev/null
incident=$(find "$work/corpus" -mindepth 1 -maxdepth 1 -type d | head -1)
cp -r "$src/fixtures/incidents/torchrun-host-oom-hog/inputs/." "$incident/"
head -c 4096 /dev/urandom > "$incident/core.bin"
big=$(find "$incident" -type f -size +1024k | wc -l)
[ "$big" -ge 2 ] || fail "the generated incident has $big inputs of 1 MiB+; the threaded path would not run"
for j in 1 2 3; do
  "$culprit" --jobs "$j" --format json \
    --db "$work/t$j.db" "$incident" > "$work/r$j.json" 2> "$work/e$j.txt" || true
  [ -s "$work/r$j.json" ] || fail "no report with --jobs $j"
  "$culprit" query --db "$work/t$j.db" \
    "SELECT s.name, e.line, e.kind, e.ts, e.pid, e.message FROM events e JOIN sources s ON s.id = e.source_id ORDER BY e.id" \
    > "$work/q$j.txt"
  "$culprit" query --db "$work/t$j.db" "SELECT id, name, host, format, lines, bytes FROM sources ORDER BY id" >> "$work/q$j.txt"
  "$culprit" query --db "$work/t$j.db" "SELECT host, pid, names, role, job_evidence FROM processes ORDER BY host, pid" >> "$work/q$j.txt"
  "$culprit" query --db "$work/t$j.db" "SELECT event_id, pid, rss_pages FROM oom_tasks ORDER BY event_id, pid" >> "$work/q$j.txt"
done
[ "$(wc -l < "$work/q1.txt")" -gt 20 ] || fail "too little timeline to compare"
grep -q "vllm-worker.log" "$work/q1.txt" || fail "the big inputs are not in the timeline"
grep -q "input-binary" "$work/e1.txt" || fail "the binary file's note is missing"
for j in 2 3; do
  cmp -s "$work/r1.json" "$work/r$j.json" || fail "the report differs with --jobs $j"
  cmp -s "$work/q1.txt" "$work/q$j.txt" || fail "the timeline differs with --jobs $j"
  cmp -s "$work/e1.txt" "$work/e$j.txt" || fail "the notes differ with --jobs $j"
done
# `culprit scan`: its incidents share the cores (core::CoreShare). The big incident beside a
# small one takes the core the small one frees, and parses its pieces beside its reading from
# then on: the rows are the same with 1, 2 and 3 cores.
mkdir -p "$work/scan"
ln -s "$incident" "$work/scan/big"
cp -r "$src/fixtures/incidents/torchrun-host-oom-hog/inputs" "$work/scan/a-small"
for j in 1 2 3; do
  "$culprit" scan --jsonl --jobs "$j" "$work/scan" > "$work/s$j.jsonl" 2> "$work/se$j.txt" || true
  [ "$(wc -l < "$work/s$j.jsonl")" -eq 2 ] || fail "scan --jobs $j: not a row for each of the two incidents"
done
for j in 2 3; do
  cmp -s "$work/s1.jsonl" "$work/s$j.jsonl" || fail "scan's rows differ with --jobs $j"
  cmp -s "$work/se1.txt" "$work/se$j.txt" || fail "scan's notes differ with --jobs $j"
done
echo "thread equivalence: $big big inputs; report, timeline and notes identical with 1, 2 and 3 threads, scan's rows with 1, 2 and 3 cores"
