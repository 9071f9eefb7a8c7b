# Shared by the `culprit run` / `collect` tests (sourced). Usage of each test:
#   TEST.sh CULPRIT SOURCE_DIR WORK_DIR
# Exit 77 (ctest: skipped) with a message when something the test needs is absent.
set -eu
culprit=$1
src=$2
work=$3
rm -rf "$work"
mkdir -p "$work"
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*" >&2; exit 77; }
need() { for t in "$@"; do command -v "$t" >/dev/null 2>&1 || skip "$t is not installed"; done; }
# A PATH holding the stand-in nvidia-smi and docker first.
standins="$src/tests/run/standins"
export CULPRIT_TEST_FIXTURES="$src/fixtures"
# `$as_nobody CMD...` runs CMD as user nobody (exec: $! is CMD's pid); empty when impossible.
as_nobody=
if [ "$(id -u)" -eq 0 ]; then
  if command -v setpriv >/dev/null 2>&1; then as_nobody="setpriv --reuid=65534 --regid=65534 --clear-groups"
  elif command -v runuser >/dev/null 2>&1; then as_nobody="runuser -u nobody --"
  fi
fi
# The PyTorch 2.x CUDA OOM wording (c10/cuda/CUDACachingAllocator.cpp, as in
# fixtures/incidents/*/inputs and rules/signals/gpu_memory.toml), naming holder pid $1.
oom_child() {
  cat > "$work/child.py" <<'PY'
import sys
holder = sys.argv[1]
print("epoch 0 step 10: loss 2.31", flush=True)
print("Traceback (most recent call last):", file=sys.stderr)
print('  File "train.py", line 42, in <module>', file=sys.stderr)
print("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total capacity of "
      "14.75 GiB of which 3.06 MiB is free. Process %s has 14.62 GiB memory in use. Including non-PyTorch "
      "memory, this process has 118.00 MiB memory in use. Of the allocated memory 0 bytes is allocated by "
      "PyTorch, and 0 bytes is reserved by PyTorch but unallocated. If reserved but unallocated memory is large "
      "try setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation "
      "for Memory Management  (https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)" % holder,
      file=sys.stderr)
sys.exit(1)
PY
}
# `run_failing ARG...`: `culprit ARG...` (a `run` whose job fails with exit 1), its stdout and
# stderr into $work/stdout and $work/stderr; the stderr (the report) is shown, and culprit must
# exit with the job's 1. Set PATH before calling it for stand-in tools.
run_failing() {
  set +e
  "$culprit" "$@" > "$work/stdout" 2> "$work/stderr"
  rc=$?
  set -e
  cat "$work/stderr"
  [ "$rc" -eq 1 ] || fail "culprit run exited $rc, the job 1"
}
