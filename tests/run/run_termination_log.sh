#!/bin/sh
# `culprit run --termination-log PATH` (issue 39, Kubernetes' termination message): a job that
# prints a real PyTorch CUDA OOM and fails leaves PATH holding the report's headline first and the
# job's end, in at most 4096 bytes (what the kubelet reads of /dev/termination-log), terminal-safe
# and replaced whole (no temporary file left beside it); a job that succeeds writes nothing there.
. "$(dirname "$0")/lib.sh"
need python3
cd "$work"
oom_child
mkdir -p pod
set +e
PATH="$standins:$PATH" "$culprit" run --sample-interval 0 -o incident --termination-log pod/termination-log -- \
  python3 child.py 4242 > stdout 2> stderr
rc=$?
set -e
[ "$rc" -eq 1 ] || { cat stderr >&2; fail "culprit run exited $rc, the job 1"; }
[ -f pod/termination-log ] || fail "a failed job left no termination log"
size=$(wc -c < pod/termination-log)
[ "$size" -le 4096 ] || fail "the termination log holds $size bytes, over the kubelet's 4096"
head -1 pod/termination-log | grep -q "^CUDA OOM" || fail "the termination log does not open with the headline: $(head -2 pod/termination-log)"
# The headline is the report's own: the same verdict and place, and the same culprit pid. (The
# terminal's copy may drop the time and cut the culprit to fit its width; the log's is whole.)
log_head=$(head -1 pod/termination-log)
lead=$(printf '%s\n' "$log_head" | sed 's/ at [0-9-]* [0-9:]*Z//; s/ — .*//')
culprit_pid=$(printf '%s\n' "$log_head" | sed -n 's/.* — pid \([0-9][0-9]*\).*/\1/p')
report_head=$(grep -m1 -F "$lead — " stderr) || fail "the termination log's headline is not the report's: $log_head"
[ -n "$culprit_pid" ] && printf '%s\n' "$report_head" | grep -qF " — pid $culprit_pid " ||
  fail "the termination log names another culprit than the report: $log_head / $report_head"
grep -qx "job: python3 exited with 1" pod/termination-log || fail "the termination log does not say how the job ended"
grep -qx "incident: incident" pod/termination-log || fail "the termination log does not name the incident folder"
if LC_ALL=C grep -q "$(printf '[\001-\011\013-\037\177]')" pod/termination-log; then fail "a control character in the termination log"; fi
[ "$(ls pod)" = "termination-log" ] || fail "something beside the termination log was left: $(ls pod)"

# A job that succeeds: nothing written.
"$culprit" run --sample-interval 0 -o ok --termination-log pod/ok-log -- true
[ ! -e pod/ok-log ] || fail "a job that succeeded wrote a termination log"
echo "termination log: $size bytes, headline: $(head -1 pod/termination-log)"
