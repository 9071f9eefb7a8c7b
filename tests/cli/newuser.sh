#!/bin/sh
# Issue 37: the outside new-user test's findings (numbered as in its findings file), one family a
# test: input (21 stdin, 11/20 no readable input, 15 coloured prompt, 29 quoted Markdown), cli (24
# timeline --kind, 26 merge twice, 32 rules check, 30 help placeholders and the man page, 33 query's
# refused writes), echoes (28 SGLang's own kill), the ledger (1 SGLang's unbalanced TP memory), advice (18 JAX and TensorFlow, 19 inside a container),
# redaction (12/34 ps users and user folders, 23 scan numbering), time and place (23 scan hosts
# and time column; 6 a year-less stamp in a dated file, 16 a root failure beside stamped lines, Ollama's journal),
# output (22 terminal width, 27 HTML code blocks, idle GPUs and labels; 14 the failed GPU's later
# snapshot; 31 the budget's long labels; 17 the headline keeps the culprit). Inputs are written here, in the formats' own shapes.
# usage: newuser.sh TEST CULPRIT SOURCE_DIR BUILD_DIR WORK_DIR
set -u
test=$1; culprit=$2; src=$3; build=$4; work=$5
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
fail=0
ok() { echo "ok   $*"; }
bad() { echo "FAIL $*"; fail=1; }
json_ok() { python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$1" 2>/dev/null; }

# A torchrun paste from a login shell: PyTorch's OOM on GPU 0 naming another process, then
# nvidia-smi's process table and `ps` of the holder, run by another user.
paste() {
  cat <<'EOF'
alice.smith@gpu-node-07:~/proj$ torchrun --nproc-per-node=1 train.py
[rank0]: Traceback (most recent call last):
[rank0]:   File "/scratch/alice.smith/proj/train.py", line 211, in <module>
[rank0]:     loss = model(batch).loss
[rank0]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 0 has a total capacity of 79.14 GiB of which 1.31 GiB is free. Process 998877 has 40.02 GiB memory in use. Including non-PyTorch memory, this process has 37.78 GiB memory in use. Of the allocated memory 35.12 GiB is allocated by PyTorch, and 1.91 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
alice.smith@gpu-node-07:~/proj$ nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
pid, process_name, used_memory [MiB]
998877, python, 40980 MiB
51882, python, 38686 MiB
alice.smith@gpu-node-07:~/proj$ ps -o user,pid,ppid,lstart,rss,cmd -p 998877,51882
USER         PID    PPID                  STARTED   RSS CMD
bob.jones 998877  998850 Tue May 14 17:02:11 2024 6123456 python serve_embeddings.py --port 9000
alice.smith 51882 51870 Wed May 15 10:21:03 2024 4123456 /usr/bin/python3 train.py
EOF
}

case $test in
input_stdin_pipe)
  # 21: with no INPUT, a pipe or a file on standard input is read (as grep and rg read it); a
  # terminal or /dev/null gets the usage.
  paste > paste.txt
  paste | "$culprit" > piped.txt 2> piped.err; rc=$?
  [ $rc -eq 0 ] && grep -q "CUDA OOM" piped.txt && ok "cat paste | culprit reads the pipe" ||
    { bad "cat paste | culprit: rc $rc"; head -5 piped.txt piped.err; }
  "$culprit" --json < paste.txt > redirected.json; rc=$?
  [ $rc -eq 0 ] && json_ok redirected.json && grep -q '"verdict":"cuda_oom"' redirected.json &&
    ok "culprit --json < paste reads the file" || bad "culprit --json < paste: rc $rc"
  "$culprit" < /dev/null > usage.txt 2>&1; rc=$?
  [ $rc -eq 2 ] && grep -q "Usage:" usage.txt && ok "culprit < /dev/null prints the usage (exit 2)" ||
    { bad "culprit < /dev/null: rc $rc"; cat usage.txt; } ;;

input_no_readable)
  # 11, 20: no readable input is one exit code (2) and one line on stderr, whatever its kind; the
  # report is still printed, --json included.
  mkdir empty docs blank
  : > empty.txt
  printf '\n\n   \n' > blank/lines.txt
  printf '# Notes\n\nThe job died; logs are on the cluster.\n' > docs/README.md
  printf '\000\001\002\003\004\005\006\007\010\016\017\020' > binary.bin
  for input in empty empty.txt blank docs binary.bin; do
    "$culprit" "$input" > out.txt 2> err.txt; rc=$?
    [ $rc -eq 2 ] && ok "$input: exit 2" || bad "$input: exit $rc, not 2"
    grep -q "no readable input" err.txt && ok "$input: one line says so" || { bad "$input: stderr:"; cat err.txt; }
    [ -s out.txt ] && ok "$input: a report is printed" || bad "$input: no report"
    "$culprit" --json "$input" > out.json 2>/dev/null; rc=$?
    [ $rc -eq 2 ] && json_ok out.json && ok "$input --json: a JSON report, exit 2" || bad "$input --json: rc $rc, JSON: $(head -c 200 out.json)"
  done
  echo "" | "$culprit" - > out.txt 2> err.txt; rc=$?
  [ $rc -eq 2 ] && grep -q "no readable input in standard input" err.txt && ok "echo | culprit -: exit 2" ||
    { bad "echo | culprit -: rc $rc"; cat err.txt; }
  echo "x" > report.txt
  "$culprit" -o report.txt empty > /dev/null 2>&1
  [ "$(cat report.txt)" = x ] && ok "-o is left as it was" || bad "-o was written over with nothing read" ;;

input_ansi_prompt)
  # 15: Ubuntu's default coloured PS1 as `script` and `tmux capture-pane -e` record it is a prompt:
  # it names the host, and the holder keeps its ps name.
  paste | sed 's/^alice.smith@gpu-node-07:~\/proj\$ /\x1b[01;32malice.smith@gpu-node-07\x1b[00m:\x1b[01;34m~\/proj\x1b[00m$ /' > coloured.txt
  grep -q "$(printf '\033')\[01;32m" coloured.txt || bad "the test paste has no colour"
  "$culprit" --json coloured.txt > c.json
  grep -q '"host":"gpu-node-07"' c.json && grep -q '"host_from":"prompt' c.json && ok "the coloured prompt names the host" ||
    { bad "the coloured prompt names no host:"; head -c 600 c.json; echo; }
  grep -q '"culprit":{"host":"gpu-node-07","pid":998877,"name":"python' c.json && ok "the holder keeps its name" ||
    { bad "the holder lost its name or host"; grep -o '"culprit":{[^}]*}' c.json | head -1; } ;;

