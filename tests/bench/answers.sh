#!/bin/sh
# The scan's answers, hashed: one line per input, "sha256  name", of `culprit --format json
# --quiet` over every fixture incident, format sample and real case (as scan.prefilter_equivalence
# reads them) and of `culprit scan --jsonl` over every shape of a many-shapes corpus
# (gen_shapes.cpp). Run it with the binary before a speed change and after, and compare the two
# lists (`diff`): a speed change must leave every answer byte-identical.
#
# Usage: tests/bench/answers.sh CULPRIT [SHAPES_DIR] [REAL_CASES_DIR=../shared/real-cases]
set -eu
culprit=$1
shapes=${2:-}
here=$(cd "$(dirname "$0")/../.." && pwd)
real=${3:-$here/../shared/real-cases}
hash() { sha256sum | cut -d' ' -f1; }
for dir in "$here"/fixtures/incidents/*/; do
  echo "$("$culprit" --format json --quiet "${dir}inputs" 2> /dev/null | hash)  incident-$(basename "$dir")"
done
for f in "$here"/fixtures/formats/*/*.txt "$here"/fixtures/formats/*/*.log; do
  [ -f "$f" ] || continue
  echo "$("$culprit" --format json --quiet "$f" 2> /dev/null | hash)  format-$(basename "$(dirname "$f")")-$(basename "$f")"
done
if [ -d "$real" ]; then
  for dir in "$real"/*/; do
    [ -f "${dir}expected.json" ] || continue
    echo "$("$culprit" --format json --quiet --exclude expected.json "$dir" 2> /dev/null | hash)  real-$(basename "$dir")"
  done
fi
if [ -n "$shapes" ]; then
  for dir in "$shapes"/*/; do
    echo "$("$culprit" scan --jsonl --jobs 2 "$dir" 2> /dev/null | hash)  shape-$(basename "$dir")"
    # One file of the shape diagnosed whole (its findings, evidence and notes, not one row).
    f=$(find "$dir" -type f | sort | head -1)
    echo "$("$culprit" --format json --quiet "$f" 2> /dev/null | hash)  shape-file-$(basename "$dir")"
  done
fi
