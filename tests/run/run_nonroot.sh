#!/bin/sh
# `culprit run` as a user who may not read the kernel log (dmesg_restrict): dmesg's refusal is
# named once in the report's sources, journalctl -k is tried instead, nothing hangs, and the job's
# status is kept. Runs as nobody (needs root to switch); skipped where dmesg is open to everyone.
. "$(dirname "$0")/lib.sh"
[ -n "$as_nobody" ] || skip "needs root and setpriv / runuser to run as nobody"
need dmesg
if $as_nobody dmesg >/dev/null 2>&1; then skip "dmesg is not restricted for non-root users here (kernel.dmesg_restrict=0)"; fi
$as_nobody test -x "$culprit" || skip "user nobody cannot execute $culprit (a parent folder is closed to others)"
mkdir -p "$work/open"
chmod 777 "$work/open"
$as_nobody test -w "$work/open" || skip "user nobody cannot write under $work"
set +e
$as_nobody env HOME=/tmp "$culprit" run --sample-interval 0 -o "$work/open/incident" -- sh -c 'echo "step 3 failed" >&2; exit 1' \
  > /dev/null 2> "$work/err"
rc=$?
set -e
cat "$work/err"
[ "$rc" -eq 1 ] || fail "culprit run as nobody exited $rc, the job 1"
[ "$(grep -c '^  dmesg — .*(refused' "$work/err")" -eq 1 ] || fail "dmesg's refusal is not named once in the sources"
grep -q '"user": "nobody"' "$work/open/incident"/*/culprit-snapshot.json || fail "the manifest does not name the job's user"
grep -q '"tool": "journalctl"' "$work/open/incident"/*/culprit-snapshot.json || fail "journalctl -k was not tried after dmesg"
echo ok
