#!/bin/sh
# Scan benchmark: generates a seeded multi-node corpus (default 400 MiB of log text) and its
# compressed copies, and prints in one table, per corpus, culprit scan beside its peers, each
# with wall time and CPU time (medians of RUNS), throughput, peak RSS (GNU time's %M) and
# culprit's ratio:
#   plain         culprit scan | rg -i -c -F -f LITERALS (culprit's own prefilter literals,
#                 `culprit rules literals`) | lnav -n indexing the same files
#   .gz / .zst    every file compressed in place (gzip -6, zstd -3): culprit scan of the
#                 folder | zcat FILES | rg … / zstd -dc FILES | rg …
#   .tar.gz/.zst  every incident one archive: culprit scan of the archives | zcat / zstd -dc
#                 of the archives | rg …
#   one-file      the corpus as one file (its files joined): culprit diagnosing it (read in
#                 pieces) | rg …
#   small-files   every file of the corpus's first four incidents cut at line ends into files of
#                 at most 4 KiB (`split -C 4096`: a folder of many small logs, where what a file
#                 costs to open and sniff counts): culprit scan | rg …
# GB/s is always of the uncompressed log text (the same bytes in every row but small-files, which
# holds a part of it), so rows compare.
# Under the table: the scan's literal pass alone on one core (culprit_bench_literal_pass), which
# bounds the plain row, beside as many literals of rare letters and split_lines.
#
# Under it, a row per shape of log beside rg (tests/bench/shapes.sh; SHAPES_MB=0 leaves it out).
#
# Usage: tests/bench/run.sh [BUILD_DIR=build] [MEGABYTES=400] [RUNS=3]
# Needs: ripgrep, lnav (optional: its row is left out without it), GNU time, gzip, zstd, tar
# (apt-get install ripgrep lnav time gzip zstd tar).
set -eu
build=${1:-build}
mb=${2:-400}
runs=${3:-3}
corpus=${BENCH_CORPUS:-/tmp/culprit-bench-$mb}
culprit=$build/culprit
[ -x "$culprit" ] || { echo "build culprit first: cmake --build $build" >&2; exit 2; }
for t in rg gzip zstd tar /usr/bin/time; do
  command -v "$t" > /dev/null || { echo "$t is needed (apt-get install ripgrep gzip zstd tar time)" >&2; exit 2; }
done
if [ ! -d "$corpus" ]; then
  "$build/tests/culprit_gen_corpus" "$corpus" "$mb" 24 42
fi
# The compressed copies (made once, beside the corpus): per-file .gz / .zst in the same
# layout, and one .tar.gz / .tar.zst per incident.
for kind in gz zst tar.gz tar.zst; do
  dir=$corpus-$kind
  [ -d "$dir" ] && continue
  rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
  case $kind in
    gz | zst)
      (cd "$corpus" && find . -type d) | while read -r d; do mkdir -p "$dir.tmp/$d"; done
      (cd "$corpus" && find . -type f) | while read -r f; do
        if [ "$kind" = gz ]; then gzip -6 -c "$corpus/$f" > "$dir.tmp/$f.gz"
        else zstd -q -3 -c "$corpus/$f" > "$dir.tmp/$f.zst"; fi
      done ;;
    tar.gz) for inc in "$corpus"/*/; do n=$(basename "$inc"); tar -C "$corpus" -cf - "$n" | gzip -6 > "$dir.tmp/$n.tar.gz"; done ;;
    tar.zst) for inc in "$corpus"/*/; do n=$(basename "$inc"); tar -C "$corpus" -cf - "$n" | zstd -q -3 > "$dir.tmp/$n.tar.zst"; done ;;
  esac
  mv "$dir.tmp" "$dir"
done
# The same text as one file, for the single-input rows.
[ -f "$corpus-one.log" ] || (cd "$corpus" && find . -type f | sort | xargs cat) > "$corpus-one.log"
# Many small files: the first four incidents' files, each cut into files of at most 4 KiB.
if [ ! -d "$corpus-small" ]; then
  rm -rf "$corpus-small.tmp"
  for f in $(cd "$corpus" && find . -type f | sort | grep -E '^\./[^/]+-00[0-3]/'); do
    mkdir -p "$corpus-small.tmp/${f%.*}"
    split -C 4096 -d -a 5 "$corpus/$f" "$corpus-small.tmp/${f%.*}/part-"
  done
  mv "$corpus-small.tmp" "$corpus-small"
fi
small_bytes=$(du -sb "$corpus-small" | cut -f1)
small_files=$(find "$corpus-small" -type f | wc -l)
bytes=$(du -sb "$corpus" | cut -f1)
literals=$(mktemp)
"$culprit" rules literals > "$literals"
# The page cache is warmed for each row just before it runs: a VM's memory manager may evict
# pages left unread for seconds (DAMON's reclaim here gave back most of a 1 GiB corpus within
# 20 s, so rows after lnav's read half of theirs from the disk).
warm() { find "$1" -type f -exec cat {} + > /dev/null; }

