#!/bin/sh
# `culprit run` points CULPRIT_MEMORY_SNAPSHOT_DIR at the incident's node folder (issue 39 item 3):
# the Python hook writes PyTorch's allocator snapshot there at a CUDA OOM, beside what the
# diagnosis reads; a job that sets the variable itself keeps its own.
. "$(dirname "$0")/lib.sh"
cd "$work"
unset CULPRIT_MEMORY_SNAPSHOT_DIR
set +e
PATH="$standins:$PATH" "$culprit" run --sample-interval 0 --keep -o incident -- \
  sh -c 'printf "%s\n" "$CULPRIT_MEMORY_SNAPSHOT_DIR" > "$0/seen"; exit 3' "$work" > out 2> err
rc=$?
set -e
[ "$rc" -eq 3 ] || { cat err; fail "culprit run exited $rc, the job 3"; }
seen=$(cat seen)
case "$seen" in
  "$work"/incident/?*) ;;
  *) fail "the job saw CULPRIT_MEMORY_SNAPSHOT_DIR='$seen', not a folder of the incident" ;;
esac
[ -d "$seen" ] || fail "CULPRIT_MEMORY_SNAPSHOT_DIR names no folder: $seen"
[ "$(dirname "$seen")" = "$work/incident" ] || fail "not the node's folder: $seen"
set +e
CULPRIT_MEMORY_SNAPSHOT_DIR=/somewhere/else PATH="$standins:$PATH" "$culprit" run --sample-interval 0 -o own -- \
  sh -c 'printf "%s\n" "$CULPRIT_MEMORY_SNAPSHOT_DIR" > "$0/seen-own"; exit 3' "$work" > out 2> err
set -e
[ "$(cat seen-own)" = /somewhere/else ] || fail "the job's own CULPRIT_MEMORY_SNAPSHOT_DIR was replaced: $(cat seen-own)"
echo ok
