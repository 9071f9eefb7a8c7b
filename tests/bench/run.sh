#!/bin/sh
# Scan benchmark: generates a seeded multi-node corpus (default 400 MiB) and prints, side by
# side, culprit scan, `rg -i -c -F` with culprit's (case-insensitive) literal set, and `lnav -n` indexing the same
# files: wall time (median of RUNS), throughput, peak RSS, and the ratios.
#
# Usage: tests/bench/run.sh [BUILD_DIR=build] [MEGABYTES=400] [RUNS=3]
# Needs: ripgrep, lnav, GNU time (apt-get install ripgrep lnav time).
set -eu
build=${1:-build}
mb=${2:-400}
runs=${3:-3}
corpus=${BENCH_CORPUS:-/tmp/culprit-bench-$mb}
culprit=$build/culprit
[ -x "$culprit" ] || { echo "build culprit first: cmake --build $build" >&2; exit 2; }
if [ ! -d "$corpus" ]; then
  "$build/tests/culprit_gen_corpus" "$corpus" "$mb" 24 42
fi
bytes=$(du -sb "$corpus" | cut -f1)
literals=$(mktemp)
"$culprit" rules literals > "$literals"
cat "$corpus"/*/*/* > /dev/null  # warm the page cache

# measure NAME CMD...: prints median wall seconds and max RSS (KiB) over $runs runs
measure() {
  name=$1; shift
  times=""; rss=0
  i=0
  while [ $i -lt "$runs" ]; do
    /usr/bin/time -f "%e %M" -o "$timing" "$@" > /dev/null 2>&1 || true
    out=$(tail -1 "$timing")
    t=${out% *}; r=${out#* }
    times="$times $t"
    [ "$r" -gt "$rss" ] && rss=$r
    i=$((i + 1))
  done
  med=$(echo $times | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
  echo "$name $med $rss"
}

results=$(mktemp)
timing=$(mktemp)
measure culprit "$culprit" scan --jobs 2 "$corpus" >> "$results"
measure rg rg -i -c -F -f "$literals" "$corpus" >> "$results"
if command -v lnav > /dev/null; then
  measure lnav sh -c "lnav -n -q '$corpus'/*/*/* < /dev/null" >> "$results"
fi
echo "corpus: $corpus, $(echo "$bytes" | awk '{printf "%.1f MiB", $1/1048576}'), median of $runs runs, $(nproc) cores"
printf '%-8s %10s %12s %12s %10s\n' tool wall_s MiB/s peak_RSS_MiB vs_culprit
cul=$(awk '$1=="culprit"{print $2}' "$results")
while read -r name t rss; do
  awk -v n="$name" -v t="$t" -v r="$rss" -v b="$bytes" -v c="$cul" \
    'BEGIN { printf "%-8s %10.2f %12.1f %12.1f %9.2fx\n", n, t, (t > 0 ? b/1048576/t : 0), r/1024, (c > 0 ? t/c : 0) }'
done < "$results"
rm -f "$literals" "$results" "$timing"