input_markdown_quotes)
  # 29: a log quoted with `> ` in a Markdown file (a GitHub issue) is read; a one-line quote is prose.
  { echo "Hi team, my job died again:"; echo; paste | sed -n '2,5p' | sed 's/^/> /'; echo;
    echo "> Note: it worked yesterday."; echo; echo "and nvidia-smi:"; echo; paste | sed -n '6,9p' | sed 's/^/> /'; } > issue.md
  "$culprit" --json issue.md > md.json 2> md.err
  grep -q '"verdict":"cuda_oom"' md.json && ok "the quoted traceback is read" || { bad "quoted log not read:"; cat md.err; }
  grep -q '"pid":998877' md.json && ok "the quoted nvidia-smi is read" || bad "the quoted nvidia-smi is not read"
  grep -q "quoted logs" md.err && ok "the note names quoted logs" || { bad "note:"; cat md.err; }
  printf '# Notes\n\n> The head then fails with CUDA out of memory.\n' > prose.md
  "$culprit" prose.md > /dev/null 2> prose.err; rc=$?
  [ $rc -eq 2 ] && grep -q "no code block or quoted log" prose.err && ok "a one-line quote is prose" ||
    { bad "a one-line quote was read: rc $rc"; cat prose.err; } ;;

cli_timeline_kind)
  # 24: an unknown --kind is refused with the nearest and the kinds the timeline holds.
  paste > paste.txt
  "$culprit" timeline --kind cuda_oomm paste.txt > t.txt 2> t.err; rc=$?
  [ $rc -eq 2 ] && grep -q "did you mean \`cuda_oom\`" t.err && ok "--kind cuda_oomm: did you mean" ||
    { bad "--kind cuda_oomm: rc $rc"; cat t.err; }
  "$culprit" timeline --kind bogus_kind paste.txt > /dev/null 2> t.err; rc=$?
  [ $rc -eq 2 ] && grep -q "holds .*cuda_oom" t.err && ok "--kind bogus_kind lists the kinds held" ||
    { bad "--kind bogus_kind: rc $rc"; cat t.err; }
  "$culprit" timeline --kind cuda_oom paste.txt > /dev/null 2>&1; rc=$?
  [ $rc -eq 0 ] && ok "--kind cuda_oom lists events" || bad "--kind cuda_oom: rc $rc"
  "$culprit" timeline --kind xid paste.txt > /dev/null 2>&1; rc=$?
  [ $rc -eq 1 ] && ok "--kind xid (known, none held): exit 1" || bad "--kind xid: rc $rc" ;;

cli_merge_twice)
  # 26: a shard given twice is read once and named on stderr.
  mkdir -p batch/a batch/b
  paste > batch/a/paste.txt; paste > batch/b/paste.txt
  "$culprit" scan --jsonl --shard 0/1 batch > s0.jsonl 2>/dev/null
  "$culprit" merge s0.jsonl s0.jsonl > m.jsonl 2> m.err; rc=$?
  [ "$(wc -l < m.jsonl)" -eq 2 ] && ok "the merge holds each incident once" || bad "merge: $(wc -l < m.jsonl) lines"
  grep -q "s0.jsonl is given twice" m.err && ok "the shard given twice is named" || { bad "no warning (rc $rc):"; cat m.err; }
  head -1 s0.jsonl > first.jsonl
  "$culprit" merge s0.jsonl first.jsonl > /dev/null 2> o.err
  grep -q "do the shards overlap" o.err && ok "overlapping shards are named" || { bad "no overlap warning:"; cat o.err; } ;;

cli_rules_check)
  # 32: errors in file:line:column order; a group name given twice is an error.
  mkdir -p rules
  cat > rules/r.toml <<'EOF'
[[signal]]
id = "dup_group"
kind = "cuda_oom"
pattern = 'hello (?P<x>\w+) (?P<x>\w+)'

[[signal]]
id = "kind_typo"
kind = "cuda_oomm"
pattern = 'ZZZ OOM'

[[signal]]
id = "no_pattern_here"
kind = "cuda_oom"
patern = 'typo key'
EOF
  "$culprit" rules check rules > r.out 2> r.err; rc=$?
  [ $rc -eq 2 ] || bad "rules check: rc $rc"
  grep -q "r.toml:4:.*\`x\` is given twice" r.err && ok "the group name given twice is caught" || { bad "not caught:"; cat r.err; }
  grep -o 'r\.toml:[0-9]*' r.err | cut -d: -f2 > lines.txt
  sort -n -c lines.txt 2>/dev/null && ok "errors in line order: $(tr '\n' ' ' < lines.txt)" ||
    { bad "errors out of order:"; cat r.err; } ;;

cli_help_placeholders)
  # 30: every value is named (no Boost `arg`), the man page has CULPRIT, CULPRIT_SNAPSHOT, COLUMNS
  # and says what run's exit status is.
  for c in diagnose scan merge timeline query run collect "rules check"; do
    # shellcheck disable=SC2086
    if "$culprit" $c --help 2>&1 | grep -E -- '--[a-z-]+ \]? ?arg\b|  --[a-z-]+ arg' > arg.txt; then
      bad "$c --help has arg placeholders:"; cat arg.txt
    else ok "$c --help names every value"; fi
  done
  man="$build/generated/culprit.1"
  if [ -f "$man" ]; then
    for v in CULPRIT CULPRIT_SNAPSHOT COLUMNS NO_COLOR; do
      grep -q "^\.B $v\$" "$man" && ok "ENVIRONMENT has $v" || bad "ENVIRONMENT lacks $v"
    done
    grep -q "job's own status (128" "$man" && ok "EXIT STATUS says what run returns" || bad "EXIT STATUS unclear"
    grep -q '\\-\\-db\\fR \\fIFILE' "$man" && ok "the man page names --db FILE" || bad "the man page lacks --db FILE"
  else
    bad "no generated man page at $man"
  fi ;;

