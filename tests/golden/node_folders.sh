#!/bin/sh
# Node folders named one by one (`culprit spark-a/ spark-b/`), one alone, or their parent
# folder give the same hosts and the same report: each input folder is its host unless its own
# lines say otherwise, and a source never takes another folder's host (issue 13 item 6).
# Usage: node_folders.sh CULPRIT SOURCE_DIR WORK_DIR
set -eu
culprit=$1
inputs=$2/fixtures/incidents/two-node-stale-embeddings/inputs
work=$3
fail() { echo "FAIL: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work"
for fmt in json text; do
  "$culprit" --quiet --format "$fmt" --color=never "$inputs" > "$work/parent.$fmt" || true
  (cd "$inputs" && "$culprit" --quiet --format "$fmt" --color=never spark-a/ spark-b/) > "$work/each.$fmt" || true
  (cd "$inputs" && "$culprit" --quiet --format "$fmt" --color=never ./spark-a ./spark-b) > "$work/dot.$fmt" || true
  [ -s "$work/parent.$fmt" ] || fail "no $fmt report for the parent folder"
  cmp -s "$work/parent.$fmt" "$work/each.$fmt" || { diff "$work/parent.$fmt" "$work/each.$fmt" | head -20; fail "spark-a/ spark-b/ differ from their parent ($fmt)"; }
  cmp -s "$work/parent.$fmt" "$work/dot.$fmt" || fail "./spark-a ./spark-b differ from their parent ($fmt)"
done
grep -q '"summary":"A CUDA allocation failed on spark-b GPU 0' "$work/each.json" || fail "the CUDA OOM is not on spark-b"
grep -q '"name":"spark-a/sglang-head.log","host":"spark-a","host_from":"folder name"' "$work/each.json" ||
  fail "the head's log does not say its host came from the folder name"
# One node folder alone is its own host, not none.
(cd "$inputs" && "$culprit" --quiet --format json spark-b/) > "$work/b.json" || true
grep -q '"summary":"A CUDA allocation failed on spark-b GPU 0' "$work/b.json" || fail "culprit spark-b/ alone does not put the OOM on spark-b"
if grep -q '"host":"spark-a"' "$work/b.json"; then fail "culprit spark-b/ alone names spark-a"; fi
# A paste made on a login node: the job's output read there (`tail slurm-*.out`) is where its
# launcher line says the job ran, and `ssh gpu07 nvidia-smi …` is gpu07's, so the CUDA OOM and
# the holder's CSV row meet on gpu07. Written from PyTorch 2.x's OOM template, srun's
# `srun: error: %s: task %d: Out Of Memory` and nvidia-smi's --query-compute-apps CSV.
cat > "$work/paste.txt" <<'PASTE'
alice@login1:~$ tail -n 2 slurm-4242.out
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of 23.65 GiB of which 1.12 GiB is free. Including non-PyTorch memory, this process has 2.10 GiB memory in use. Of the allocated memory 1.50 GiB is allocated by PyTorch, and 120.00 MiB is reserved by PyTorch but unallocated.
srun: error: gpu07: task 0: Out Of Memory
alice@login1:~$ ssh gpu07 nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv
pid, process_name, used_memory [MiB]
90211, python, 2150 MiB
77001, /opt/conda/bin/python3, 20240 MiB
PASTE
"$culprit" --quiet --format json - < "$work/paste.txt" > "$work/paste.json" || true
grep -q '"summary":"A CUDA allocation failed on gpu07 GPU 0' "$work/paste.json" || fail "the paste's CUDA OOM is not on gpu07"
grep -q '"culprit":{"host":"gpu07","pid":77001' "$work/paste.json" || fail "the holder's CSV row from gpu07 is not the culprit"
grep -q '"host_from":"launcher line, prompt"' "$work/paste.json" || fail "the paste's sources do not say where their host came from"
if grep -q 'login1' "$work/paste.json"; then fail "the paste's report puts something on the login node"; fi
echo "node folders: one by one, alone and as their parent give the same hosts and report; a login-node paste is the node's"
