#!/bin/sh
# The README's Slurm job-array recipe, run for real (issue 17): a throw-away one-node cluster
# on 127.0.0.1 (cluster.sh), the README's job script taken verbatim from the README, submitted
# as `sbatch --array=0-3 --wait` over the scan test's batch of five incidents (make_batch.sh),
# then the README's `culprit merge` lines: the merged JSON Lines must equal one `culprit scan
# --jsonl` of the batch byte for byte, and the merged database must hold the same incidents,
# verdicts, events and OOM tasks as one `culprit scan --db`.
# Skipped (exit 77, with the reason) where Slurm cannot start: no slurm-wlm / munge, not root,
# a daemon that does not come up.
# Usage: job_array.sh CULPRIT SOURCE_DIR WORK_DIR
set -eu
culprit=$1
src=$(cd "$2" && pwd)
work=$3
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
. "$src/tests/slurm/cluster.sh"
trap stop_cluster EXIT
trap 'exit 1' INT TERM HUP

# The job script: the README's ```sh block that holds `#SBATCH --array`.
awk '/^```sh$/ { block = ""; inside = 1; next }
     inside && /^```$/ { inside = 0; if (block ~ /#SBATCH --array/) { printf "%s", block; exit } next }
     inside { block = block $0 "\n" }' "$src/README.md" > "$work/scan.sh"
grep -q '^#SBATCH --array' "$work/scan.sh" || fail "the README has no Slurm job-array script (a \`\`\`sh block with #SBATCH --array)"
# The README's merge lines, as the test runs them below.
for line in 'culprit merge out/shard-*.jsonl > all.jsonl' 'culprit merge --db all.db out/shard-*.db'; do
  grep -qF -- "$line" "$work/scan.sh" || fail "the README's job-array recipe no longer says '$line'"
done

sh "$src/tests/scan/make_batch.sh" "$src" "$work/batch"
mkdir -p "$work/bin"
ln -s "$(cd "$(dirname "$culprit")" && pwd)/$(basename "$culprit")" "$work/bin/culprit"
PATH=$work/bin:$PATH
export PATH

start_cluster
start=$(date +%s)
cd "$work"
# The README's #SBATCH line asks for 4 CPUs and 4 GB a task; this node has $cpus CPUs: the
# options given to sbatch override the script's. Each task's output: slurm-JOB_TASK.out.
sbatch --array=0-3 --cpus-per-task=1 --mem=64M --time=2 --wait --quiet scan.sh "$work/batch" ||
  { for f in slurm-*.out; do [ -f "$f" ] && { echo "$f:"; sed 's/^/    /' "$f"; }; done >&2
    daemon_log "$work/slurm/slurmd.log"; fail "the job array failed"; }
echo "sbatch --array=0-3 --wait: $(( $(date +%s) - start )) s"
for i in 0 1 2 3; do
  [ -f "out/shard-$i.jsonl" ] || fail "task $i left no out/shard-$i.jsonl"
  [ -f "out/shard-$i.db" ] || fail "task $i left no out/shard-$i.db"
done
culprit merge out/shard-*.jsonl > all.jsonl
culprit merge --db all.db out/shard-*.db

"$culprit" scan --jsonl --db "$work/one.db" "$work/batch" > "$work/one.jsonl"
[ "$(wc -l < one.jsonl)" -eq 5 ] || fail "one scan of the batch should give 5 incidents"
[ "$(cat out/shard-*.jsonl | wc -l)" -eq 5 ] || fail "the 4 tasks hold $(cat out/shard-*.jsonl | wc -l) incidents, not 5"
cmp -s one.jsonl all.jsonl || { diff one.jsonl all.jsonl | cut -c1-300 >&2; fail "merged JSON Lines differ from one scan"; }
summary() {  # the incidents of a scan database, with their verdicts and event / OOM-task counts
  "$culprit" query --db "$1" "SELECT i.path, i.verdict, i.report, (SELECT count(*) FROM events e WHERE e.incident = i.id),
     (SELECT count(*) FROM oom_tasks t WHERE t.incident = i.id) FROM incidents i ORDER BY i.id"
}
summary one.db > one.summary
summary all.db > all.summary
cmp -s one.summary all.summary || { diff one.summary all.summary | cut -c1-300 >&2; fail "the merged database differs from one scan's"; }
echo "Slurm job array of 4 tasks, merged = one scan (5 incidents, JSON Lines and database)"
