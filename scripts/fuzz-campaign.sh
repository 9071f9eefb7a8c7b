#!/bin/sh
# A longer fuzz campaign, beside CI's deterministic smoke step (scripts/ci-fuzz.sh): every fuzz
# target (fuzz/) for MINUTES each from a random seed, PARALLEL targets at a time (default 2),
# at priority NICE (default 19) so a developer's build keeps the machine.
#
#   scripts/fuzz-campaign.sh [MINUTES] [TARGET...]      (default 30 minutes, every target)
#   scripts/fuzz-campaign.sh --keep [TARGET...]         (the last campaign's gains into fuzz/corpus)
#
# Builds build-fuzz as ci-fuzz.sh does. The seed corpus (build-fuzz/fuzz/corpus/TARGET, made at
# build time from fixtures/, rules/ and the committed fuzz/corpus/TARGET) is only read: new inputs
# libFuzzer keeps go to build-fuzz/campaign/TARGET/new, crashes / leaks / timeouts to
# build-fuzz/campaign/TARGET/crash-* (reproduce: build-fuzz/fuzz/fuzz_TARGET FILE). Each target's
# seed, executions, coverage and findings are printed at the end and kept in
# build-fuzz/campaign/summary.txt. A finding becomes a regression test (tests/unit or
# tests/hostile) named after what it found. Exit status: 1 when any target found something.
#
# --keep keeps the gains: libFuzzer's -merge=1 minimises the committed corpus and the campaign's
# new inputs against what fixtures/ and rules/ already cover, and fuzz/corpus/TARGET becomes the
# inputs that reach code they do not (at most KEEP_MAX_LEN bytes each, default 65536, CI's
# -max_len; the smallest first, at most KEEP_FILES a target, default 64, and KEEP_BUDGET bytes,
# default 1 MiB), so each CI smoke run starts where the last campaign ended. Review, commit.
set -eu
cd "$(dirname "$0")/.."
ALL_TARGETS="segment parse ingest rules archive db rule_sql"

