#!/bin/sh
# `culprit scan` over a folder holding a .tar.gz, a .zip, a plain folder and a bug-report file
# gives one correct line per incident, and --jsonl lines follow the JSON contract (checked with
# SQLite's JSON functions).
# Usage: scan_batch.sh CULPRIT SOURCE_DIR WORK_DIR
set -eu
culprit=$1
src=$2
work=$3
sh "$src/tests/scan/make_batch.sh" "$src" "$work/batch"
fail() { echo "FAIL: $*" >&2; exit 1; }

table=$("$culprit" scan "$work/batch")
echo "$table"
[ "$(echo "$table" | wc -l)" -eq 6 ] || fail "expected a header and 5 incident lines"
expect() {  # expect INCIDENT-SUFFIX VERDICT CULPRIT-SUBSTRING
  line=$(echo "$table" | grep -- "$1\$") || fail "no line for $1"
  echo "$line" | grep -q "^$2 " || fail "$1: verdict is not $2: $line"
  echo "$line" | grep -qF -- "$3" || fail "$1: culprit does not say '$3': $line"
}
expect two-node.tar.gz cuda_oom "pid 48211 VLLM::EngineCore (foreign)"
expect paste.log.gz cuda_oom "pid 48211 VLLM::EngineCore (foreign)"
expect torchrun.zip kernel_oom "pid 1893 redis-server"
expect cgroup-folder cgroup_oom "pid 51822 python3 (job)"
expect nvidia-bug-report.log.gz not_oom "-"
echo "$table" | grep two-node.tar.gz | grep -q spark-b || fail "the tar.gz incident names host spark-b"

# --progress fills its bar by the incidents' bytes, which are measured only when it is shown: a
# bar full after the first of five incidents means no sizes were taken.
progress=$("$culprit" scan --progress "$work/batch" 2>&1 > /dev/null | tr '\r' '\n' | grep incidents)
echo "$progress" | head -1 | grep -q '^\[#* \+\] 1/5 incidents' || fail "progress: bar full after one incident: $progress"
echo "$progress" | tail -1 | grep -q '^\[#\{30\}\] 5/5 incidents' || fail "progress: bar not full at the end: $progress"

"$culprit" scan --jsonl "$work/batch" > "$work/scan.jsonl"
[ "$(wc -l < "$work/scan.jsonl")" -eq 5 ] || fail "expected 5 JSON lines"
n=0
while IFS= read -r line; do
  n=$((n + 1))
  printf '%s' "$line" > "$work/line.json"
  check=$(sqlite3 :memory: "WITH l(j) AS (SELECT CAST(readfile('$work/line.json') AS TEXT))
    SELECT json_valid(j)
    AND json_type(j, '\$.incident') = 'text'
    AND json_extract(j, '\$.schema_version') = 3
    AND json_extract(j, '\$.verdict') IN ('cuda_oom','kernel_oom','cgroup_oom','userspace_oom_kill','not_oom','unknown')
    AND json_extract(j, '\$.confidence') IN ('high','medium','low')
    AND json_type(j, '\$.culprit') IN ('object','null')
    AND json_type(j, '\$.victim') IN ('object','null')
    AND json_type(j, '\$.budget') IN ('object','null')
    AND json_type(j, '\$.findings') = 'array'
    AND json_type(j, '\$.evidence') = 'array'
    AND json_type(j, '\$.sources') = 'array'
    AND (json_type(j, '\$.culprit') = 'null' OR json_type(j, '\$.culprit.role') = 'text') FROM l")
  [ "$check" = 1 ] || fail "line $n does not follow the JSON contract: $(echo "$line" | cut -c1-200)"
done < "$work/scan.jsonl"
echo "scan batch: 5 incidents, JSON Lines valid"
