#!/bin/sh
# Compressed inputs give the report their plain files give (issue 17, item 3): for fixtures
# with node folders, a kernel log and a container, the inputs folder with every file gzipped
# (NAME.gz) or zstd-compressed (NAME.zst), and the folder as one .tar.gz / .tar.zst, are
# diagnosed (--format json) and compared with the plain folder's report once the sources'
# names are written back (NAME.gz -> NAME, ARCHIVE!/inputs/NAME -> NAME). Also once with
# --jobs 1, since the decoder's thread must not make the report depend on the thread count.
# Usage: compressed_equivalence.sh CULPRIT SOURCE_DIR WORK_DIR
set -eu
culprit=$1
src=$(cd "$2" && pwd)
work=$3
rm -rf "$work"
mkdir -p "$work"
work=$(cd "$work" && pwd)
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v zstd >/dev/null 2>&1 || { echo "SKIP: zstd is not installed" >&2; exit 77; }

for name in two-node-stale-embeddings container-cgroup-oom torchrun-host-oom-hog; do
  inc=$src/fixtures/incidents/$name
  [ -d "$inc/inputs" ] || fail "no fixture $name"
  w=$work/$name
  mkdir -p "$w"
  cp -R "$inc/inputs" "$w/inputs"
  "$culprit" diagnose --format json --quiet "$w/inputs" > "$w/plain.json" || true
  [ -s "$w/plain.json" ] || fail "$name: no report from the plain folder"
  for kind in gz zst; do
    cp -R "$inc/inputs" "$w/$kind"
    find "$w/$kind" -type f | while read -r f; do
      if [ "$kind" = gz ]; then gzip -n "$f"; else zstd -q --rm "$f"; fi
    done
    mv "$w/$kind" "$w/$kind.d" && mkdir "$w/$kind" && mv "$w/$kind.d" "$w/$kind/inputs"
  done
  # Members in path order, as a folder is read (tar would take the order of readdir).
  (cd "$w" && tar --sort=name -czf inputs.tar.gz inputs && tar --sort=name -cf - inputs | zstd -q > inputs.tar.zst)
  for jobs in 2 1; do
    for kind in gz zst tar.gz tar.zst; do
      case $kind in
        gz | zst) in=$w/$kind/inputs ;;
        *) in=$w/inputs.$kind ;;
      esac
      "$culprit" diagnose --format json --quiet --jobs "$jobs" "$in" > "$w/$kind.json" || true
      # Back to the plain names: the folder's path, the archive's member prefix, the suffix.
      sed -e "s#$w/$kind/inputs#$w/inputs#g" -e "s#$w/inputs\\.$kind!/inputs/##g" -e "s#$w/inputs\\.$kind#$w/inputs#g" \
          -e "s#\\.$kind\\([\"!:/ ]\\)#\\1#g" "$w/$kind.json" > "$w/$kind.named.json"
      if ! cmp -s "$w/plain.json" "$w/$kind.named.json"; then
        diff "$w/plain.json" "$w/$kind.named.json" | cut -c1-400 | head -20 >&2
        fail "$name: the .$kind inputs (--jobs $jobs) give another report than the plain files"
      fi
    done
  done
  echo "$name: .gz, .zst, .tar.gz, .tar.zst = plain"
done
