#!/bin/sh
# Builds a scan batch from the fixtures in DIR: a .tar.gz (the seed incident, node folders
# inside one root folder), a .zip (torchrun host OOM), a plain folder (container cgroup OOM),
# a gzipped nvidia-bug-report.log (Xid 79) and a gzipped terminal paste.
# Usage: make_batch.sh SOURCE_DIR OUT_DIR
set -eu
src=$1
out=$2
rm -rf "$out"
mkdir -p "$out/cgroup-folder"
out=$(cd "$out" && pwd)
src=$(cd "$src" && pwd)
inc=$src/fixtures/incidents
(cd "$inc/two-node-stale-embeddings" && tar czf "$out/two-node.tar.gz" --transform 's|^inputs|two-node-stale-embeddings|' inputs)
(cd "$inc/torchrun-host-oom-hog/inputs" && zip -q "$out/torchrun.zip" dmesg.txt train.log)
cp "$inc/container-cgroup-oom/inputs/kern.log" "$inc/container-cgroup-oom/inputs/docker-inspect.json" "$out/cgroup-folder/"
gzip -c "$src/fixtures/formats/bug_report/nvidia-bug-report-xid79.log" > "$out/nvidia-bug-report.log.gz"
gzip -c "$inc/two-node-stale-embeddings-paste/inputs/paste.txt" > "$out/paste.log.gz"
