#!/bin/sh
# The README's first command, `culprit fixtures/incidents/two-node-stale-embeddings/inputs`,
# shows no evidence from documentation: the fixture keeps its story (README.md) and label
# (expected.json) beside inputs/, and a README next to a user's logs is not read as a log
# either (issue 13 item 5). Usage: first_command.sh CULPRIT SOURCE_DIR WORK_DIR
set -eu
culprit=$1
fixture=$2/fixtures/incidents/two-node-stale-embeddings
work=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
grep -q "culprit $(echo "$fixture" | sed 's|.*/\(fixtures/\)|\1|')/inputs\$" "$2/README.md" ||
  fail "README.md's first command is not culprit fixtures/incidents/two-node-stale-embeddings/inputs"
"$culprit" --format json "$fixture/inputs" > "$work/first.json" 2> "$work/first.err" || true
grep -q '"verdict":"cuda_oom"' "$work/first.json" || fail "the first command does not find the CUDA OOM"
for doc in README.md expected.json report.md report.html; do
  if grep -q "\"source\":\"$doc\"" "$work/first.json"; then fail "the first command cites $doc"; fi
done
if grep -q '"source":"[^s]' "$work/first.json"; then fail "evidence outside spark-a/ and spark-b/"; fi
[ ! -s "$work/first.err" ] || { cat "$work/first.err"; fail "the first command warns on stderr"; }
# A user's folder: the same logs with the fixture's README.md (prose and a Markdown table
# quoting log messages) beside them gives the same report and a note that it was skipped.
mkdir -p "$work/mine" && cp -r "$fixture/inputs/spark-a" "$fixture/inputs/spark-b" "$fixture/README.md" "$work/mine/"
"$culprit" --format json "$work/mine" > "$work/mine.json" 2> "$work/mine.err" || true
if grep -q '"source":"README.md"' "$work/mine.json"; then fail "a README.md beside the logs became evidence"; fi
grep -q 'README.md: note\[input-documentation\]' "$work/mine.err" || { cat "$work/mine.err"; fail "no note that README.md was skipped"; }
sed 's/,"skipped":\[.*\]}$/}/' "$work/mine.json" > "$work/mine.cmp"
sed 's/,"skipped":\[.*\]}$/}/' "$work/first.json" > "$work/first.cmp"
cmp -s "$work/mine.cmp" "$work/first.cmp" || fail "a README.md beside the logs changes the report"
echo "first command: no evidence from documentation; a README beside logs is skipped"
