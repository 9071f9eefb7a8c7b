#!/bin/sh
# Redteam finding 12: on a full disk `culprit run` left empty snapshot files and never said so.
# A write that fails is said on stderr with the file it hit and the system's reason, in the
# report's sources and in the manifest; the job's exit status is culprit's, as always. /dev/full answers every write with
# ENOSPC, as a full file system does: the job points one snapshot file of its incident at it
# (a symbolic link it makes in the node folder, which the snapshot writes through, as `-o` does).
. "$(dirname "$0")/lib.sh"
cd "$work"
[ -w /dev/full ] || skip "no writable /dev/full"
host=$(uname -n | cut -d. -f1)
set +e
"$culprit" run -o inc -- sh -c "ln -s /dev/full inc/$host/meminfo.txt; echo failing >&2; exit 3" >out 2>err
rc=$?
set -e
[ "$rc" -eq 3 ] || fail "the job's exit 3 gave $rc"
grep -qF "culprit run: cannot write inc/$host/meminfo.txt: No space left on device" err ||
  { cat err >&2; fail "stderr does not name the file and 'No space left on device'"; }
grep -qF "meminfo.txt — cannot write inc/$host/meminfo.txt: No space left on device  (failed" err ||
  fail "the report's sources do not list the file the full disk hit"
grep -q '"cannot write inc/'"$host"'/meminfo.txt: No space left on device"' "inc/$host/culprit-snapshot.json" ||
  fail "the manifest does not say which file the full disk hit"
[ -c /dev/full ] || fail "/dev/full is no longer the device"
echo "run_full_disk: ok"