redact_users)
  # 12, 34: user names culprit learns (ps USER, quoted in a process's why; /scratch/NAME) leave
  # every format. A node folder: the job's log (NCCL names its pid) and `ps -eo user,pid,…`.
  mkdir -p gpu-node-07
  cat > gpu-node-07/train.log <<'EOF'
[2024-05-15 10:20:01] Loading checkpoint from /scratch/carol.w/cache
[2024-05-15 10:20:02] gpu-node-07:51880:51990 [0] NCCL INFO Bootstrap : Using ib0:10.42.3.17<0>
Traceback (most recent call last):
  File "/scratch/carol.w/proj/train.py", line 187, in main
    loss = model(batch).loss
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 0 has a total capacity of 79.14 GiB of which 1.31 GiB is free. Process 998877 has 40.02 GiB memory in use. Including non-PyTorch memory, this process has 37.78 GiB memory in use. Of the allocated memory 35.12 GiB is allocated by PyTorch, and 1.91 GiB is reserved by PyTorch but unallocated.
EOF
  cat > gpu-node-07/ps.txt <<'EOF'
USER         PID    PPID S                  STARTED   RSS CMD
carol.w    51880   51870 S Wed May 15 10:19:58 2024 6123456 python /scratch/carol.w/proj/train.py
bob.jones 998877  998850 S Tue May 14 17:02:11 2024 3123456 python serve_embeddings.py --port 9000
EOF
  "$culprit" gpu-node-07 | grep -q "runs as user bob.jones" || bad "the unredacted why does not name the ps users"
  for f in text markdown json html; do
    "$culprit" --redact -f "$f" gpu-node-07 > r.$f 2>/dev/null
    if grep -n -e 'bob\.jones' -e 'carol\.w' r.$f > leak.txt; then
      bad "--redact -f $f leaks:"; head -3 leak.txt
    else ok "--redact -f $f names no user"; fi
  done
  grep -q 'runs as user user-[0-9]*, the job' r.json && ok "the why reads the same with placeholders" ||
    { bad "the why is mangled:"; grep -o '"why":"[^"]*' r.json; }
  printf 'RuntimeError: CUDA error: out of memory\n  File "/scratch/dave/run/train.py", line 3\n  File "/data/users/erin/x.py", line 9\n' > scratch.txt
  "$culprit" --redact scratch.txt > s.txt 2>/dev/null
  if grep -q -e dave -e erin s.txt; then bad "/scratch/NAME or /data/users/NAME kept: $(grep -e dave -e erin s.txt | head -2)"
  else ok "/scratch/NAME and /data/users/NAME are redacted"; fi ;;

scan_redact_numbering)
  # 23: one host is one placeholder across the whole scan, in incident order.
  mkdir -p batch/run1 batch/run2 batch/run3
  for r in run1 run2 run3; do paste > batch/$r/paste.txt; done
  sed -i 's/gpu-node-07/gpu-node-09/' batch/run2/paste.txt
  "$culprit" scan --redact batch > table.txt 2>/dev/null
  cat table.txt
  [ "$(grep -c 'host-1 ' table.txt)" -eq 2 ] && [ "$(grep -c 'host-2 ' table.txt)" -eq 1 ] &&
    ok "gpu-node-07 is host-1 on both of its rows, gpu-node-09 host-2" || bad "hosts numbered per incident" ;;

scan_hosts_and_time)
  # 23: an incident folder's name is no host; the table has the root failure's time.
  mkdir -p batch/case-07-vllm-free-memory batch/case-08
  cat > batch/case-07-vllm-free-memory/api.log <<'EOF'
2024-05-15 10:22:31,112 ERROR worker.py:406 -- torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 0 has a total capacity of 79.14 GiB of which 1.31 GiB is free. Including non-PyTorch memory, this process has 77.78 GiB memory in use.
EOF
  paste > batch/case-08/paste.txt
  "$culprit" scan batch > table.txt 2>/dev/null
  cat table.txt
  head -1 table.txt | grep -q "WHEN (UTC)" && ok "the table has a time column" || bad "no time column"
  grep case-07 table.txt | grep -q "case-07-vllm" && ! grep case-07 table.txt | awk '{print $0}' | grep -q ' case-07-vllm-free-memor~ ' &&
    ok "the incident folder's name is not its host" || bad "the folder name is taken as the host"
  grep case-08 table.txt | grep -q "gpu-node-07" && ok "a prompt's host is still the host" || bad "case-08 lost its host" ;;

output_width)
  # 22: the text report takes $COLUMNS (the terminal's width), never more than 100 columns.
  paste > paste.txt
  COLUMNS=60 "$culprit" --color never paste.txt > narrow.txt
  widest=$(python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")))' narrow.txt)
  [ "$widest" -le 60 ] && ok "COLUMNS=60: widest line $widest" || { bad "COLUMNS=60: a line of $widest columns"; awk 'length > 60' narrow.txt | head -3; }
  COLUMNS=300 "$culprit" --color never paste.txt > wide.txt
  widest=$(python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")))' wide.txt)
  [ "$widest" -le 100 ] && ok "COLUMNS=300: at most 100 ($widest)" || bad "COLUMNS=300: a line of $widest"
  COLUMNS=60 "$culprit" timeline paste.txt > tl.txt
  widest=$(python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")))' tl.txt)
  [ "$widest" -le 60 ] && ok "timeline under COLUMNS=60: $widest" || bad "timeline under COLUMNS=60: $widest" ;;

html_code_wraps)
  # 27: evidence and worked sums wrap in the HTML, never clipped behind a scrollbar.
  paste > paste.txt
  "$culprit" -f html paste.txt > r.html
  grep -q 'pre code {[^}]*white-space: pre-wrap' r.html && ! grep -q 'white-space: pre;' r.html &&
    ok "code blocks wrap" || bad "code blocks are clipped (white-space: pre)" ;;

time_year_in_file)
  # 6: a log dated 2024 whose c10 glog lines (`[E515 …]`, no year) follow is one log of one year;
  # Dec 31 → Jan 1 rolls over; a node whose stamped lines are all plain INFO lines still has a
  # wall clock. Lines in the shapes PyTorch's launcher and c10 print (formats.md Part 3).
  mkdir -p multi/node-a multi/node-b
  cat > multi/node-a/train.log <<'EOF'
[2024-05-15 10:20:00,001] [INFO] [rank0] step 1200 loss 1.87
[rank0]:[E515 10:32:14.183712 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=88213, OpType=ALLREDUCE, NumelIn=262144, NumelOut=262144, Timeout(ms)=600000) ran for 600047 milliseconds before timing out.
E0515 10:32:16.118000 140230 torch/distributed/elastic/multiprocessing/api.py:869] failed (exitcode: -6) local_rank: 0 (pid: 71210) of binary: /usr/bin/python3
EOF
  cat > multi/node-b/train.log <<'EOF'
