#!/bin/sh
# `culprit run -- torchrun …` (issue 39): culprit points TORCHELASTIC_ERROR_FILE into the incident
# folder, torchrun's own `@record`ed main copies the failed rank's root-cause record there, and the
# report names that rank's exception. Real torchrun (Debian 12's python3-torch, CPU, gloo), two
# ranks, rank 1 raises. A job that sets TORCHELASTIC_ERROR_FILE itself keeps it, and its file is
# copied into the incident.
. "$(dirname "$0")/lib.sh"
command -v torchrun >/dev/null 2>&1 || skip "torchrun is not installed (Debian: apt-get install python3-torch)"
cd "$work"
# Rank 0 waits without talking to rank 1 (torchrun ends it when rank 1 fails): had it been in a
# collective, it too would raise (gloo's "Connection closed by peer") in the same second, and
# torchrun's record would be that echo's — its first failure is the earliest by whole seconds.
cat > script.py <<'PY'
import time
import torch.distributed as dist
from torch.distributed.elastic.multiprocessing.errors import record

@record
def main():
    dist.init_process_group("gloo")
    rank = dist.get_rank()
    if rank == 1:
        raise ValueError(f"rank {rank}: bad batch shape (2, 3)")
    time.sleep(60)

if __name__ == "__main__":
    main()
PY
port=$(( 29500 + $$ % 2000 ))
# Python 3.11 iterates Flag enums without their 0 and multi-bit members, so torch 1.13's
# Std.from_str reads torchrun's default `--redirects 0` / `--tee 0` as None (AttributeError in
# to_map); 2 (stderr) is a single-bit member: the workers' stderr goes to the console and a file.
launch="torchrun --redirects 2 --tee 2 --log_dir $work/torchrun-logs --nproc_per_node=2 --master_port=$port script.py"
unset TORCHELASTIC_ERROR_FILE
set +e
"$culprit" run --sample-interval 0 -o incident -- $launch > stdout 2> stderr
rc=$?
set -e
[ "$rc" -ne 0 ] || { cat stderr >&2; fail "the job whose rank 1 raised succeeded"; }
host=$(ls incident)
file=incident/$host/torchelastic-error.json
[ -s "$file" ] || { tail -30 stderr >&2; fail "torchrun wrote no error file into the incident ($file)"; }
grep -q '"py_callstack"' "$file" || fail "the error file is not torchelastic's record: $(head -c 300 "$file")"
grep -q '"errorCode": 1' "$file" || fail "the error file is not torchrun's copy of the root cause (no errorCode)"
# The report (after culprit's "— diagnosing" line; above it is the job's own stderr, which prints
# the exception too) names rank 1's exception.
sed -n '/ — diagnosing /,$p' stderr > report.txt
grep -q 'ValueError: rank 1: bad batch shape (2, 3)' report.txt || { cat report.txt >&2; fail "the report does not name rank 1's exception"; }
# The record is read as a source of its own, by content: its traceback event, dated by the record.
"$culprit" --db timeline.db incident > /dev/null 2>&1 || true
"$culprit" query timeline.db "SELECT e.message || ' @' || CAST(e.ts AS INTEGER) FROM events e JOIN sources s ON s.id = e.source_id
  WHERE s.format = 'torchelastic_error' AND e.kind = 'traceback'" > from-file.txt ||
  fail "the timeline could not be queried"
grep -q '^ValueError: rank 1: bad batch shape (2, 3) @[0-9]\{10\}' from-file.txt ||
  fail "no traceback event from the torchelastic error file: $(cat from-file.txt)"

# The job's own TORCHELASTIC_ERROR_FILE is kept, and its file copied into the incident.
set +e
TORCHELASTIC_ERROR_FILE=$work/own-error.json "$culprit" run --sample-interval 0 -o own -- $launch > own.out 2> own.err
set -e
[ -s own-error.json ] || fail "the job's own TORCHELASTIC_ERROR_FILE was not written where it said"
[ -s "own/$(ls own)/torchelastic-error.json" ] || fail "the job's own error file was not copied into the incident"
echo "torchrun: error file in the incident, rank 1's ValueError reported"
