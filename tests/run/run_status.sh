#!/bin/sh
# `culprit run` exits with the job's status (128 + N for a signal), passes output through
# unchanged, forwards SIGTERM / SIGINT to the job's process group, keeps nothing for a job that
# succeeds (unless --keep), and says 127 for a command it cannot start. A child killed by
# SIGKILL gives 137 and a kept incident folder.
. "$(dirname "$0")/lib.sh"
need python3
cd "$work"
run() { set +e; "$culprit" run --sample-interval 0 "$@" > "$work/out" 2> "$work/err"; rc=$?; set -e; }

run -o ok -- sh -c 'printf "a b\n\tc\n"; printf "no newline"'
[ "$rc" -eq 0 ] || fail "a succeeding job gave $rc"
printf 'a b\n\tc\nno newline' | cmp -s - "$work/out" || fail "stdout was changed on the way through"
[ ! -e ok ] || fail "a succeeding job left its folder"
[ ! -s "$work/err" ] || fail "a succeeding job printed on stderr: $(cat "$work/err")"

run -o kept --keep -- sh -c 'echo fine'
[ "$rc" -eq 0 ] && [ -s kept/*/job.stdout.log ] && [ -s kept/*/culprit-snapshot.json ] || fail "--keep did not keep the folder"

run -o three -- sh -c 'echo oops >&2; exit 3'
[ "$rc" -eq 3 ] || fail "exit 3 gave $rc"
grep -q "^oops$" "$work/err" || fail "stderr was not passed through"
[ -d three ] || fail "a failing job left no folder"
grep -q '"exit_code": 3' three/*/culprit-snapshot.json || fail "the manifest lacks the exit code"

run -o killed -- sh -c 'echo going; kill -9 $$'
[ "$rc" -eq 137 ] || fail "a child killed by SIGKILL gave $rc, not 137"
grep -q '"signal": 9' killed/*/culprit-snapshot.json || fail "the manifest lacks the signal"
grep -q "killed by signal 9" "$work/err" || fail "the run does not say the job was killed"

run -- sh -c 'exit 2'
[ "$rc" -eq 2 ] || fail "exit 2 gave $rc"
ls -d culprit-incident-20[0-9][0-9][0-1][0-9][0-3][0-9]T[0-9][0-9][0-9][0-9][0-9][0-9]Z >/dev/null 2>&1 ||
  fail "no default folder culprit-incident-<UTC time>: $(ls)"

run -o missing -- culprit-no-such-command-here
[ "$rc" -eq 127 ] || fail "a missing command gave $rc, not 127"
[ ! -e missing ] || fail "a command that never started left a folder"

run -o noargs
[ "$rc" -eq 2 ] || fail "no command gave $rc, not 2"

# SIGTERM to culprit reaches the job, which handles it and exits 7.
cat > term.py <<'PY'
import signal, sys, time
signal.signal(signal.SIGTERM, lambda *a: (print("got TERM", flush=True), sys.exit(7)))
print("ready", flush=True)
time.sleep(30)
PY
"$culprit" run --sample-interval 0 -o term -- python3 term.py > term.out 2> term.err &
pid=$!
i=0; while ! grep -q ready term.out 2>/dev/null; do i=$((i+1)); [ $i -lt 100 ] || fail "the job never started"; sleep 0.1; done
kill -TERM $pid
set +e; wait $pid; rc=$?; set -e
[ "$rc" -eq 7 ] || fail "SIGTERM: culprit exited $rc, the job 7"
grep -q "got TERM" term.out || fail "SIGTERM did not reach the job"

# SIGINT (Ctrl-C) to culprit ends a job that does not handle it: 130, as a shell says.
# (A shell's background job starts with SIGINT ignored, which culprit and the job keep, as nohup
# wants: the wrapper gives culprit the terminal's default first.)
python3 -c 'import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execvp(sys.argv[1], sys.argv[1:])' \
  "$culprit" run --sample-interval 0 -o int -- python3 -c 'import signal,time; signal.signal(signal.SIGINT, signal.SIG_DFL); print("ready", flush=True); time.sleep(30)' > int.out 2> int.err &
pid=$!
i=0; while ! grep -q ready int.out 2>/dev/null; do i=$((i+1)); [ $i -lt 100 ] || fail "the job never started"; sleep 0.1; done
kill -INT $pid
set +e; wait $pid; rc=$?; set -e
[ "$rc" -eq 130 ] || fail "SIGINT: culprit exited $rc, not 130"

# nohup: an ignored SIGHUP stays ignored for the job, which runs on.
nohup "$culprit" run --sample-interval 0 -o hup -- python3 -c 'import time; print("ready", flush=True); time.sleep(1); print("survived", flush=True)' > hup.out 2> hup.err &
pid=$!
i=0; while ! grep -q ready hup.out 2>/dev/null; do i=$((i+1)); [ $i -lt 100 ] || fail "the job never started"; sleep 0.1; done
kill -HUP $pid
set +e; wait $pid; rc=$?; set -e
[ "$rc" -eq 0 ] && grep -q survived hup.out || fail "under nohup, SIGHUP ended the job (rc $rc)"
# On a terminal (a pty from util-linux `script`) the job gets the terminal: it reads it, and
# Ctrl-C typed there reaches it.
if command -v script >/dev/null 2>&1; then
  set +e
  (sleep 1; printf 'hello\n') | timeout 20 script -qec "'$culprit' run --sample-interval 0 -o tty -- sh -c 'read x; echo got \$x; exit 5'" /dev/null > tty.out 2>&1
  rc=$?
  set -e
  [ "$rc" -eq 5 ] || fail "on a terminal: culprit exited $rc, the job 5 (124: the job could not read the terminal)"
  grep -q "got hello" tty.out || fail "on a terminal: the job did not read its input"
  set +e
  (sleep 1.5; printf '\003') | timeout 20 script -qec "'$culprit' run --sample-interval 0 -o ttyint -- sleep 30" /dev/null > ttyint.out 2>&1
  rc=$?
  set -e
  [ "$rc" -eq 130 ] || fail "Ctrl-C on a terminal: culprit exited $rc, not 130"
else
  echo "note: util-linux script is absent; the terminal checks are not run"
fi
echo "ok"
