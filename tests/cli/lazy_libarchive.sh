#!/bin/sh
# libarchive is opened on first use (src/input/archive_library.hpp): a paste or a plain log never
# loads it, an archive does and is read, and --version names the loaded library. The dynamic
# loader's own account (LD_DEBUG=files lists every library it maps, linked or dlopen'ed) is the
# witness, so a libarchive linked back into culprit, or opened at start-up, fails this test.
# usage: lazy_libarchive.sh CULPRIT SOURCE_DIR WORK_DIR
set -u
culprit=$1; src=$2; work=$3
rm -rf "$work"; mkdir -p "$work"; cd "$work" || exit 1
fail=0
paste="$src/fixtures/incidents/two-node-stale-embeddings-paste/inputs/paste.txt"

LD_DEBUG=files "$culprit" - < "$paste" > paste.out 2> paste.err
if ! grep -q 'file=libc\.so' paste.err; then
  echo "skip: LD_DEBUG=files lists no libraries here (not glibc's loader?)"; exit 77
fi
if grep -q 'file=libarchive' paste.err; then
  echo "FAIL paste_does_not_load_libarchive:"; grep 'file=libarchive' paste.err; fail=1
else
  echo "ok   paste_does_not_load_libarchive"
fi
grep -q 'CUDA\|OOM\|oom' paste.out || { echo "FAIL paste_is_diagnosed: no report"; cat paste.out; fail=1; }

LD_DEBUG=files "$culprit" "$paste" > file.out 2> file.err
if grep -q 'file=libarchive' file.err; then
  echo "FAIL log_file_does_not_load_libarchive"; fail=1
else
  echo "ok   log_file_does_not_load_libarchive"
fi

# The same paste in a .tar.gz: libarchive is opened, and the report is the plain folder's once
# the member's name is written back (incident.tar.gz!/incident/paste.txt -> paste.txt).
mkdir -p incident && cp "$paste" incident/paste.txt && tar czf incident.tar.gz incident
"$culprit" diagnose --format json --quiet incident > plain.json 2>&1
LD_DEBUG=files "$culprit" diagnose --format json --quiet incident.tar.gz > archive.raw 2> archive.err
sed 's#incident\.tar\.gz!/incident/##g' archive.raw > archive.json
if ! grep -q 'file=libarchive' archive.err; then
  echo "FAIL archive_loads_libarchive: the loader never mapped it"; fail=1
elif ! grep -q '"verdict"' plain.json || ! cmp -s plain.json archive.json; then
  echo "FAIL archive_is_read: its report differs from the folder's"; diff plain.json archive.json | cut -c1-300; fail=1
else
  echo "ok   archive_loads_libarchive"
fi

"$culprit" --version > version.out 2>&1
if grep -q '^libarchive [0-9]' version.out; then
  echo "ok   version_names_libarchive"
else
  echo "FAIL version_names_libarchive:"; cat version.out; fail=1
fi
exit $fail
