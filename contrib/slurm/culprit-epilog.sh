#!/bin/sh
# culprit as a Slurm node epilog (slurm.conf: `Epilog=/usr/local/libexec/culprit-epilog.sh`): after
# each job on a node, a job that failed leaves an incident folder named by its job id, holding the
# node's snapshot (`culprit collect`: nvidia-smi, ps, memory, the kernel log, cgroups), the job's
# output files and culprit's report of the folder (culprit-report.txt, culprit-report.json), all in
# the node's subfolder DIR/<node>/; a job that succeeded leaves nothing. On a shared file system
# each node of a multi-node job adds its own subfolder to the one incident folder (each report is
# of the nodes in it when that node's epilog ran), and `culprit DIR` diagnoses them together. The
# folder holds node subfolders only, so each file's host is its subfolder's name.
#
# Settings (environment, or the file $CULPRIT_EPILOG_CONFIG, default /etc/default/culprit-epilog,
# read as shell assignments when it exists; slurmd gives an epilog almost no environment):
#   CULPRIT            the culprit binary (default: culprit on PATH, /usr/local/bin, /usr/bin)
#   CULPRIT_INCIDENTS  where incident folders go (default /var/lib/culprit/slurm); made 0700
#   CULPRIT_EPILOG_TIMEOUT  seconds each culprit step may take (default 60; PrologEpilogTimeout
#                      bounds the whole)
#   CULPRIT_OUTPUT_BYTES    the most of each job output file copied (its end; default 64 MiB)
#
# A job failed when its batch script's wait status (SLURM_JOB_EXIT_CODE) or the highest exit code
# of its steps (SLURM_JOB_DERIVED_EC) is not 0, as slurm.conf(5) defines them for an Epilog; where
# neither is set, `scontrol show job` is asked. This script always exits 0: an epilog that fails
# drains the node.
PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export PATH
umask 077
config=${CULPRIT_EPILOG_CONFIG:-/etc/default/culprit-epilog}
# shellcheck disable=SC1090 # the site's settings file
[ -r "$config" ] && . "$config"
culprit=${CULPRIT:-culprit}
incidents=${CULPRIT_INCIDENTS:-/var/lib/culprit/slurm}
limit=${CULPRIT_EPILOG_TIMEOUT:-60}
output_bytes=${CULPRIT_OUTPUT_BYTES:-67108864}
job=${SLURM_JOB_ID:-${SLURM_JOBID:-}}
case $job in '' | *[!0-9]*) exit 0 ;; esac  # not run by slurmd for a job

# `ExitCode=1:0 ... DerivedExitCode=0:0` of scontrol: non-zero when either part is.
scontrol_failed() {
  scontrol show job "$job" 2>/dev/null | tr ' ' '\n' |
    grep -Eq '^(Derived)?ExitCode=([1-9][0-9]*:[0-9]+|[0-9]+:[1-9][0-9]*)$'
}
if [ -n "${SLURM_JOB_EXIT_CODE:-}${SLURM_JOB_DERIVED_EC:-}" ]; then
  [ "${SLURM_JOB_EXIT_CODE:-0}" = 0 ] && [ "${SLURM_JOB_DERIVED_EC:-0}" = 0 ] && exit 0
else
  scontrol_failed || exit 0
fi

dir=$incidents/slurm-job-$job
mkdir -p "$dir" 2>/dev/null || exit 0
chmod 700 "$incidents" "$dir" 2>/dev/null
tmp=$incidents/.slurm-job-$job.$$
timeout "$limit" "$culprit" collect -o "$dir" > "$tmp.collect" 2>&1
# The node's folder is the one collect made (named as culprit names the host).
node=$(sed -n 's/^culprit collect: .* files in \(.*\)$/\1/p' "$tmp.collect" | sed 's/ (.*//' | head -1)
[ -n "$node" ] && [ -d "$node" ] || { node=$dir/$(hostname); mkdir -p "$node"; }
mv -f "$tmp.collect" "$node/culprit-collect.log"
# The job's output files (StdOut= / StdErr= of scontrol), their last CULPRIT_OUTPUT_BYTES each,
# and the job's record itself.
scontrol show job "$job" > "$node/scontrol-show-job.txt" 2>/dev/null
copied=
for key in StdOut StdErr; do
  file=$(tr ' ' '\n' < "$node/scontrol-show-job.txt" | sed -n "s/^$key=//p" | head -1)
  [ -n "$file" ] && [ -f "$file" ] && [ "$file" != "$copied" ] || continue
  tail -c "$output_bytes" "$file" > "$node/job-$(echo "$key" | tr 'A-Z' 'a-z')-$(basename "$file")" 2>/dev/null
  copied=$file
done
# The reports are written beside the folder and moved in: never read as an input half-written.
timeout "$limit" "$culprit" "$dir" > "$tmp.txt" 2>&1
timeout "$limit" "$culprit" --format json "$dir" > "$tmp.json" 2>/dev/null
mv -f "$tmp.txt" "$node/culprit-report.txt"
mv -f "$tmp.json" "$node/culprit-report.json"
exit 0