[2024-05-15 10:18:31,001] [INFO] [rank8] step 1200 loss 1.86
[rank12]: Traceback (most recent call last):
[rank12]:   File "/workspace/train.py", line 187, in main
[rank12]:     loss = model(batch).loss
[rank12]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.00 GiB. GPU 4 has a total capacity of 79.14 GiB of which 2.11 GiB is free. Including non-PyTorch memory, this process has 77.00 GiB memory in use. Of the allocated memory 71.10 GiB is allocated by PyTorch, and 4.77 GiB is reserved by PyTorch but unallocated.
[2024-05-15 10:20:40,551] [INFO] [rank8] waiting on barrier
EOF
  "$culprit" timeline --json multi > t.json 2>/dev/null
  "$culprit" timeline multi > t.txt 2>/dev/null
  python3 - t.json <<'PY' || fail=1
import json, sys
events = json.load(open(sys.argv[1]))
bad = [(e["host"], e["line"], e["time"]) for e in events if not (e["time"] or "").startswith("2024-05-15T")]
print(("FAIL events not on 2024-05-15: %s" % bad) if bad else "ok   every event of both nodes on 2024-05-15")
nccl = [e["time"] for e in events if e["kind"] == "nccl_timeout"]
ok = bool(nccl) and nccl[0] == "2024-05-15T10:32:14.184Z"
print(("ok  " if ok else "FAIL") + " the glog line takes its file's year: %s" % nccl)
# The traceback stands between 10:18:31 and 10:20:40: it takes the next stamped line's time.
oom = [e["time"] for e in events if e["host"] == "node-b" and e["kind"] in ("cuda_oom", "traceback")]
ok2 = bool(oom) and all(t == "2024-05-15T10:20:40.551Z" for t in oom)
print(("ok  " if ok2 else "FAIL") + " node-b's [rank12] traceback is dated by its neighbours: %s" % oom)
sys.exit(0 if (not bad and ok and ok2) else 1)
PY
  if grep -q "node-b  clock: no wall clock" t.txt; then bad "node-b has no wall clock"; else ok "node-b has a wall clock"; fi
  grep "node-a  clock" t.txt | grep -q "years from the source's own dated lines" && ok "node-a's clock names its own dated lines" ||
    bad "node-a's clock: $(grep 'node-a  clock' t.txt)"
  # Dec 31 -> Jan 1: the year-less line after a dated Dec 31 line is in the next year.
  printf '%s\n' '[2024-12-31 23:59:58,001] [INFO] [rank0] step 88 loss 1.20' \
    '[rank0]:[E101 00:00:03.000001 ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=7, OpType=ALLREDUCE, NumelIn=1, NumelOut=1, Timeout(ms)=600000) ran for 600002 milliseconds before timing out.' > newyear.log
  "$culprit" timeline --json newyear.log > ny.json 2>/dev/null
  grep -q '"time":"2025-01-01T00:00:03.000Z"' ny.json && ok "Dec 31 rolls over to 2025-01-01" ||
    bad "no roll-over: $(grep -o '"time":"[^"]*"' ny.json | head -2)"
  # Look-alike: no dated line in the file: --year decides, as before.
  sed -n 2p newyear.log > undated.log
  "$culprit" timeline --year 2023 --json undated.log > un.json 2>/dev/null
  grep -q '"time":"2023-01-01T00:00:03.000Z"' un.json && ok "no dated line: --year decides" ||
    bad "--year ignored: $(grep -o '"time":"[^"]*"' un.json | head -1)" ;;

time_root_beside_dated)
  # 16: a root failure beside stamped lines carries a time — Ray's tab-separated logging header
  # (ray_constants.LOGGER_FORMAT `%(asctime)s\t%(levelname)s %(filename)s:%(lineno)s -- %(message)s`),
  # Slurm's `CANCELLED AT` (slurmstepd), a `[rankN]:` traceback between torchrun's glog lines.
  root_ts() { "$culprit" --json "$1" 2>/dev/null | python3 -c 'import json,sys; r=json.load(sys.stdin).get("root") or {}; print(r.get("ts"))'; }
  printf '2024-05-15 10:22:31,112\tERROR worker.py:406 -- Unhandled error (suppress with %s): ray::shard() (pid=40211, ip=10.0.3.21)\n' \
    "'RAY_IGNORE_UNHANDLED_ERRORS=1'" > ray.log
  cat >> ray.log <<'EOF'
Traceback (most recent call last):
  File "/home/ray/anaconda3/lib/python3.10/site-packages/ray/_private/worker.py", line 2623, in get
    raise value
ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on memory.
Memory on the node (IP: 10.0.3.21, ID: 3a9f) where the task (task ID: 77ab, name=shard, pid=40211, memory used=20.50GB) was running was 29.90GB / 31.35GB (0.953748), which exceeds the memory usage threshold of 0.95. Ray killed this worker (ID: 1c2d) because it was the most recently scheduled task; to see more information about memory usage on this node, use `ray logs raylet.out -ip 10.0.3.21`.
EOF
  t=$(root_ts ray.log)
  [ "$t" = "2024-05-15T10:22:31.112Z" ] && ok "Ray's tab-separated stamp dates the root" || bad "Ray: root ts $t"
  cat > slurm.out <<'EOF'
+ srun python train.py --bs 64
slurmstepd: error: Detected 1 oom_kill event in StepId=4412873.0. Some of your processes may have been killed by the cgroup out-of-memory handler.
srun: error: gpu-a017: task 0: Out Of Memory
srun: launch/slurm: _step_signal: Terminating StepId=4412873.0
slurmstepd: error: *** STEP 4412873.0 ON gpu-a017 CANCELLED AT 2024-05-15T10:22:35 ***
EOF
  t=$(root_ts slurm.out)
  [ "$t" = "2024-05-15T10:22:35.000Z" ] && ok "Slurm's CANCELLED AT dates the root" || bad "Slurm: root ts $t"
  cat > torchrun.log <<'EOF'
[rank0]:[W515 10:21:20.302117 ProcessGroupNCCL.cpp:4561] [PG ID 0 PG GUID 0 Rank 0]  using GPU 0 to perform barrier as devices used by this process are currently unknown.
step 20 loss 2.1034
[rank1]: Traceback (most recent call last):
[rank1]:   File "/home/alice/proj/train.py", line 187, in main
[rank1]:     loss = model(batch).loss
[rank1]: torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.50 GiB. GPU 1 has a total capacity of 79.14 GiB of which 1.31 GiB is free. Including non-PyTorch memory, this process has 77.78 GiB memory in use. Of the allocated memory 75.12 GiB is allocated by PyTorch, and 1.91 GiB is reserved by PyTorch but unallocated.
W0515 10:22:33.901000 140230 torch/distributed/elastic/multiprocessing/api.py:858] Sending process 51880 closing signal SIGTERM
E0515 10:22:34.318000 140230 torch/distributed/elastic/multiprocessing/api.py:833] failed (exitcode: 1) local_rank: 1 (pid: 51881) of binary: /usr/bin/python3
EOF
  t=$(root_ts torchrun.log)
  case $t in 20[0-9][0-9]-05-15T10:22:33.901Z) ok "the [rank1] traceback takes the launcher's next line" ;; *) bad "torchrun: root ts $t" ;; esac
  mkdir -p gpu-node-07 && cp torchrun.log gpu-node-07/  # a node folder names the host the header lists
  "$culprit" --json gpu-node-07 > tr.json 2>/dev/null
  grep -q '"clock_note":"[^"]*2 unstamped lines placed at the next stamped line of their source' tr.json &&
    ok "the clock says how it was placed" || bad "the clock does not say so: $(grep -o '"clock_note":"[^"]*"' tr.json)"
  # Look-alikes: a stamp only before it bounds it from below and dates nothing; nor does a stamp
  # more than 50 lines on.
  { echo "[2024-05-15 10:18:31,001] [INFO] start"; i=0; while [ $i -lt 60 ]; do echo "step $i"; i=$((i+1)); done
    sed -n 3,6p torchrun.log | sed 's/^\[rank1\]: //'; } > before.log
  t=$(root_ts before.log)
  [ "$t" = "None" ] && ok "a stamp only before it dates nothing" || bad "stamp before: root ts $t"
  { sed -n 3,6p torchrun.log | sed 's/^\[rank1\]: //'; i=0; while [ $i -lt 60 ]; do echo "cleanup $i"; i=$((i+1)); done
    echo "[2024-05-15 10:40:00,001] [INFO] shutdown"; } > far.log
  t=$(root_ts far.log)
  [ "$t" = "None" ] && ok "a stamp 61 lines on dates nothing" || bad "far stamp: root ts $t" ;;

html_failed_gpu_and_idle)
  # 14, 27: the failed GPU's own snapshot after the failure is drawn beside the ledger (it was
  # taken for the error's quoted figures and dropped); idle GPUs get one compact row each in one
  # table, not a full chart each. A torchrun paste, then `nvidia-smi` (535's layout) a minute later.
  { paste | sed -n 1,5p
    cat <<'EOF'
alice.smith@gpu-node-07:~/proj$ nvidia-smi
Wed May 15 10:23:05 2024       
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.161.08             Driver Version: 535.161.08   CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:07:00.0 Off |                    0 |
| N/A   35C    P0              88W / 400W |  40984MiB / 81920MiB |      0%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+
|   1  NVIDIA A100-SXM4-80GB          On  | 00000000:0F:00.0 Off |                    0 |
| N/A   30C    P0              60W / 400W |      4MiB / 81920MiB |      0%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+
|   2  NVIDIA A100-SXM4-80GB          On  | 00000000:47:00.0 Off |                    0 |
| N/A   32C    P0              62W / 400W |      4MiB / 81920MiB |      0%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+
                                                                                         
+---------------------------------------------------------------------------------------+
| Processes:                                                                            |
|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |
|        ID   ID                                                             Usage      |
|=======================================================================================|
|    0   N/A  N/A    998877      C   python                                    40980MiB |
+---------------------------------------------------------------------------------------+
EOF
  } > smi-after.txt
  "$culprit" -f html smi-after.txt > r.html 2> r.err || { bad "culprit -f html failed:"; cat r.err; }
  python3 - r.html <<'PY' || fail=1
