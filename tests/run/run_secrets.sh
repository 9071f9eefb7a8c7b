#!/bin/sh
# Redteam finding 10: `culprit run` wrote VLLM_API_KEY, SGLANG_API_KEY and the job's
# `--api-key=…` into world-readable snapshot files. The incident folder is 0700 and its files 0600,
# and no secret of the environment or the command line is in any file, while the settings that
# diagnose (VLLM_ATTENTION_BACKEND, --max-num-batched-tokens) are kept.
. "$(dirname "$0")/lib.sh"
cd "$work"
set +e
VLLM_API_KEY=sk-VLLMSECRET789 SGLANG_API_KEY=sk-SGLSECRET000 HF_TOKEN=hf_SECRETTOKEN VLLM_ATTENTION_BACKEND=FLASH_ATTN \
  "$culprit" run -o inc --sample-interval 1 -- sh -c 'sleep 1.5; echo failing >&2; exit 1' \
  --api-key=sk-CMDLINESECRET222 --api-key sk-SEPARATESECRET333 --max-num-batched-tokens=8192 >out 2>err
rc=$?
set -e
[ "$rc" -eq 1 ] || fail "the job's exit 1 gave $rc"
if grep -rl 'SECRET' inc; then fail "a secret was written into the files above"; fi
grep -q "VLLM_ATTENTION_BACKEND=FLASH_ATTN" inc/*/env.txt || fail "env.txt lost VLLM_ATTENTION_BACKEND"
grep -q 'VLLM_API_KEY=\*\*\*' inc/*/env.txt || fail "env.txt does not show VLLM_API_KEY masked"
grep -q -- '--max-num-batched-tokens=8192' inc/*/culprit-snapshot.json || fail "the manifest lost a setting"
grep -q -- '"--api-key", "\*\*\*"' inc/*/culprit-snapshot.json || fail "the manifest does not mask --api-key VALUE"
[ "$(stat -c %a inc)" = 700 ] || fail "the incident folder is $(stat -c %a inc), not 700"
for f in $(find inc -type d); do [ "$(stat -c %a "$f")" = 700 ] || fail "$f is $(stat -c %a "$f")"; done
for f in $(find inc -type f); do [ "$(stat -c %a "$f")" = 600 ] || fail "$f is $(stat -c %a "$f"), not 600"; done
echo "run_secrets: ok"
