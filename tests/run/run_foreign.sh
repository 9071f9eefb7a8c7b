#!/bin/sh
# Issue 14's "done when": a process of another user (a sleeper, as a stale server) is started
# first; `culprit run -- python3 child.py`, whose child prints a real PyTorch OOM naming the
# sleeper's pid and exits 1, with stand-in nvidia-smi / docker listing the sleeper, prints a
# report naming the sleeper `foreign` from the real `ps` (another user than the job), exits 1,
# and leaves a folder (and with --archive a .tar.zst) that `culprit DIR` diagnoses the same way.
. "$(dirname "$0")/lib.sh"
need python3 ps
[ -n "$as_nobody" ] || skip "needs root and setpriv / runuser to start a process of another user (nobody)"
$as_nobody sleep 60 &
sleeper=$!
trap 'kill $sleeper 2>/dev/null || true' EXIT
sleep 2.2  # ps's start time is cut to the second: the sleeper is provably older than the job
ps -o user= -p "$sleeper" | grep -q nobody || fail "the sleeper does not run as nobody"
oom_child
export CULPRIT_TEST_HOLDER_PID=$sleeper
PATH="$standins:$PATH" run_failing run --sample-interval 0.2 -o "$work/incident" -- python3 "$work/child.py" "$sleeper"
grep -qx "epoch 0 step 10: loss 2.31" "$work/stdout" || fail "the job's stdout was not passed through unchanged"
grep -q "^torch.OutOfMemoryError: CUDA out of memory" "$work/stderr" || fail "the job's stderr was not passed through"
grep -q "^CUDA OOM on " "$work/stderr" || fail "no CUDA OOM report on stderr"
grep -q "pid $sleeper" "$work/stderr" || fail "the report does not name the sleeper (pid $sleeper)"
grep -q "foreign" "$work/stderr" || fail "the sleeper is not foreign"
grep -q "runs as user nobody" "$work/stderr" || fail "the report does not say the sleeper runs as another user"
grep -q "before the job .culprit run. started" "$work/stderr" || fail "the report does not say the sleeper started before the job"
host=$(ls "$work/incident")
for f in job.stdout.log job.stderr.log ps.txt nvidia-smi.txt nvidia-smi-query.csv free.txt docker-ps.txt \
         docker-inspect.json culprit-snapshot.json sample-0000-ps.txt sample-0000-nvidia-smi-query.csv; do
  [ -s "$work/incident/$host/$f" ] || fail "the incident folder lacks $f"
done
grep -q "^20[0-9-]*T[0-9:.]*Z epoch 0 step 10" "$work/incident/$host/job.stdout.log" || fail "stdout not recorded with arrival times"
# The holder's and the job's own /proc facts (issue 39): real /proc/PID/status and cgroup files.
grep -qx "==> /proc/$sleeper/status <==" "$work/incident/$host/proc-status.txt" || fail "proc-status.txt lacks the holder"
grep -q "^NSpid:" "$work/incident/$host/proc-status.txt" || fail "proc-status.txt lacks the holder's NSpid"
grep -qx "==> /proc/$sleeper/cgroup <==" "$work/incident/$host/proc-status.txt" || fail "proc-status.txt lacks the holder's cgroup"
job_pid=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["job"]["pid"])' "$work/incident/$host/culprit-snapshot.json")
grep -qx "==> /proc/$job_pid/status <==" "$work/incident/$host/sample-0000-proc-status.txt" || fail "the first sample lacks the job's own /proc facts"
# -q -x is not served by the stand-in: named once, as failed.
[ "$(grep -c '^  nvidia-smi — ' "$work/stderr")" -eq 1 ] || fail "nvidia-smi's failing command is not named once in the sources"
# The folder diagnoses the same way later.
"$culprit" --format json "$work/incident" > "$work/again.json" || fail "culprit DIR found no verdict"
python3 - "$work/again.json" "$sleeper" <<'PY' || fail "culprit DIR does not give the same culprit"
import json, sys
v = json.load(open(sys.argv[1]))
c = v.get("culprit") or {}
assert v["verdict"] == "cuda_oom", v["verdict"]
assert str(c.get("pid")) == sys.argv[2] and c.get("role") == "foreign", c
PY
"$culprit" "$work/incident" > "$work/again.txt" || true
head -1 "$work/again.txt" | cut -d' ' -f1-3 > "$work/a"; grep "^CUDA OOM on " "$work/stderr" | cut -d' ' -f1-3 > "$work/b"
cmp -s "$work/a" "$work/b" || fail "culprit DIR's headline differs from the run's"
# --archive: one .tar.zst that diagnoses the same way.
set +e
PATH="$standins:$PATH" "$culprit" run --archive --sample-interval 0 -o "$work/archived" -- python3 "$work/child.py" "$sleeper" \
  > /dev/null 2> "$work/stderr2"
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "culprit run --archive exited $rc"
[ -s "$work/archived.tar.zst" ] && [ ! -e "$work/archived" ] || fail "--archive did not leave archived.tar.zst alone"
"$culprit" --format json "$work/archived.tar.zst" > "$work/archive.json" || fail "the archive gives no verdict"
python3 - "$work/archive.json" "$sleeper" <<'PY' || fail "the archive does not give the same culprit"
import json, sys
v = json.load(open(sys.argv[1]))
c = v.get("culprit") or {}
assert str(c.get("pid")) == sys.argv[2] and c.get("role") == "foreign", c
PY
echo "ok: the sleeper $sleeper is foreign"
