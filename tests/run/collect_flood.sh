#!/bin/sh
# Redteam finding 22: `culprit collect --ssh` held every host's output at once (12 flooding hosts:
# 2.6 GB). A stand-in `ssh` on PATH answers with a snapshot frame and then floods its output and
# its error output until killed; twelve of them stay within each host's cap and the hosts run at
# once (peak RSS under 256 MiB).
. "$(dirname "$0")/lib.sh"
need python3
mkdir -p "$work/bin"
cat > "$work/bin/ssh" <<'SH'
#!/bin/sh
cat >/dev/null
printf '@@culprit 0 0 3 0\nok\n'
cat /dev/zero | tr '\0' x &
exec cat /dev/zero >&2
SH
chmod +x "$work/bin/ssh"
hosts=""
for i in 1 2 3 4 5 6 7 8 9 10 11 12; do hosts="$hosts --ssh n$i"; done
cd "$work"
set +e
kb=$(PATH="$work/bin:$PATH" python3 -c 'import resource, subprocess, sys
rc = subprocess.run(sys.argv[1:], stdout=open("out", "w"), stderr=open("err", "w"), timeout=120).returncode
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)' "$culprit" collect -o inc --timeout 3 $hosts)
set -e
[ -n "$kb" ] || fail "collect did not end: $(tail -n 5 err)"
# ru_maxrss of the children is the largest one's: culprit's, not the stand-ins' (a few MiB each).
if [ "${CULPRIT_HOSTILE_NO_ULIMIT:-0}" != 1 ]; then  # a sanitizer build's RSS is ASan's (tests/CMakeLists.txt)
  [ "$kb" -le 262144 ] || fail "peak RSS $((kb / 1024)) MiB for 12 flooding hosts (limit 256 MiB)"
fi
echo "collect_flood: ok ($((kb / 1024)) MiB)"
