#!/bin/sh
# `culprit scan --prometheus FILE` (issue 39): over the scan test's batch of five incidents the
# file counts the incidents per verdict and per culprit role as the JSON Lines of the same scan
# say, passes `promtool check metrics` (Prometheus' own linter of the text exposition format),
# and is replaced atomically: no temporary file is left beside it, and a FILE that is an input is
# refused. promtool comes with Debian's `prometheus` package (scripts/setup-debian.sh).
# Usage: prometheus.sh CULPRIT SOURCE_DIR WORK_DIR
set -eu
culprit=$1
src=$2
work=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v promtool >/dev/null 2>&1 || { echo "SKIP: promtool is not installed (Debian: apt-get install prometheus)" >&2; exit 77; }
rm -rf "$work"
mkdir -p "$work/metrics"
sh "$src/tests/scan/make_batch.sh" "$src" "$work/batch"
"$culprit" scan --jobs 2 --jsonl --prometheus "$work/metrics/culprit.prom" "$work/batch" > "$work/scan.jsonl"
[ -s "$work/metrics/culprit.prom" ] || fail "no metrics file written"
[ "$(ls "$work/metrics")" = "culprit.prom" ] || fail "something beside the metrics file was left: $(ls "$work/metrics")"
promtool check metrics < "$work/metrics/culprit.prom" || { cat "$work/metrics/culprit.prom" >&2; fail "promtool check metrics failed"; }
# Each verdict's and each role's count is what the JSON Lines of the same scan say (top-level
# `verdict`, `culprit.role`; no culprit: role none).
python3 - "$work/scan.jsonl" "$work/metrics/culprit.prom" <<'PY' || fail "the metrics do not count the scan's incidents"
import collections, json, re, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
want = collections.Counter(("culprit_scan_incidents", "verdict", r["verdict"]) for r in rows)
want += collections.Counter(("culprit_scan_culprits", "role", (r.get("culprit") or {}).get("role") or "none") for r in rows)
got = {}
for line in open(sys.argv[2]):
    m = re.fullmatch(r'(\w+)\{(\w+)="([^"]*)"\} (\d+)\n', line)
    if m:
        got[m.group(1, 2, 3)] = int(m.group(4))
bad = [(k, n, got.get(k)) for k, n in want.items() if got.get(k) != n]
bad += [(k, 0, n) for k, n in got.items() if n and k not in want]
for b in bad:
    print("metric %s: scan %s, file %s" % b, file=sys.stderr)
assert len(rows) == 5 and not bad
PY
sum() { awk -v m="$1" 'index($0, m "{") == 1 { s += $2 } END { print s + 0 }' "$work/metrics/culprit.prom"; }
# A second scan replaces the file (the textfile collector never reads a half-written one).
"$culprit" scan --jobs 2 --prometheus "$work/metrics/culprit.prom" "$work/batch/cgroup-folder" > /dev/null
[ "$(sum culprit_scan_incidents)" -eq 1 ] || fail "a second scan did not replace the metrics file"
[ "$(ls "$work/metrics")" = "culprit.prom" ] || fail "a temporary file was left: $(ls "$work/metrics")"
# An input is never overwritten.
cp "$work/metrics/culprit.prom" "$work/batch/cgroup-folder/keep.prom"
if "$culprit" scan --prometheus "$work/batch/cgroup-folder/keep.prom" "$work/batch/cgroup-folder" > /dev/null 2>&1; then
  fail "--prometheus wrote over a file of the input folder"
fi
echo "scan --prometheus: promtool check metrics passes; counts = the scan's verdicts"
