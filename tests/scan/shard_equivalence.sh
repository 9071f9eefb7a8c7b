#!/bin/sh
# N shards merged = one run, for N = 1..4: JSON Lines (culprit merge) and scan databases
# (culprit merge --db) give the same incidents, verdicts and timelines as an unsharded scan.
# Usage: shard_equivalence.sh CULPRIT SOURCE_DIR WORK_DIR
set -eu
culprit=$1
src=$2
work=$3
sh "$src/tests/scan/make_batch.sh" "$src" "$work/batch"
fail() { echo "FAIL: $*" >&2; exit 1; }
summary() {  # the incidents of a scan database, with their verdicts and event counts
  "$culprit" query --db "$1" "SELECT i.path, i.verdict, (SELECT count(*) FROM events e WHERE e.incident = i.id) AS events,
     (SELECT count(*) FROM oom_tasks t WHERE t.incident = i.id) AS tasks FROM incidents i ORDER BY i.id"
}
rm -f "$work"/*.db
"$culprit" scan --jsonl --db "$work/all.db" "$work/batch" > "$work/all.jsonl"
summary "$work/all.db" > "$work/all.summary"
[ "$(wc -l < "$work/all.summary")" -eq 6 ] || fail "the full scan database should hold 5 incidents"
for n in 1 2 3 4; do
  parts="" dbs=""
  i=0
  while [ $i -lt $n ]; do
    "$culprit" scan --jsonl --shard "$i/$n" --db "$work/shard-$n-$i.db" "$work/batch" > "$work/shard-$n-$i.jsonl"
    parts="$parts $work/shard-$n-$i.jsonl"
    dbs="$dbs $work/shard-$n-$i.db"
    i=$((i + 1))
  done
  # shellcheck disable=SC2086
  total=$(cat $parts | wc -l)
  [ "$total" -eq 5 ] || fail "N=$n: the shards hold $total incidents, not 5 (they must not overlap)"
  # shellcheck disable=SC2086
  "$culprit" merge $parts > "$work/merged-$n.jsonl"
  cmp -s "$work/all.jsonl" "$work/merged-$n.jsonl" || fail "N=$n: merged JSON Lines differ from one run"
  # shellcheck disable=SC2086
  "$culprit" merge --db "$work/merged-$n.db" $dbs
  summary "$work/merged-$n.db" > "$work/merged-$n.summary"
  cmp -s "$work/all.summary" "$work/merged-$n.summary" || fail "N=$n: merged scan database differs from one run"
  echo "N=$n: merged shards = one run"
done
