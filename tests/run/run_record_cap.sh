#!/bin/sh
# Redteam finding 23: `culprit run` recorded the job's output with no cap (1 GB of output, a
# 1.6 GB record). The record keeps its head and its tail, with a line saying what is left out;
# the bounds are lowered here (CULPRIT_RUN_RECORD_BYTES) so the test stays small.
. "$(dirname "$0")/lib.sh"
cd "$work"
set +e
CULPRIT_RUN_RECORD_BYTES=100000 "$culprit" run -o inc --sample-interval 0 -- \
  sh -c 'i=0; while [ $i -lt 20000 ]; do echo "line $i of the job"; i=$((i+1)); done; echo "the last words"; exit 1' \
  >out 2>err
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "the job's exit 1 gave $rc"
log=$(ls inc/*/job.stdout.log)
size=$(stat -c %s "$log")
[ "$size" -le 250000 ] || fail "the record is $size bytes, over its head and tail"
grep -q ' line 0 of the job$' "$log" || fail "the head was not kept"
grep -q ' the last words$' "$log" || fail "the tail was not kept"
grep -q 'culprit run: [0-9]* lines ([0-9]* bytes) of output not recorded here' "$log" || fail "no line says what was left out"
! grep -q ' line 10000 of the job$' "$log" || fail "the middle was kept"
[ -z "$(ls inc/*/ | grep tail)" ] || fail "tail files were left: $(ls inc/*/)"
[ "$(wc -l <out)" -eq 20001 ] || fail "the job's output was not all passed through"
echo "run_record_cap: ok"