import re, sys
doc = open(sys.argv[1], encoding="utf-8").read()
figs = re.findall(r'<figure class="chart">\s*<figcaption class="title">([^<]*)</figcaption>(.*?)</figure>', doc, re.S)
gpu = [(c, body) for c, body in figs if "GPU" in c]
ok = True
g0 = [body for c, body in gpu if "GPU 0" in c]
if g0 and ">10:23:05<" in g0[0]:
    print("ok   GPU 0's chart has its 10:23:05 snapshot beside the ledger")
else:
    print("FAIL GPU 0's chart lacks its 10:23:05 snapshot: %s" % [c for c, _ in gpu]); ok = False
if any("GPU 1" in c or "GPU 2" in c for c, _ in gpu):
    print("FAIL an idle GPU has a full chart: %s" % [c for c, _ in gpu]); ok = False
else:
    print("ok   no full chart for an idle GPU")
idle = re.search(r'<table class="idle">(.*?)</table>', doc, re.S)
rows = re.findall(r"<tr><td>gpu-node-07</td><td>(\d+)</td>", idle.group(1)) if idle else []
if rows == ["1", "2"]:
    print("ok   GPUs 1 and 2 are one compact row each")
else:
    print("FAIL idle rows: %s" % rows); ok = False
sys.exit(0 if ok else 1)
PY
  python3 "$src/tests/cli/svg_text_overlap.py" r.html && ok "no label overlaps another" || bad "labels overlap" ;;

