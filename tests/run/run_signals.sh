# `culprit run` survives what a scheduler sends (issue 36, redteam finding 24): SIGUSR1 (Slurm's
# `--signal=USR1@T` warning before a time limit), SIGUSR2 and SIGALRM sent to culprit reach the
# job's process group and end neither culprit nor the job; the job's output keeps flowing, its
# own exit status is culprit's, and the incident is snapshotted as for any failure.
. "$(dirname "$0")/lib.sh"
cd "$work"

"$culprit" run --sample-interval 0 -o sig -- sh -c '
  trap "echo got-usr1" USR1; trap "echo got-usr2" USR2; trap "echo got-alrm" ALRM
  echo ready; i=0
  while [ $i -lt 40 ]; do sleep 0.1; i=$((i+1)); done
  echo after-signals; exit 3' > sig.out 2> sig.err &
pid=$!
i=0; while ! grep -q ready sig.out 2>/dev/null; do i=$((i+1)); [ $i -lt 100 ] || fail "the job never started"; sleep 0.1; done
for s in USR1 USR2 ALRM; do
  kill -$s $pid || fail "culprit was gone before SIG$s"
  sleep 0.3
done
set +e; wait $pid; rc=$?; set -e
[ "$rc" -eq 3 ] || { cat sig.err >&2; fail "culprit exited $rc, not the job's 3 (a signal ended it?)"; }
for word in got-usr1 got-usr2 got-alrm after-signals; do
  grep -q "$word" sig.out || fail "the job's output lacks '$word': the signal did not reach it, or its output stopped"
done
ls sig/*/culprit-snapshot.json >/dev/null 2>&1 || fail "no snapshot manifest: the run did not finish its snapshot"
grep -q "after-signals" sig/*/job.stdout.log || fail "the job's output after the signals was not recorded"
grep -q "the incident is in sig" sig.err || fail "culprit did not finish its report"
echo "ok: SIGUSR1, SIGUSR2 and SIGALRM forwarded; job and culprit lived on"
