#!/bin/sh
# Issue 39's "done when": a real container holds memory as the job's foreign neighbour would, and
# the report of `culprit run` names it. Podman from Debian starts a container from an image made
# here of Debian's static busybox (no registry needed); its process keeps 64 MB of its own and
# sleeps. The job prints PyTorch's OOM naming that process's host pid, as NVML would list it; the
# stand-in nvidia-smi lists the same pid (this machine has no GPU: the GPU listing is the one part
# that is not live). Everything culprit places the holder with is real: /proc/PID/status (NSpid:
# pid 1 inside), /proc/PID/cgroup (`libpod-<id>`), and `podman ps -a`. The report must say the
# holder is pid 1 in the container by its name, and advise `podman stop NAME` (JSON's advice: the
# text wraps it).
#
# Skipped (exit 77), as the README says, where no container can start: podman, a runtime (crun or
# runc) or busybox-static missing, not root, or the kernel refusing the namespaces or cgroups.
. "$(dirname "$0")/lib.sh"
need podman python3 busybox
[ "$(id -u)" -eq 0 ] || skip "podman needs root here (rootless podman needs subuids and user namespaces)"
dpkg -s busybox-static >/dev/null 2>&1 || skip "busybox-static is not installed (a dynamic busybox cannot run alone in the image)"
busybox=$(command -v busybox)
name="culprit-holder-$$"
image="localhost/culprit-test-busybox:$$"
cleanup() {
  podman rm -f -t 0 "$name" >/dev/null 2>&1 || true
  podman rmi -f "$image" >/dev/null 2>&1 || true
}
trap cleanup EXIT
mkdir -p "$work/rootfs/bin"
cp "$busybox" "$work/rootfs/bin/busybox"
for a in sh sleep head tr cat; do ln -s busybox "$work/rootfs/bin/$a"; done
tar -C "$work/rootfs" -c . | podman import - "$image" > "$work/import.log" 2>&1 || skip "podman import failed: $(tail -1 "$work/import.log")"
# Podman's default runtime (crun) refuses hybrid cgroup hierarchies; runc takes them. The open-file
# and process limits are the caller's (podman's defaults may exceed what a sandbox allows).
holder_cmd='x=$(head -c 67108864 /dev/zero | tr "\0" a); sleep 300'
started=
for runtime in "" runc; do
  set -- run -d --name "$name" --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 "$image" /bin/sh -c "$holder_cmd"
  if [ -n "$runtime" ]; then
    command -v "$runtime" >/dev/null 2>&1 || continue
    set -- --runtime "$runtime" "$@"
  fi
  podman rm -f "$name" >/dev/null 2>&1 || true
  if podman "$@" > "$work/start.log" 2>&1; then started=yes; break; fi
done
[ -n "$started" ] || skip "no container could start here: $(tail -1 "$work/start.log")"
holder=$(podman inspect -f '{{.State.Pid}}' "$name")
[ -n "$holder" ] && [ "$holder" -gt 0 ] || fail "podman gave no pid for $name"
grep -q "^NSpid:.*[[:space:]]1$" "/proc/$holder/status" || fail "the container's process is not pid 1 in its namespace"
sleep 2.2  # ps's start time is cut to the second: the holder is provably older than the job
oom_child
# Only the stand-in nvidia-smi, not the stand-in docker: `podman ps -a` is the real one.
mkdir -p "$work/bin"
ln -s "$standins/nvidia-smi" "$work/bin/nvidia-smi"
export CULPRIT_TEST_HOLDER_PID=$holder
PATH="$work/bin:$PATH"
run_failing run --sample-interval 0 -o "$work/incident" -- python3 "$work/child.py" "$holder"
host=$(ls "$work/incident")
grep -q "$name" "$work/incident/$host/podman-ps.txt" || fail "the real podman ps -a does not list $name"
grep -q "libpod-" "$work/incident/$host/proc-status.txt" || fail "the holder's recorded cgroup is not podman's"
"$culprit" --format json "$work/incident" > "$work/report.json" || fail "culprit DIR found no verdict"
python3 - "$work/report.json" "$holder" "$name" <<'PY' || fail "the report does not place the holder in its container"
import json, sys
v = json.load(open(sys.argv[1]))
c = v.get("culprit") or {}
assert v["verdict"] == "cuda_oom", v["verdict"]
assert str(c.get("pid")) == sys.argv[2] and c.get("role") == "foreign", c
place = c.get("place") or {}
assert place.get("runtime") == "podman", place
assert place.get("container_name") == sys.argv[3], place
assert str(place.get("nspid")) == "1", place
assert any("`podman stop %s`" % sys.argv[3] in a for a in v.get("advice", [])), v.get("advice")
PY
"$culprit" "$work/incident" > "$work/report.txt" || true
grep -q "pid 1 in .*$name" "$work/report.txt" || fail "the text report does not say pid 1 in container $name"
echo "ok: pid $holder, pid 1 in podman container $name, named in the report and its advice"