html_labels_apart)
  # 27: no two labels of any chart overlap — the total over the ledger bar's labels, the in-bar
  # labels under the total line — over every incident fixture's HTML report (their inputs are the
  # formats' own; fixtures/incidents/*/inputs).
  n=0
  for d in "$src"/fixtures/incidents/*/; do
    name=$(basename "$d")
    [ -d "$d/inputs" ] || continue
    grep -q '"stdin"' "$d/expected.json" 2>/dev/null && continue
    # shellcheck disable=SC2046
    "$culprit" -f html $(python3 -c 'import json,sys; print(" ".join(json.load(open(sys.argv[1])).get("args", [])))' \
      "$d/expected.json" 2>/dev/null) "$d/inputs" > "$name.html" 2>/dev/null
    n=$((n + 1))
    python3 "$src/tests/cli/svg_text_overlap.py" "$name.html" || bad "$name: labels overlap"
  done
  [ $n -gt 10 ] && ok "$n incident reports checked" || bad "only $n incident reports" ;;

echo_sglang_self_kill)
  # 28: SGLang's launcher, told by a child that it failed (`Received sigquit from a child
  # process`), SIGKILLs its own process tree, itself included (kill_process_tree ends with
  # itself.kill()); the shell's `Killed` after it is no kernel OOM kill. A bare `Killed` with no
  # such relay before it still is the likeliest one's. SGLang's `[<asctime> TP<r>]` prefix.
  cat > sglang.log <<'EOF'
[2025-03-11 14:02:07 TP0] Init torch distributed begin.
[2025-03-11 14:02:09 TP1] Scheduler hit an exception: Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 1787, in run_scheduler_process
    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, dp_rank)
  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 256, in init_torch_distributed
    raise ValueError(
ValueError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes. min_per_gpu_memory=30.10, local_gpu_memory=78.62, local_gpu_memory * 0.9=70.758

[2025-03-11 14:02:09] Received sigquit from a child process. It usually means the child failed.
Killed
EOF
  "$culprit" --json sglang.log > s.json 2>/dev/null
  json_ok s.json || bad "no JSON report for the SGLang log"
  if grep -q '"title":"Process killed by SIGKILL (no kernel record)"' s.json; then
    bad "SGLang's own kill is taken for the kernel's"
  else ok "SGLang's own Killed is no kernel OOM kill"; fi
  grep -q 'memory capacity is unbalanced' s.json && ok "the start-up check is still the failure" || bad "the start-up check is lost"
  printf 'python3 train.py --bs 64\nepoch 1 step 20 loss 2.41\nKilled\n' > bare.log
  "$culprit" --json bare.log > b.json 2>/dev/null
  grep -q '"title":"Process killed by SIGKILL (no kernel record)"' b.json && ok "a bare Killed still names the kernel as likeliest" ||
    bad "the bare Killed lost its finding: $(grep -o '"title":"[^"]*"' b.json | head -2)" ;;

ledger_sglang_unbalanced)
  # 1: SGLang's tensor-parallel balance check (model_runner.py: the group's least free GPU below
  # 0.9 x this rank's free memory) is no failed allocation, and its figures prove a gap, not who
  # holds it: the report quotes both figures and the gap, blames no one named (neither "the job
  # itself" nor a foreign process), and the warning form (the check disabled) is no failure.
  cat > tp1.log <<'EOF'
[2025-03-11 14:02:07 TP0] Init torch distributed begin.
[2025-03-11 14:02:09 TP1] Scheduler hit an exception: Traceback (most recent call last):
  File "/sgl-workspace/sglang/python/sglang/srt/model_executor/model_runner.py", line 256, in init_torch_distributed
    raise ValueError(
ValueError: The memory capacity is unbalanced. Some GPUs may be occupied by other processes. min_per_gpu_memory=38.21, local_gpu_memory=78.62, local_gpu_memory * 0.9=70.758
EOF
  "$culprit" --json tp1.log > u.json 2>/dev/null
  python3 - u.json <<'PY' && ok "a gap of 40.41 GiB held by someone not named, no OOM" || bad "the balance check's report: $(head -c 600 u.json)"
import json, sys
d = json.load(open(sys.argv[1]))
c = d["culprit"] or {}
assert d["verdict"] == "not_oom", d["verdict"]
assert c.get("role") == "unknown", c
assert "40.41 GiB" in c.get("name", ""), c
assert "38.21 GiB" in d["summary"] and "78.62 GiB" in d["summary"], d["summary"]
PY
  "$culprit" tp1.log > u.txt 2>/dev/null
  grep -q "the job itself" u.txt && bad "the text report still blames the job itself" || ok "the text report blames no one by guess"
  grep -q "names no sizes" u.txt && bad "the report says the error names no sizes" || ok "the sizes are not denied"
  printf '[2025-03-11 14:02:09 TP0] The memory capacity is unbalanced. Some GPUs may be occupied by other processes. min_per_gpu_memory=70.10, local_gpu_memory=78.62, local_gpu_memory * 0.9=70.758\n[2025-03-11 14:02:31 TP0] Load weight end. type=LlamaForCausalLM\n' > warn.log
  "$culprit" --json warn.log > w.json 2>/dev/null
  grep -q '"verdict":"unknown"' w.json && ok "the disabled check's warning is no failure" ||
    bad "the warning form made a finding: $(head -c 300 w.json)" ;;

advice_jax_tf)
  # 18: XLA's BFC allocator lines are JAX's as much as TensorFlow's: a JAX OOM is advised with
  # XLA's settings (XLA_PYTHON_CLIENT_*), not TensorFlow's set_memory_growth. TensorFlow's own
  # figures make a ledger: `Created device … with N MB memory` (gpu_device.cc, the process's limit)
  # less the BFC dump's `Sum Total of in-use chunks` is what was free; and the exception that
  # reprints the OP_REQUIRES line's message is the same OOM, not an echo of itself.
  cat > jax.log <<'EOF'
2024-05-15 10:40:11.234567: W external/xla/xla/tsl/framework/bfc_allocator.cc:482] Allocator (GPU_0_bfc) ran out of memory trying to allocate 16.00GiB (rounded to 17179869184)requested by op 
E0515 10:40:11.235012  812345 pjrt_stream_executor_client.cc:3067] Execution of replica 0 failed: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes.
Traceback (most recent call last):
  File "/home/dave/jax/train.py", line 77, in <module>
    state, metrics = train_step(state, batch)
jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 17179869184 bytes.
EOF
  "$culprit" jax.log > jax.txt 2>/dev/null
  grep -q "XLA_PYTHON_CLIENT" jax.txt && ! grep -q "set_memory_growth" jax.txt && ok "JAX is advised with XLA's settings" ||
    bad "JAX advice: $(grep -A3 '^Advice' jax.txt)"
  cat > tf.log <<'EOF'
2024-05-15 10:31:02.118234: I tensorflow/core/common_runtime/gpu/gpu_device.cc:1929] Created device /job:localhost/replica:0/task:0/device:GPU:0 with 22279 MB memory:  -> device: 0, name: NVIDIA GeForce RTX 4090, pci bus id: 0000:01:00.0, compute capability: 8.9
2024-05-15 10:33:47.552101: W tensorflow/core/common_runtime/bfc_allocator.cc:485] Allocator (GPU_0_bfc) ran out of memory trying to allocate 4.00GiB (rounded to 4294967296)requested by op model/dense/MatMul
2024-05-15 10:33:47.561003: I tensorflow/core/common_runtime/bfc_allocator.cc:1107] Sum Total of in-use chunks: 19.62GiB
2024-05-15 10:33:47.561062: W tensorflow/core/framework/op_kernel.cc:1827] OP_REQUIRES failed at matmul_op_impl.h:731 : RESOURCE_EXHAUSTED: OOM when allocating tensor with shape[32768,32768] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc
Traceback (most recent call last):
  File "/home/carol/tf/train.py", line 58, in <module>
    model.fit(ds, epochs=10)
  File "/usr/local/lib/python3.11/dist-packages/keras/src/utils/traceback_utils.py", line 122, in error_handler
    raise e.with_traceback(filtered_tb) from None
  File "/usr/local/lib/python3.11/dist-packages/tensorflow/python/eager/execute.py", line 53, in quick_execute
    tensors = pywrap_tfe.TFE_Py_Execute(ctx._handle, device_name, op_name,
tensorflow.python.framework.errors_impl.ResourceExhaustedError: Graph execution error:

Detected at node model/dense/MatMul defined at (most recent call last):
  File "/home/carol/tf/train.py", line 58, in <module>

OOM when allocating tensor with shape[32768,32768] and type float on /job:localhost/replica:0/task:0/device:GPU:0 by allocator GPU_0_bfc
	 [[{{node model/dense/MatMul}}]]
EOF
  "$culprit" tf.log > tf.txt 2>/dev/null
  grep -q "set_memory_growth" tf.txt && ok "TensorFlow is advised with its own setting" || bad "TF advice: $(grep -A3 '^Advice' tf.txt)"
  grep -q "shortfall = requested 4.00 GiB - free 2.14 GiB = 1.86 GiB" tf.txt && ok "TF's limit less its in-use chunks is the free memory" ||
    bad "TF ledger: $(sed -n '/^Memory budget/,/^Root/p' tf.txt)"
  grep -q "^Echoes" tf.txt && bad "the exception's reprint is listed as an echo of its own OOM" || ok "one OOM, no echo of itself" ;;

advice_container_pidns)
  # 19: inside a container nvidia-smi lists host pids it cannot read (`[Not Found]`, NVML's
  # error string for a pid outside the namespace). That text is no name; `kill PID` from inside
  # cannot reach the process, so the advice sends the user to the host (a prompt's hostname of 12
  # hex digits is Docker's default: the container's id); and the leftover finding about the same
  # holder is not listed as an echo of the root that already blames it.
  cat > ctr.txt <<'EOF'
root@7d2e91c4b05a:/workspace# python train.py --bs 48
Traceback (most recent call last):
  File "/workspace/train.py", line 96, in <module>
    out = model(x)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.50 GiB. GPU 0 has a total capacity of 79.14 GiB of which 1.12 GiB is free. Process 3214567 has 70.01 GiB memory in use. Process 998877 has 8.00 GiB memory in use. Of the allocated memory 67.20 GiB is allocated by PyTorch, and 2.10 GiB is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)
root@7d2e91c4b05a:/workspace# nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
pid, process_name, used_gpu_memory [MiB]
998877, [Not Found], 8192 MiB
EOF
  "$culprit" ctr.txt > ctr.out 2>/dev/null
  head -1 ctr.out | grep -q "Not Found" && bad "nvidia-smi's [Not Found] is shown as a name: $(head -1 ctr.out)" ||
    ok "no name made of [Not Found]"
  head -1 ctr.out | grep -q "pid 998877" && ok "the holder is still the culprit" || bad "culprit lost: $(head -1 ctr.out)"
  grep -q '`kill 998877` on 7d2e91c4b05a' ctr.out && bad "the advice kills a host pid from inside the container" ||
    ok "no kill from where the pid cannot be seen"
  sed -n '/^Advice/,/^Sources/p' ctr.out | tr '\n' ' ' | grep -q "host that runs container 7d2e91c4b05a" &&
    ok "the advice sends the user to the container's host" || bad "advice: $(sed -n '/^Advice/,/^Sources/p' ctr.out)"
  grep -q "^Echoes" ctr.out && bad "the root's own culprit is listed again as a leftover echo" || ok "no echo of the root's culprit" ;;

time_ollama_journal)
  # 16 (Ollama): a journal line `May 15 12:01:47 ws-lab ollama[2211]: time=2024-05-15T12:01:47.902+02:00 …`
  # is the host's local time without year or zone in its header and the program's own full stamp
  # (Go's slog text format) in its message: the two give the source its year and zone, so the
  # llama.cpp lines between (header only) are placed too; and the client's unstamped
  # `Error: llama runner process has terminated: …`, the server's error reprinted, is that failure,
  # not a root of its own with no time.
  cat > ollama.txt <<'EOF'
$ ollama run llama3.1:70b
Error: llama runner process has terminated: cudaMalloc failed: out of memory
$ journalctl -u ollama --no-pager | tail -20
May 15 12:01:44 ws-lab ollama[2211]: time=2024-05-15T12:01:44.512+02:00 level=INFO source=memory.go:309 msg="offload to cuda" layers.requested=-1 layers.model=81 layers.offload=81 layers.split="" memory.available="[23.3 GiB]" memory.gpu_overhead="0 B" memory.required.full="41.9 GiB" memory.required.partial="23.1 GiB"
May 15 12:01:47 ws-lab ollama[2211]: ggml_backend_cuda_buffer_type_alloc_buffer: allocating 21894.12 MiB on device 0: cudaMalloc failed: out of memory
May 15 12:01:47 ws-lab ollama[2211]: llama_model_load: error loading model: unable to allocate CUDA0 buffer
May 15 12:01:47 ws-lab ollama[2211]: time=2024-05-15T12:01:47.902+02:00 level=ERROR source=sched.go:455 msg="error loading llama server" error="llama runner process has terminated: cudaMalloc failed: out of memory"
EOF
  "$culprit" --json ollama.txt > o.json 2>/dev/null
  python3 - o.json <<'PY' && ok "the root is dated 2024-05-15 10:01:47Z (the program's year and +02:00), no echo of itself" || bad "Ollama: $(head -c 400 o.json)"
import json, sys
d = json.load(open(sys.argv[1]))
root = d.get("root") or {}
assert root.get("ts") == "2024-05-15T10:01:47.000Z", root.get("ts")
assert not [e for e in d.get("echoes", []) if e.get("verdict") == "cuda_oom"], d.get("echoes")
PY
  # Look-alike: a program stamp of another moment (a quoted time= in a message) places nothing.
  printf 'May 15 12:01:47 ws-lab app[7]: time=2023-01-02T03:04:05Z level=INFO msg="replayed"\n' > other.log
  "$culprit" timeline other.log 2>/dev/null | grep -q "2023" && bad "a program stamp of another moment set the year" ||
    ok "a program stamp of another moment places nothing" ;;

cli_query_writes)
  # 33: `culprit query` refuses CREATE TABLE with the same clear words as every other write
  # (it said only "not authorized").
  paste > paste.txt
  "$culprit" --db t.db paste.txt > /dev/null 2>&1
  for sql in "CREATE TABLE t(x)" "CREATE VIEW v AS SELECT 1" "CREATE INDEX i ON events(line)" "DROP TABLE events"; do
    "$culprit" query t.db "$sql" > q.out 2> q.err; rc=$?
    [ $rc -eq 2 ] && grep -q "only reading the timeline is allowed" q.err && ok "$sql: refused, said clearly" ||
      { bad "$sql: rc $rc"; cat q.err; }
  done ;;

output_budget_labels)
  # 31: a long ledger label wraps within its capped column instead of being cut with `…` and
  # stretching the table to the full width. PyTorch 1.x's message (c10/cuda/CUDACachingAllocator.cpp).
  echo 'RuntimeError: CUDA out of memory. Tried to allocate 768.00 MiB (GPU 0; 15.78 GiB total capacity; 13.90 GiB already allocated; 371.19 MiB free; 14.20 GiB reserved in total by PyTorch) If reserved memory is >> allocated memory try setting max_split_size_mb to avoid fragmentation.  See documentation for Memory Management and PYTORCH_CUDA_ALLOC_CONF' > old.txt
  for cols in 100 60; do
    COLUMNS=$cols "$culprit" --color never old.txt > r.txt 2>/dev/null
    sed -n '/^Memory budget/,/^$/p' r.txt > budget.txt
    [ -s budget.txt ] || { bad "COLUMNS=$cols: no budget"; cat r.txt; continue; }
    if grep -q '…' budget.txt; then bad "COLUMNS=$cols: a label is cut:"; grep '…' budget.txt; else ok "COLUMNS=$cols: no label is cut"; fi
    # The label read back across its lines, the size columns taken out.
    python3 -c 'import re,sys; t=re.sub(r"\s+[0-9.]+ (GiB|MiB|KiB|bytes)(\s+[0-9.]+%)?", " ", open(sys.argv[1]).read()); print(" ".join(t.split()))' \
      budget.txt > flat.txt
    grep -q "the failing process (its framework's own figure; its CUDA context is not counted)" flat.txt &&
      ok "COLUMNS=$cols: the label is whole" ||
      { bad "COLUMNS=$cols: the label is not whole:"; cat budget.txt; }
    widest=$(python3 -c 'import sys; print(max(len(l.rstrip("\n")) for l in open(sys.argv[1], encoding="utf-8")))' budget.txt)
    limit=$cols; [ "$cols" -gt 80 ] && limit=80
    [ "$widest" -le "$limit" ] && ok "COLUMNS=$cols: the table is $widest columns" || bad "COLUMNS=$cols: the table is $widest columns"
  done ;;

output_headline_culprit)
  # 17: the first line never loses the culprit: a killed unit's long name is shortened, the time
  # goes first, at any width. systemd-oomd's kill line (src/oom/oomd-util.c) and systemd's unit
  # summary, as journalctl prints them.
  cat > oomd.txt <<'EOF'
May 15 10:22:31 ws-carol systemd-oomd[812]: Killed /user.slice/user-1000.slice/user@1000.service/app.slice/app-org.gnome.Terminal.slice/vte-spawn-4b1a2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d.scope due to memory pressure for /user.slice/user-1000.slice/user@1000.service being 71.23% > 50.00% for > 20s with reclaim activity
May 15 10:22:31 ws-carol systemd[1402]: vte-spawn-4b1a2c3d-5e6f-4a7b-8c9d-0e1f2a3b4c5d.scope: systemd-oomd killed 12 process(es) in this unit.
EOF
  for cols in 100 80 60; do
    COLUMNS=$cols "$culprit" --color never --year 2024 oomd.txt > r.txt 2>/dev/null
    head -1 r.txt | grep -q "vte-spawn-" && ok "COLUMNS=$cols: the headline names the unit" ||
      bad "COLUMNS=$cols: the headline lost the unit: $(head -1 r.txt)"
    head -1 r.txt | grep -q -- "—…" && bad "COLUMNS=$cols: the headline ends in '—…'" || true
  done ;;

*) echo "unknown test $test"; exit 2 ;;
esac
exit $fail
