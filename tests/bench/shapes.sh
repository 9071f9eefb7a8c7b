#!/bin/sh
# Many-shapes scan benchmark: one row per shape of log (tests/bench/gen_shapes.cpp writes them:
# vLLM and SGLang with and without worker prefixes and colour, Python logging default / asctime /
# JSON, kern.log, messages, journalctl -o short-iso and -o json, dmesg and dmesg -T, Kubernetes
# CRI, docker JSON-file and `docker logs -t`, a Slurm .out with `\r` progress bars, absl logs,
# DeepSpeed / Lightning, CRLF, a format nobody knows, the `*-many` shapes with a memory line in
# ten, and every shape mixed in each node folder). Each row: culprit scan's best wall time of
# RUNS, GB/s, peak RSS, and rg's (`rg -i -c -F -f` culprit's own rule literals) best wall time
# in the same run, and culprit's time over rg's (at most 1.00: culprit is no slower). With
# BASE=/path/to/another/culprit a column times that binary too, in the same run (before / after).
#
# Usage: tests/bench/shapes.sh [BUILD_DIR=build] [MEGABYTES_PER_SHAPE=64] [RUNS=3] [SHAPE...]
# Needs: ripgrep, GNU time (apt-get install ripgrep time).
set -eu
build=${1:-build}
mb=${2:-64}
runs=${3:-3}
[ $# -gt 3 ] && shift 3 || set --
corpus=${BENCH_SHAPES:-/tmp/culprit-shapes-$mb}
culprit=$build/culprit
base=${BASE:-}
[ -x "$culprit" ] || { echo "build culprit first: cmake --build $build" >&2; exit 2; }
for t in rg /usr/bin/time; do
  command -v "$t" > /dev/null || { echo "$t is needed (apt-get install ripgrep time)" >&2; exit 2; }
done
[ -d "$corpus" ] || "$build/tests/culprit_gen_shapes" "$corpus" "$mb" 42 > /dev/null
literals=$(mktemp)
timing=$(mktemp)
trap 'rm -f "$literals" "$timing"' EXIT
"$culprit" rules literals > "$literals"

# best CMD...: "best-wall-s best-cpu-s peak-RSS-KiB" over $runs runs (CPU: user + system of
# the command and its threads; on a shared machine it says more than the wall time, which
# waits for other work).
best() {
  b="" c="" rss=0 i=0
  while [ $i -lt "$runs" ]; do
    /usr/bin/time -f "%e %U %S %M" -o "$timing" "$@" > /dev/null 2>&1 || true
    # (GNU time writes "Command exited with non-zero status N" first where rg counts nothing.)
    line=$(tail -1 "$timing")
    t=$(echo "$line" | cut -d' ' -f1) r=$(echo "$line" | cut -d' ' -f4)
    cpu=$(echo "$line" | awk '{ print $2 + $3 }')
    if [ -z "$b" ] || awk -v x="$t" -v y="$b" 'BEGIN { exit !(x < y) }'; then b=$t; fi
    if [ -z "$c" ] || awk -v x="$cpu" -v y="$c" 'BEGIN { exit !(x < y) }'; then c=$cpu; fi
    [ "$r" -gt "$rss" ] && rss=$r
    i=$((i + 1))
  done
  echo "$b $c $rss"
}
rate() { echo "$1 $2" | awk '{ printf "%.2f", ($2 > 0 ? $1 / 1e9 / $2 : 0) }'; }
ratio() { echo "$1 $2" | awk '{ printf "%.2f", ($2 > 0 ? $1 / $2 : 0) }'; }

echo "corpus: $corpus ($mb MiB a shape), best of $runs runs, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
head='%-19s %5s'
cols='| %6s %5s %5s %4s '
printf "$head" shape MiB
[ -n "$base" ] && printf "$cols" base_s GB/s cpu_s RSS
printf "$cols" culp_s GB/s cpu_s RSS
printf '| %6s %5s | %5s %5s\n' rg_s cpu_s ratio cpu_r
shapes=${*:-$(ls "$corpus")}
for shape in $shapes; do
  dir=$corpus/$shape
  [ -d "$dir" ] || continue
  bytes=$(du -sb "$dir" | cut -f1)
  find "$dir" -type f -exec cat {} + > /dev/null  # warm the page cache
  printf "$head" "$shape" "$(echo "$bytes" | awk '{ printf "%.0f", $1 / 1048576 }')"
  if [ -n "$base" ]; then
    set -- $(best "$base" scan --jobs 2 "$dir")
    printf "$cols" "$1" "$(rate "$bytes" "$1")" "$2" "$(($3 / 1024))"
  fi
  set -- $(best "$culprit" scan --jobs 2 "$dir"); ct=$1 cc=$2
  printf "$cols" "$1" "$(rate "$bytes" "$1")" "$2" "$(($3 / 1024))"
  set -- $(best rg -i -c -F -f "$literals" "$dir")
  printf '| %6s %5s | %5s %5s\n' "$1" "$2" "$(ratio "$ct" "$1")" "$(ratio "$cc" "$2")"
done
echo "GB/s: of the shape's bytes over the best wall time; RSS: peak MiB; ratio, cpu_r: culprit's best wall, CPU time over rg's in the same run (above 1.00: rg is faster)."
