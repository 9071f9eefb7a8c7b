#!/bin/sh
# Issue 34 item 4: `culprit run` knows how its job ended. The manifest's exit status or signal,
# and whether the kernel log was read, become a job_end event that rules/diagnoses/job_end.toml
# reads, so the report says what the run proves:
#   - killed by SIGKILL, kernel log read and no OOM kill in it: not_oom, not the kernel OOM killer;
#   - killed by SIGKILL, kernel log refused: kernel_oom (low), the OOM killer not ruled out;
#   - stopped by SIGTERM (forwarded by culprit, as a scheduler's stop reaches it): not_oom;
#   - exited 1: not_oom, "exited 1" with its last error line, cited by file and line;
#   - exited 0: nothing kept, and a kept folder gives no finding.
# The kernel log is a stand-in dmesg (and journalctl) first on PATH: readable without root, or
# refused as a kernel with dmesg_restrict refuses it, so each case runs the same on every machine.
. "$(dirname "$0")/lib.sh"
need python3
cd "$work"

# `kernel_log open|refused`: a PATH whose dmesg prints a quiet kernel log stamped now (nothing
# about memory), or whose dmesg and journalctl refuse as the kernel refuses a user.
kernel_log() {
  rm -rf "$work/bin"
  mkdir -p "$work/bin"
  if [ "$1" = open ]; then
    cat > "$work/bin/dmesg" <<'SH'
#!/bin/sh
now=$(date -u +%Y-%m-%dT%H:%M:%S)
echo "$now,000000+00:00 IPv6: ADDRCONF(NETDEV_CHANGE): eth0: link becomes ready"
SH
  else
    cat > "$work/bin/dmesg" <<'SH'
#!/bin/sh
echo "dmesg: read kernel buffer failed: Operation not permitted" >&2
exit 1
SH
    cat > "$work/bin/journalctl" <<'SH'
#!/bin/sh
echo "Hint: You are currently not seeing messages from other users and the system." >&2
echo "-- No entries --"
SH
  fi
  chmod +x "$work/bin"/*
}

# `run NAME CMD...`: culprit run into folder NAME; rc, NAME.err (the report on stderr) and
# NAME.json (`culprit --format json NAME`, the folder diagnosed again) are left.
run() {
  name=$1
  shift
  set +e
  PATH="$work/bin:$PATH" "$culprit" run --sample-interval 0 -o "$name" -- "$@" > "$name.out" 2> "$name.err"
  rc=$?
  "$culprit" --format json "$name" > "$name.json" 2>/dev/null
  set -e
}

# `expect NAME VERDICT PYTHON-ASSERTIONS`: checks NAME.json's verdict and more (v is the report).
expect() {
  python3 - "$1.json" "$2" "$3" <<'PY' || fail "$1: the report is not what the run proves: $(cat "$1.err")"
import json, sys
v = json.load(open(sys.argv[1]))
assert v["verdict"] == sys.argv[2], (v["verdict"], v["summary"])
exec(sys.argv[3])
PY
}

kernel_log open
run killed sh -c 'echo "epoch 0 step 10: loss 2.31"; kill -9 $$'
[ "$rc" -eq 137 ] || fail "SIGKILL: culprit exited $rc, not 137"
grep -q '"kernel_log": "ok"' killed/*/culprit-snapshot.json || fail "SIGKILL: the manifest does not say the kernel log was read"
grep -q "was killed by SIGKILL, and not by the kernel OOM killer" killed.err || fail "SIGKILL: the run's report does not rule the kernel out"
grep -q "came from user space" killed.err || fail "SIGKILL: the run's report does not say the signal came from user space"
expect killed not_oom '
assert v["confidence"] == "medium", v["confidence"]
assert v["root"]["rule"] == "run-sigkill-not-kernel-oom", v["root"]["rule"]
assert any(e["source"].endswith("/culprit-snapshot.json") for e in v["evidence"]), v["evidence"]
assert v["victim"] and v["victim"]["name"] == "sh", v["victim"]'

kernel_log refused
run unread sh -c 'kill -9 $$'
[ "$rc" -eq 137 ] || fail "SIGKILL, kernel log refused: culprit exited $rc, not 137"
grep -q '"kernel_log": "refused"' unread/*/culprit-snapshot.json || fail "the manifest does not say the kernel log was refused"
grep -q "cannot be ruled out" unread.err || fail "SIGKILL, kernel log refused: the report does not keep the OOM killer possible"
expect unread kernel_oom '
assert v["confidence"] == "low", v["confidence"]
assert v["root"]["rule"] == "run-sigkill-kernel-log-unread", v["root"]["rule"]'

# SIGTERM to culprit is forwarded to the job's process group (as a scheduler's stop reaches a
# job); a job that does not handle it ends by it.
kernel_log open
PATH="$work/bin:$PATH" "$culprit" run --sample-interval 0 -o term -- sh -c 'echo ready; exec sleep 30' > term.out 2> term.err &
pid=$!
i=0; while ! grep -q ready term.out 2>/dev/null; do i=$((i+1)); [ $i -lt 100 ] || fail "the job never started"; sleep 0.1; done
kill -TERM $pid
set +e; wait $pid; rc=$?; "$culprit" --format json term > term.json 2>/dev/null; set -e
[ "$rc" -eq 143 ] || fail "SIGTERM: culprit exited $rc, not 143"
grep -q "was stopped by SIGTERM, a stop from outside the job" term.err || fail "SIGTERM: the report does not say it was stopped"
expect term not_oom '
assert v["root"]["rule"] == "run-stopped-by-signal", v["root"]["rule"]
assert "ran out of memory" in v["summary"], v["summary"]'

run exit1 sh -c 'echo "loading shard 3 of 8" >&2; echo "step 3 failed: checksum mismatch in shard-00003.bin" >&2; exit 1'
[ "$rc" -eq 1 ] || fail "exit 1: culprit exited $rc"
grep -q "exited 1: step 3 failed: checksum mismatch in shard-00003.bin" exit1.err || fail "exit 1: the report does not quote the job's last error line"
expect exit1 not_oom '
assert v["root"]["rule"] == "run-exit-status", v["root"]["rule"]
cited = [(e["source"].rsplit("/", 1)[-1], e["line"]) for e in v["evidence"]]
assert ("job.stderr.log", 2) in cited and ("job.stderr.log", 1) in cited, cited
assert v["culprit"] and v["culprit"]["role"] == "job", v["culprit"]'

# A CUDA OOM in the job's output stays the answer over its exit status.
oom_child
run oom python3 "$work/child.py" 4242
[ "$rc" -eq 1 ] || fail "CUDA OOM: culprit exited $rc"
expect oom cuda_oom '
assert v["root"]["rule"] == "cuda-oom", v["root"]["rule"]'

# Success: nothing is kept and nothing said; a kept folder gives no finding.
run ok sh -c 'echo fine'
[ "$rc" -eq 0 ] && [ ! -e ok ] && [ ! -s ok.err ] || fail "a succeeding job left a folder or a report (rc $rc)"
set +e
PATH="$work/bin:$PATH" "$culprit" run --keep --sample-interval 0 -o kept -- sh -c 'echo fine' > kept.out 2> kept.err
rc=$?
"$culprit" --format json kept > kept.json 2>/dev/null
set -e
[ "$rc" -eq 0 ] || fail "a succeeding job with --keep gave $rc"
grep -q "diagnosing" kept.err && fail "a succeeding job was diagnosed: $(cat kept.err)"
expect kept unknown '
assert v["findings"] == [], v["findings"]
assert any(s["format"] == "culprit_snapshot" for s in v["sources"]), v["sources"]'
echo ok
