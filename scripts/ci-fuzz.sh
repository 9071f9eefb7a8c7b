#!/bin/sh
# CI: libFuzzer smoke. Builds the fuzz targets (fuzz/, CULPRIT_FUZZ=ON) with clang-14 in
# build-fuzz, seeds their corpora from fixtures/, rules/ and the committed fuzz/corpus/ (the last
# campaign's gains, minimised; at build time), and runs each target for FUZZ_RUNS inputs (default
# 25000) from the fixed seed FUZZ_SEED (default 1), capped at FUZZ_SECONDS (default 210: seven
# targets, two at a time, take at most 7 x 210 / 2 s, within the five targets' 5 x 300 / 2 s of
# before, so the step's share of the 60-minute CI run does not grow). A fixed seed and run count
# make the step deterministic: the same commit fuzzes the same inputs here and in CI, so a red
# step reproduces, and a green local run of this script predicts CI. For exploration, run with FUZZ_SEED=0 (random) and a
# larger FUZZ_RUNS / FUZZ_SECONDS. A crash, leak, timeout or sanitizer report fails the step;
# the input that caused it is kept in build-fuzz/artifacts/ (reproduce: run the target with
# that file as its argument), and becomes a regression test named after what it found.
set -eu
cd "$(dirname "$0")/.."
SECONDS_EACH=${FUZZ_SECONDS:-210}
RUNS=${FUZZ_RUNS:-25000}
SEED=${FUZZ_SEED:-1}
JOBS=${JOBS:-2}

# One target: `ci-fuzz.sh --one TARGET` (what the dispatch below runs, JOBS at a time; each
# target is one libFuzzer process, so the targets share the cores instead of taking turns).
if [ "${1:-}" = --one ]; then
  target=$2
  work=build-fuzz/findings/$target
  rm -rf "$work"  # a fresh run: what an earlier run found would change the inputs tried
  mkdir -p "$work"
  if ./build-fuzz/fuzz/fuzz_$target -seed="$SEED" -runs="$RUNS" -max_total_time="$SECONDS_EACH" \
      -timeout=20 -rss_limit_mb=2560 \
      -max_len=65536 -print_final_stats=1 -artifact_prefix="build-fuzz/artifacts/$target-" \
      "$work" "build-fuzz/fuzz/corpus/$target" 2>"build-fuzz/fuzz_$target.log"; then
    echo 0 >"build-fuzz/fuzz_$target.rc"
  else
    echo 1 >"build-fuzz/fuzz_$target.rc"
  fi
  exit 0
fi

JOBS="$JOBS" scripts/fuzz-build.sh
mkdir -p build-fuzz/artifacts
# The slowest targets first, so the last one to start is a short one.
targets="parse ingest rules archive db rule_sql segment"
rm -f build-fuzz/fuzz_*.rc
echo "== fuzz: $targets, $RUNS runs each from seed $SEED (at most ${SECONDS_EACH}s each), $JOBS at a time"
printf '%s\n' $targets | xargs -P "$JOBS" -n 1 "$0" --one
status=0
for target in $targets; do
  if [ "$(cat "build-fuzz/fuzz_$target.rc" 2>/dev/null || echo 1)" = 0 ]; then
    echo "fuzz_$target: $(grep -E "stat::number_of_executed_units|stat::peak_rss_mb" "build-fuzz/fuzz_$target.log" | tr -s ' ' | tr '\n' ' ')"
  else
    status=1
    tail -n 60 "build-fuzz/fuzz_$target.log"
    echo "fuzz_$target FAILED; the input is in build-fuzz/artifacts/ (ls -la build-fuzz/artifacts)"
  fi
done
exit $status
