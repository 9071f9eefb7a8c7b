#!/bin/sh
# `culprit run --sample-interval` records host and cgroup memory while the job runs: every sample
# file (sample-NNNN-meminfo.txt / -cgroup.txt) starts with the time it was read, /proc/meminfo is
# parsed (format meminfo), and the HTML report's host-memory chart carries the readings
# (figure data-readings) with increasing real times inside the job's run. Where this machine's
# cgroup exposes its memory files (v2 memory.current or v1 memory.usage_in_bytes), the cgroup's
# usage is charted too.
. "$(dirname "$0")/lib.sh"
need python3
[ -r /proc/meminfo ] || skip "no /proc/meminfo"
before=$(date -u +%s)
set +e
"$culprit" run --sample-interval 0.3 -o "$work/incident" -- sh -c 'sleep 1.6; echo "step 3 failed" >&2; exit 1' \
  > "$work/stdout" 2> "$work/stderr"
rc=$?
set -e
after=$(date -u +%s)
[ "$rc" -eq 1 ] || { cat "$work/stderr"; fail "culprit run exited $rc, the job 1"; }
host=$(ls "$work/incident")
node="$work/incident/$host"
for f in sample-0000-meminfo.txt sample-0001-meminfo.txt sample-0002-meminfo.txt meminfo.txt cgroup.txt; do
  [ -s "$node/$f" ] || fail "the incident folder lacks $f"
done
for f in "$node"/sample-*-meminfo.txt "$node/meminfo.txt" "$node/cgroup.txt"; do
  head -1 "$f" | grep -qx '20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]\.[0-9]*Z' ||
    fail "$(basename "$f") does not start with the time it was read"
done
"$culprit" "$work/incident" > "$work/report.txt" 2>&1 || true
grep -q "sample-\*-meminfo.txt  (meminfo.* in [0-9]* samples" "$work/report.txt" || fail "the meminfo samples are not read as meminfo, one source"
"$culprit" --format html "$work/incident" > "$work/report.html" 2> /dev/null || true
python3 - "$work/report.html" "$before" "$after" "$node/cgroup.txt" <<'PY' || fail "the host-memory chart lacks its readings"
import html, json, re, sys
page = open(sys.argv[1]).read()
before, after = float(sys.argv[2]), float(sys.argv[3]) + 1
series = {}
for m in re.finditer(r'<figure class="chart memory-series" data-kind="(\w+)" data-host="[^"]*" data-readings="([^"]*)"', page):
    series.setdefault(m.group(1), []).append(json.loads(html.unescape(m.group(2))))
assert "host" in series, "no host-memory figure"
points = series["host"][0]
assert len(points) >= 4, f"{len(points)} host readings (3 samples and the failure's meminfo at least)"
times = [p[0] for p in points]
assert all(a < b for a, b in zip(times, times[1:])), f"times do not increase: {times}"
assert before <= times[0] and times[-1] <= after, f"times {times[0]}..{times[-1]} not within the run {before}..{after}"
assert all(p[1] and p[1] > 0 and p[2] and p[1] <= p[2] for p in points), "a reading lacks used <= total"
cgroup = open(sys.argv[4]).read()
if "memory.current <==" in cgroup or "memory.usage_in_bytes <==" in cgroup:
    assert "cgroup" in series, "the cgroup's memory files were read but not charted"
    c = [p[0] for p in series["cgroup"][0]]
    assert len(c) >= 4 and all(a < b for a, b in zip(c, c[1:])), f"cgroup times: {c}"
print(f"ok: {len(points)} host readings over {times[-1] - times[0]:.2f} s; cgroup charted: {'cgroup' in series}")
PY
echo ok