results=$(mktemp)
timing=$(mktemp)
# measure CORPUS NAME CMD...: appends "CORPUS NAME median-wall-s median-cpu-s max-RSS-KiB" over
# $runs runs (CPU: user + system of the command and its children; on a shared machine it says
# more than the wall time, which waits for other work).
measure() {
  set=$1 name=$2; shift 2
  case $set in
    plain) warm "$corpus" ;;
    one-file) warm "$corpus-one.log" ;;
    small-files) warm "$corpus-small" ;;
    *) warm "$corpus-${set#.}" ;;
  esac
  times="" cpus="" rss=0 i=0
  while [ $i -lt "$runs" ]; do
    /usr/bin/time -f "%e %U %S %M" -o "$timing" "$@" > /dev/null 2>&1 || true
    read -r t u s r < "$timing" || true
    times="$times $t"
    cpus="$cpus $(echo "$u $s" | awk '{print $1 + $2}')"
    [ "$r" -gt "$rss" ] && rss=$r
    i=$((i + 1))
  done
  median() { echo "$@" | tr ' ' '\n' | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
  # shellcheck disable=SC2086 # one time a word
  echo "$set $name $(median $times) $(median $cpus) $rss" >> "$results"
}
rg_lits="rg -i -c -F -f '$literals'"
# A pipe's peak RSS is its biggest process (GNU time reports the largest child: the shell's).
measure plain "culprit scan --jobs 2" "$culprit" scan --jobs 2 "$corpus"
measure plain "rg -i -c -F" rg -i -c -F -f "$literals" "$corpus"
if command -v lnav > /dev/null; then
  measure plain "lnav -n" sh -c "lnav -n -q '$corpus'/*/*/* < /dev/null"
fi
# One file: the whole corpus as a single log (read in pieces; peak RSS must not grow with it).
measure one-file "culprit --jobs 2" "$culprit" --jobs 2 "$corpus-one.log"
measure one-file "rg -i -c -F" rg -i -c -F -f "$literals" "$corpus-one.log"
measure small-files "culprit scan --jobs 2" "$culprit" scan --jobs 2 "$corpus-small"
measure small-files "rg -i -c -F" rg -i -c -F -f "$literals" "$corpus-small"
measure .gz "culprit scan --jobs 2" "$culprit" scan --jobs 2 "$corpus-gz"
measure .gz "zcat | rg -i -c -F" sh -c "find '$corpus-gz' -type f -exec zcat {} + | $rg_lits"
measure .zst "culprit scan --jobs 2" "$culprit" scan --jobs 2 "$corpus-zst"
measure .zst "zstd -dc | rg -i -c -F" sh -c "find '$corpus-zst' -type f -exec zstd -q -dc {} + | $rg_lits"
measure .tar.gz "culprit scan --jobs 2" "$culprit" scan --jobs 2 "$corpus-tar.gz"
measure .tar.gz "zcat | rg -i -c -F" sh -c "zcat '$corpus-tar.gz'/* | $rg_lits"
measure .tar.zst "culprit scan --jobs 2" "$culprit" scan --jobs 2 "$corpus-tar.zst"
measure .tar.zst "zstd -dc | rg -i -c -F" sh -c "zstd -q -dc '$corpus-tar.zst'/* | $rg_lits"

echo "corpus: $corpus, $(echo "$bytes" | awk '{printf "%.1f MiB", $1/1048576}') of log text (GB/s: of these bytes in every row but small-files), median of $runs runs, $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg)"
echo "small-files: $small_files files, $(echo "$small_bytes" | awk '{printf "%.1f MiB", $1/1048576}') (its GB/s: of these bytes)"
printf '%-11s %-24s %8s %8s %8s %9s %13s\n' corpus tool wall_s GB/s cpu_s RSS_MiB culprit/peer
awk -v full="$bytes" -v small="$small_bytes" '
  { set[NR] = $1; t[NR] = $(NF - 2); c[NR] = $(NF - 1); r[NR] = $NF
    name = $2; for (i = 3; i < NF - 2; i++) name = name " " $i; n[NR] = name
    if (name ~ /^culprit/) cul[$1] = $(NF - 2) }
  END { for (i = 1; i <= NR; i++) {
          ratio = (n[i] ~ /^culprit/ || t[i] == 0) ? "1.00" : sprintf("%.2f", cul[set[i]] / t[i])
          b = set[i] == "small-files" ? small : full
          printf "%-11s %-24s %8.2f %8.3f %8.2f %9.1f %12sx\n", set[i], n[i], t[i], (t[i] > 0 ? b / 1e9 / t[i] : 0), c[i], r[i] / 1024, ratio } }' "$results"
echo "culprit/peer: culprit's wall time over the peer's in the same corpus (above 1: the peer is faster)."
# What bounds the plain row: the scan's one literal pass alone, on one core (every byte goes
# through it once, so N cores scan at most N times this).
if [ -x "$build/tests/culprit_bench_literal_pass" ]; then
  "$build/tests/culprit_bench_literal_pass" "$corpus" "$runs"
fi
rm -f "$literals" "$results" "$timing"
# Then a row per shape of log (tests/bench/shapes.sh: SHAPES_MB a shape, default 64; SHAPES_MB=0
# leaves it out).
if [ "${SHAPES_MB:-64}" -gt 0 ]; then
  echo
  sh "$(dirname "$0")/shapes.sh" "$build" "${SHAPES_MB:-64}" "$runs"
fi
