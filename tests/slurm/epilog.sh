#!/bin/sh
# culprit as a Slurm node epilog, for real (issue 39): the throw-away one-node cluster of
# cluster.sh runs contrib/slurm/culprit-epilog.sh as its `Epilog=` (through a two-line wrapper
# holding the settings, as a site's /etc/default/culprit-epilog would). A batch job that prints a
# PyTorch CUDA OOM and exits 1 leaves an incident folder slurm-job-<job id> with the node's
# snapshot, the job's output and a report naming the CUDA OOM; a job that succeeds leaves nothing.
# Skipped (exit 77, with the reason) where Slurm cannot start: no slurm-wlm / munge, not root,
# a daemon that does not come up.
# Usage: epilog.sh CULPRIT SOURCE_DIR WORK_DIR
set -eu
culprit=$1
src=$(cd "$2" && pwd)
work=$3
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
culprit=$(cd "$(dirname "$culprit")" && pwd)/$(basename "$culprit")
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
. "$src/tests/slurm/cluster.sh"
trap stop_cluster EXIT
trap 'exit 1' INT TERM HUP

incidents=$work/incidents
{
  echo '#!/bin/sh'
  echo "CULPRIT='$culprit' CULPRIT_INCIDENTS='$incidents' CULPRIT_EPILOG_CONFIG=/nonexistent \\"
  echo "  exec sh '$src/contrib/slurm/culprit-epilog.sh' >> '$work/epilog.log' 2>&1"
} > "$work/epilog"
chmod 755 "$work/epilog"
cluster_conf_extra="Epilog=$work/epilog"
start_cluster

cd "$work"
{
  echo '#!/bin/sh'
  echo 'echo "epoch 0 step 10: loss 2.31"'
  echo 'echo "Traceback (most recent call last):"'
  echo "echo '  File \"train.py\", line 42, in <module>'"
  echo 'echo "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 14.75 GiB of which 3.06 MiB is free. Including non-PyTorch memory, this process has 14.62 GiB memory in use. Of the allocated memory 14.10 GiB is allocated by PyTorch, and 0 bytes is reserved by PyTorch but unallocated."'
  echo 'exit 1'
} > fails.sh
printf '#!/bin/sh\necho fine\n' > succeeds.sh
# A job leaves the queue only once its epilog has run (it is COMPLETING until then).
gone() { [ -z "$(squeue -h -j "$1" 2>/dev/null)" ]; }
ok_id=$(sbatch --parsable --mem=32M --time=1 -o "$work/slurm-%j.out" succeeds.sh) || fail "sbatch of the succeeding job failed"
bad_id=$(sbatch --parsable --mem=32M --time=1 -o "$work/slurm-%j.out" fails.sh) || fail "sbatch of the failing job failed"
for id in "$ok_id" "$bad_id"; do
  wait_for 90 gone "$id" ||
    { daemon_log "$work/slurm/slurmd.log"; daemon_log "$work/epilog.log"; fail "job $id did not end (with its epilog) within 90 s"; }
done
[ -f "slurm-$ok_id.out" ] && [ -f "slurm-$bad_id.out" ] || fail "the jobs left no output files"
[ ! -e "$incidents/slurm-job-$ok_id" ] || fail "the job that succeeded left an incident folder"
dir=$incidents/slurm-job-$bad_id
[ -d "$dir" ] || { daemon_log "$work/epilog.log"; daemon_log "$work/slurm/slurmd.log";
                   fail "the failed job $bad_id left no incident folder $dir (in $incidents: $(ls "$incidents" 2>&1))"; }
[ "$(ls "$incidents")" = "slurm-job-$bad_id" ] || fail "other folders in $incidents: $(ls -a "$incidents")"
node=$(find "$dir" -mindepth 1 -maxdepth 1 -type d | head -1)
[ -s "$node/culprit-snapshot.json" ] || fail "the incident lacks the node's snapshot (culprit collect): $(ls "$node")"
[ -s "$node/job-stdout-slurm-$bad_id.out" ] || fail "the incident lacks the job's output: $(ls "$node")"
[ "$(find "$dir" -mindepth 1 -maxdepth 1 | wc -l)" -eq 1 ] || fail "the incident holds more than the node's folder: $(ls "$dir")"
[ -s "$node/culprit-report.txt" ] && [ -s "$node/culprit-report.json" ] || fail "the incident lacks culprit's report: $(ls "$node")"
# The report names the CUDA OOM on the node (the subfolder's name, not the incident folder's).
host=$(basename "$node")
grep -q "^CUDA OOM on $host " "$node/culprit-report.txt" ||
  { head -20 "$node/culprit-report.txt" >&2; fail "the report does not name the CUDA OOM on $host"; }
grep -q '"verdict": *"cuda_oom"' "$node/culprit-report.json" || fail "the JSON report's verdict is not cuda_oom"
# The folder diagnoses the same way later, the reports in it skipped as culprit's own.
"$culprit" "$dir" 2>/dev/null | grep -q "^CUDA OOM" || fail "culprit DIR does not diagnose the incident folder again"
echo "Slurm epilog: job $bad_id (exit 1) left $dir with a CUDA OOM report; job $ok_id left nothing"