if [ "${1:-}" = --keep ]; then
  shift
  for t in ${*:-$ALL_TARGETS}; do
    [ -x "build-fuzz/fuzz/fuzz_$t" ] || { echo "no fuzz target fuzz_$t (run a campaign first)" >&2; exit 2; }
    base=build-fuzz/keep/$t
    rm -rf "$base" && mkdir -p "$base/covered" "$base/from"
    # What the build's seeds cover without the committed corpus: the floor the kept inputs add to.
    find "build-fuzz/fuzz/corpus/$t" -type f ! -name 'kept_*' -exec cp {} "$base/covered/" \;
    ls "$base/covered" | sort >"$base/floor"
    [ -d "fuzz/corpus/$t" ] && cp fuzz/corpus/"$t"/* "$base/from/" 2>/dev/null || true
    [ -d "build-fuzz/campaign/$t/new" ] && cp build-fuzz/campaign/"$t"/new/* "$base/from/" 2>/dev/null || true
    # -use_counters=0: an input is kept for an edge it reaches first, not for a new hit count on
    # one already reached (which keeps hundreds of near-copies).
    ./build-fuzz/fuzz/fuzz_"$t" -merge=1 -use_counters=0 -max_len="${KEEP_MAX_LEN:-65536}" -timeout=60 -rss_limit_mb=2560 \
      "$base/covered" "$base/from" >"$base/log" 2>&1 || { tail -n 20 "$base/log"; exit 1; }
    rm -rf "fuzz/corpus/$t" && mkdir -p "fuzz/corpus/$t"
    # The smallest first, at most KEEP_FILES (default 64) and KEEP_BUDGET bytes (default 1 MiB) a
    # target: a committed corpus is read by every CI run and kept in the history.
    ls "$base/covered" | sort | comm -13 "$base/floor" - | (cd "$base/covered" && xargs -r stat -c '%s %n') |
      sort -n | awk -v budget="${KEEP_BUDGET:-1048576}" -v most="${KEEP_FILES:-64}" \
        '(sum += $1) <= budget && NR <= most { print $2 }' |
      while read -r f; do cp "$base/covered/$f" "fuzz/corpus/$t/"; done
    echo "fuzz/corpus/$t: $(ls "fuzz/corpus/$t" | wc -l) inputs, $(du -sk "fuzz/corpus/$t" | cut -f1) KiB"
  done
  exit 0
fi

MINUTES=${1:-30}
[ $# -gt 0 ] && shift
TARGETS=${*:-$ALL_TARGETS}
PARALLEL=${PARALLEL:-2}
NICE=${NICE:-19}
JOBS=${JOBS:-2}
TIMEOUT=${TIMEOUT:-120}
JOBS="$JOBS" scripts/fuzz-build.sh
out=build-fuzz/campaign
mkdir -p "$out"

# One target: a random seed (recorded, so a finding's run can be repeated), MINUTES of wall time.
run_target() {
  t=$1
  dir=$out/$t
  mkdir -p "$dir/new"
  seed=$(od -An -N4 -tu4 /dev/urandom | tr -d ' ')
  echo "$seed" > "$dir/seed"
  # libFuzzer's -timeout is wall time: on a loaded machine at low priority a unit can wait its
  # turn for long, so the limit is generous and every timeout is re-run alone below.
  rc=0
  nice -n "$NICE" ./build-fuzz/fuzz/fuzz_"$t" -seed="$seed" -max_total_time=$((MINUTES * 60)) \
    -timeout="$TIMEOUT" -rss_limit_mb=2560 -max_len=65536 -print_final_stats=1 \
    -artifact_prefix="$dir/" "$dir/new" "build-fuzz/fuzz/corpus/$t" > "$dir/log" 2>&1 || rc=$?
  echo "$rc" > "$dir/rc"
}

started=0
for t in $TARGETS; do
  [ -x "build-fuzz/fuzz/fuzz_$t" ] || { echo "no fuzz target fuzz_$t" >&2; exit 2; }
  rm -rf "${out:?}/$t"
  echo "== fuzz_$t: $MINUTES min from $(date -u +%H:%M:%SZ)"
  run_target "$t" &
  started=$((started + 1))
  if [ $((started % PARALLEL)) -eq 0 ]; then wait; fi
done
wait

status=0
: > "$out/summary.txt"
for t in $TARGETS; do
  dir=$out/$t
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  cov=$(grep -o 'cov: [0-9]*' "$dir/log" | tail -1 | cut -d' ' -f2)
  found=$(find "$dir" -maxdepth 1 \( -name 'crash-*' -o -name 'leak-*' -o -name 'timeout-*' -o -name 'oom-*' \) |
    wc -l)
  kept=$(find "$dir/new" -type f | wc -l)
  # A timeout found under load that runs in time alone, at normal priority, is the machine's,
  # not the code's: it is listed as such and does not fail the campaign.
  for f in "$dir"/timeout-*; do
    [ -e "$f" ] || continue
    if timeout $((TIMEOUT / 4)) ./build-fuzz/fuzz/fuzz_"$t" "$f" > /dev/null 2>&1; then
      echo "fuzz_$t: $(basename "$f") runs in time alone (the machine was loaded); kept as ${f##*/}.load"
      mv "$f" "$f.load"
      found=$((found - 1))
    fi
  done
  [ "$found" -eq 0 ] && [ "$(cat "$dir/rc")" -ne 0 ] && grep -q "ERROR: libFuzzer: timeout" "$dir/log" &&
    echo 0 > "$dir/rc"
  line="fuzz_$t: seed $(cat "$dir/seed"), $MINUTES min, ${execs:-?} executions, coverage ${cov:-?}, $kept new inputs, $found findings, exit $(cat "$dir/rc")"
  echo "$line" | tee -a "$out/summary.txt"
  if [ "$found" -gt 0 ] || [ "$(cat "$dir/rc")" -ne 0 ]; then
    status=1
    grep -m1 -A20 -E "ERROR: (AddressSanitizer|libFuzzer|UndefinedBehaviorSanitizer)|runtime error" "$dir/log" || true
  fi
done
exit $status
