#!/bin/sh
# Paste benchmark: a ~50 KB terminal paste (routine vLLM worker lines from the seeded corpus
# generator, then the seed incident's paste) diagnosed from process start to printed report,
# `culprit - < paste`: median wall time of RUNS runs, and the user+system CPU time of one.
# With hyperfine installed the times are hyperfine's (no shell between runs, so no harness
# overhead); otherwise a shell loop around GNU time, whose own fork/exec adds ~15 ms here.
#
# Usage: tests/bench/paste.sh [BUILD_DIR=build] [RUNS=21]
set -eu
build=${1:-build}
runs=${2:-21}
culprit=$build/culprit
[ -x "$culprit" ] || { echo "build culprit first: cmake --build $build" >&2; exit 2; }
here=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$build/tests/culprit_gen_corpus" "$work/corpus" 1 1 42 > /dev/null
seed=$here/fixtures/incidents/two-node-stale-embeddings-paste/inputs/paste.txt
filler=$(find "$work/corpus" -name 'vllm-worker.log' | head -1)
head -c $((51200 - $(wc -c < "$seed"))) "$filler" | sed '$d' > "$work/paste.txt"
cat "$seed" >> "$work/paste.txt"
bytes=$(wc -c < "$work/paste.txt")
"$culprit" - < "$work/paste.txt" > /dev/null  # warm the page cache
if command -v hyperfine > /dev/null 2>&1; then
  # The paste as a file argument: hyperfine 1.15 (Debian 12) has no --input for stdin.
  hyperfine -N -w 3 -r "$runs" --export-json "$work/h.json" "$culprit $work/paste.txt" > /dev/null
  python3 - "$work/h.json" "$bytes" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"][0]
print("paste    %s bytes: median %.0f ms wall from process start (mean user %.0f ms + system %.0f ms, hyperfine, %d runs), target 20 ms"
      % (sys.argv[2], r["median"] * 1000, r["user"] * 1000, r["system"] * 1000, len(r["times"])))
PY
  exit 0
fi
i=0; : > "$work/times"
while [ $i -lt "$runs" ]; do
  start=$(date +%s%N)
  /usr/bin/time -f "%U %S" -o "$work/t" "$culprit" - < "$work/paste.txt" > /dev/null 2>&1 || true
  stop=$(date +%s%N)
  echo "$(( (stop - start) / 1000 )) $(tail -1 "$work/t")" >> "$work/times"
  i=$((i + 1))
done
sort -n "$work/times" | awk -v n="$runs" -v b="$bytes" '
  { wall[NR] = $1 / 1000; cpu[NR] = ($2 + $3) * 1000 }
  END { m = int((n + 1) / 2); printf "paste    %d bytes: median %.0f ms wall from process start (cpu %.0f ms, 10 ms resolution), target 20 ms\n", b, wall[m], cpu[m] }'
