#!/bin/sh
# Issue 37: the outside new-user test's findings (numbered as in its findings file), one family a
# test: input (21 stdin, 11/20 no readable input, 15 coloured prompt, 29 quoted Markdown), cli (24
# timeline --kind, 26 merge twice, 32 rules check, 30 help placeholders and the man page),
# redaction (12/34 ps users and user folders, 23 scan numbering), time and place (23 scan hosts
# and time column), output (22 terminal width, 27 HTML code blocks). Inputs are written here, in
# the formats' own shapes.
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

*) echo "unknown test $test"; exit 2 ;;
esac
exit $fail
