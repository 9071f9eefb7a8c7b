#!/bin/sh
# Issue 37, finding 25: a job refused memory by its own ceiling, and a sampled run's sources.
# The job runs under `prlimit --as` (ulimit -v: RLIMIT_AS, set by prlimit just before it execs the
# job, so the first sample may miss it: every sample reads /proc/PID/limits), sleeps, then asks
# for more than the ceiling: Python's MemoryError. The report must name the job's own
# address-space limit with its size, its advice must say to raise it, and the sources must list
# each sampled item once (`sample-*-meminfo.txt … in N samples`), not one row per sample file.
. "$(dirname "$0")/lib.sh"
need python3 prlimit
cat > "$work/memerr.py" <<'PY'
import time
time.sleep(1.0)
buf = bytearray(2 * 1024 ** 3)
PY
run_failing run --sample-interval 0.2 -o "$work/incident" -- prlimit --as=1024000000 python3 "$work/memerr.py"
grep -q "^MemoryError" "$work/stderr" || fail "the job did not hit MemoryError"
grep -q "^Host allocation failure" "$work/stderr" || fail "no host allocation failure reported"
"$culprit" --format json "$work/incident" > "$work/report.json" || fail "culprit DIR found no verdict"
python3 - "$work/report.json" <<'PY' || fail "the report does not name the job's own limit"
import json, sys
v = json.load(open(sys.argv[1]))
assert v["verdict"] == "host_alloc_fail", v["verdict"]
assert "address-space limit of 976.56 MiB" in v["summary"], v["summary"]
assert any("ulimit -v" in a and "Raise or lift" in a for a in v["advice"]), v["advice"]
names = [s["name"] for s in v["sources"]]
per_file = [n for n in names if "/sample-0" in n]
assert not per_file, per_file
series = [s for s in v["sources"] if s["name"].endswith("/sample-*-meminfo.txt")]
assert len(series) == 1 and series[0]["files"] >= 3, series
PY
grep -q "sample-\*-meminfo.txt .* in [0-9]* samples" "$work/stderr" || fail "the text's sources do not group the samples"
# Two hosts, each with its job's limits (node-b's read last): node-a's refusal is named by
# node-a's own ceiling, not lost because another host's reading is the latest.
mkdir -p "$work/two/node-a" "$work/two/node-b"
# The last sample that read the ceiling (prlimit sets it after the first sample may have run).
limits=$(grep -l "^Max address space  *1024000000 " "$work/incident"/*/sample-*-limits.txt | tail -1)
[ -n "$limits" ] || fail "no sample read the job's address-space limit"
cp "$limits" "$work/two/node-a/limits.txt"
sed 's/1024000000/2048000000/' "$limits" > "$work/two/node-b/limits.txt"
printf 'Traceback (most recent call last):\n  File "prep.py", line 3, in <module>\nMemoryError\n' > "$work/two/node-a/job.log"
"$culprit" "$work/two" > "$work/two.txt" 2>&1 || true
grep -q "^Host allocation failure on node-a" "$work/two.txt" || fail "node-a's refusal is not the answer: $(head -1 "$work/two.txt")"
tr '\n' ' ' < "$work/two.txt" | grep -q "address-space *limit *of *976.56 *MiB" || fail "node-a's own ceiling is not named"
tr '\n' ' ' < "$work/two.txt" | grep -q "1.91 *GiB" && fail "node-b's ceiling was named for node-a's refusal"
echo "ok: the job's address-space ceiling named, samples listed once per item"
