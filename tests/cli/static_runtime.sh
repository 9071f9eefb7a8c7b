#!/bin/sh
# Where the build links the C++ runtime statically (CMakeLists.txt, "the C++ runtime": simdjson's
# source was found), a paste maps no C++ shared library: libstdc++.so alone was ~3 ms of a 50 KB
# paste's start-up. The dynamic loader's own account (LD_DEBUG=files) is the witness, so a C++
# library linked back as a shared one fails this test. Skipped (77) where the build links them
# shared, as it does without simdjson's source.
# usage: static_runtime.sh CULPRIT SOURCE_DIR STATIC(ON|OFF)
set -u
culprit=$1; src=$2; static=$3
case $static in
  ON|on|1|TRUE|true) ;;
  *) echo "skip: this build links the C++ libraries shared (no simdjson source: scripts/fetch-simdjson-source.sh)"; exit 77 ;;
esac
paste="$src/fixtures/incidents/two-node-stale-embeddings-paste/inputs/paste.txt"
err=$(mktemp); out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT
LD_DEBUG=files "$culprit" - < "$paste" > "$out" 2> "$err"
if ! grep -q 'file=libc\.so' "$err"; then
  echo "skip: LD_DEBUG=files lists no libraries here (not glibc's loader?)"; exit 77
fi
fail=0
for lib in libstdc++ libgcc_s libsimdjson libfmt libtomlplusplus; do
  if grep -q "file=$lib" "$err"; then
    echo "FAIL paste_maps_no_$lib:"; grep "file=$lib" "$err" | head -2; fail=1
  else
    echo "ok   paste_maps_no_$lib"
  fi
done
grep -q 'CUDA OOM' "$out" || { echo "FAIL paste_is_diagnosed: no report"; head -5 "$out"; fail=1; }
# The compiled-in libraries do their work: simdjson reads journal JSON, toml++ the rules' TOML.
journal=$(ls "$src"/fixtures/formats/journal_json/*.txt 2>/dev/null | head -1)
if [ -n "$journal" ] && "$culprit" --format json "$journal" | grep -q '"journal_json"'; then
  echo "ok   simdjson_reads_journal_json"
else
  echo "FAIL simdjson_reads_journal_json: $journal"; fail=1
fi
if "$culprit" rules check > /dev/null 2>&1; then  # the built-in rules' TOML, read anew
  echo "ok   tomlplusplus_reads_rules"
else
  echo "FAIL tomlplusplus_reads_rules"; fail=1
fi
exit $fail
