#!/bin/sh
# A run where nvidia-smi and docker are absent: each is named once in the report's sources as
# missing, nothing crashes or hangs, the job's status is kept.
. "$(dirname "$0")/lib.sh"
need python3 ps sh
# A PATH with the basic tools and none of nvidia-smi / docker.
mkdir -p "$work/bin"
ln -sf "$(python3 -c 'import sys; print(sys.executable)')" "$work/bin/python3"
for t in sh cat sed grep env sort ps free dmesg journalctl timeout mktemp wc tr sleep; do
  p=$(command -v "$t" 2>/dev/null) || continue
  ln -sf "$p" "$work/bin/$t"
done
oom_child
set +e
PATH="$work/bin" "$culprit" run --sample-interval 0.2 -o "$work/incident" -- python3 "$work/child.py" 4242 \
  > /dev/null 2> "$work/err"
rc=$?
set -e
cat "$work/err"
[ "$rc" -eq 1 ] || fail "culprit run exited $rc, the job 1"
grep -q "^CUDA OOM on " "$work/err" || fail "no report"
[ "$(grep -c '^  nvidia-smi — not found on PATH  (missing' "$work/err")" -eq 1 ] || fail "nvidia-smi is not named once as missing"
[ "$(grep -c '^  docker — not found on PATH  (missing' "$work/err")" -eq 1 ] || fail "docker is not named once as missing"
host=$(ls "$work/incident")
[ ! -e "$work/incident/$host/nvidia-smi.txt" ] || fail "an nvidia-smi file was written without nvidia-smi"
# The same sources from the folder later.
"$culprit" "$work/incident" > "$work/again" || true
[ "$(grep -c '^  nvidia-smi — not found on PATH' "$work/again")" -eq 1 ] || fail "culprit DIR does not name nvidia-smi once"
echo ok
