#!/bin/sh
# `culprit collect` over ssh against a real sshd (OpenSSH) started here on 127.0.0.1 with a
# throw-away key: one subfolder per host reached (the stand-in nvidia-smi on the remote PATH),
# an unreachable host named while the others are kept (exit 1), the same through a jump host
# (--ssh-jump), and `culprit collect` without --ssh snapshots this machine.
. "$(dirname "$0")/lib.sh"
need ssh ssh-keygen python3
sshd=$(command -v sshd 2>/dev/null || true)
[ -n "$sshd" ] || { [ -x /usr/sbin/sshd ] && sshd=/usr/sbin/sshd; } || skip "sshd (openssh-server) is not installed"
[ -n "$sshd" ] || skip "sshd (openssh-server) is not installed"
d="$work/ssh"
mkdir -p "$d"
chmod 700 "$d"
ssh-keygen -q -t ed25519 -N '' -f "$d/host_key" -C culprit-test-host
ssh-keygen -q -t ed25519 -N '' -f "$d/id" -C culprit-test-client
cp "$d/id.pub" "$d/authorized_keys"
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$d/sshd_config" <<CFG
Port $port
ListenAddress 127.0.0.1
HostKey $d/host_key
AuthorizedKeysFile $d/authorized_keys
PidFile $d/sshd.pid
StrictModes no
UsePAM no
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
PermitRootLogin prohibit-password
SetEnv PATH=$standins:/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin CULPRIT_TEST_FIXTURES=$src/fixtures
LogLevel ERROR
CFG
[ "$(id -u)" -ne 0 ] || mkdir -p /run/sshd  # its privilege separation folder
"$sshd" -D -f "$d/sshd_config" -E "$d/sshd.log" &
sshd_pid=$!
trap 'kill $sshd_pid 2>/dev/null || true' EXIT
set -- --ssh-option "Port=$port" --ssh-option "IdentityFile=$d/id" --ssh-option "IdentitiesOnly=yes" \
       --ssh-option "StrictHostKeyChecking=no" --ssh-option "UserKnownHostsFile=$d/known_hosts" \
       --ssh-option "LogLevel=ERROR"
i=0
until ssh -o BatchMode=yes -o Port="$port" -o IdentityFile="$d/id" -o StrictHostKeyChecking=no \
          -o UserKnownHostsFile="$d/known_hosts" -o LogLevel=ERROR 127.0.0.1 true 2>/dev/null; do
  i=$((i+1))
  if [ $i -ge 50 ] || ! kill -0 $sshd_pid 2>/dev/null; then cat "$d/sshd.log" >&2; skip "the test sshd did not come up"; fi
  sleep 0.1
done
user=$(id -un)
set +e
"$culprit" collect "$@" --ssh 127.0.0.1 --ssh "$user@localhost" --ssh 127.0.0.2 -o "$work/nodes" 2> "$work/err"
rc=$?
set -e
cat "$work/err"
[ "$rc" -eq 1 ] || fail "collect with one unreachable host exited $rc, not 1"
grep -q "^culprit collect: 127.0.0.2: not reached: " "$work/err" || fail "the unreachable host is not named"
[ ! -e "$work/nodes/127.0.0.2" ] || fail "the unreachable host has a folder"
for h in 127.0.0.1 localhost; do
  for f in nvidia-smi.txt nvidia-smi-query.csv ps.txt meminfo.txt free.txt cgroup.txt culprit-snapshot.json; do
    [ -s "$work/nodes/$h/$f" ] || fail "$h lacks $f"
  done
  grep -q '"made_by": "culprit collect"' "$work/nodes/$h/culprit-snapshot.json" || fail "$h: no manifest"
done
grep -q "^  *PID  *USER\|USER  *PID" "$work/nodes/127.0.0.1/ps.txt" || fail "ps.txt lacks its header"
"$culprit" "$work/nodes" > "$work/report" || true
grep -q "host 127.0.0.1" "$work/report" && grep -q "host localhost" "$work/report" || fail "culprit DIR does not read both nodes"
grep -q "127.0.0.1/nvidia-smi.txt  (nvidia_smi_table" "$work/report" || fail "the remote nvidia-smi table is not read as one"
# Through a jump host (`--ssh-jump`: ssh -J), the same sshd as the jump and as the target. ssh
# hands a -J hop none of the -o options, only -p / -l / -F: the test's settings go in an ssh
# config file, as a user's ~/.ssh/config would hold them, given to both hops by an `ssh` on PATH
# that adds `-F` and logs each call (the hop's `ssh … -W` proves the jump was taken). It runs
# the real ssh as plain `ssh`: OpenSSH starts the hop with its own path when that is absolute.
mkdir -p "$d/bin"
cat > "$d/ssh_config" <<CFG
Host *
  Port $port
  IdentityFile $d/id
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile $d/known_hosts
  BatchMode yes
  LogLevel ERROR
CFG
real_ssh=$(command -v ssh)
cat > "$d/bin/ssh" <<SH
#!/bin/sh
echo "ssh \$*" >> "$d/ssh-calls"
exec python3 -c 'import os, sys; os.execv(sys.argv[1], ["ssh"] + sys.argv[2:])' "$real_ssh" -F "$d/ssh_config" "\$@"
SH
chmod +x "$d/bin/ssh"
: > "$d/ssh-calls"
PATH="$d/bin:$PATH" "$culprit" collect --ssh-jump "$user@127.0.0.1" --ssh localhost -o "$work/jumped" 2> "$work/err-jump" ||
  fail "collect through the jump failed: $(cat "$work/err-jump")"
grep -q -- "-J $user@127.0.0.1 .*localhost" "$d/ssh-calls" || fail "culprit did not ask ssh for the jump: $(cat "$d/ssh-calls")"
grep -q -- "-W .*localhost.*:$port.* 127.0.0.1" "$d/ssh-calls" || fail "ssh did not hop through the jump: $(cat "$d/ssh-calls")"
[ "$(ls "$work/jumped")" = localhost ] || fail "the jumped collect did not write one folder named for the target"
for f in nvidia-smi.txt ps.txt meminfo.txt free.txt cgroup.txt culprit-snapshot.json; do
  [ -s "$work/jumped/localhost/$f" ] || fail "the host behind the jump lacks $f"
done
grep -q '"host": "localhost"' "$work/jumped/localhost/culprit-snapshot.json" || fail "the jumped manifest does not name the target"
# A jump host that cannot be reached: every host behind it is named, nothing is kept for it.
set +e
PATH="$d/bin:$PATH" "$culprit" collect --ssh-jump 127.0.0.2 --ssh localhost -o "$work/nojump" 2> "$work/err-nojump"
rc=$?
set -e
[ "$rc" -ne 0 ] || fail "collect through an unreachable jump succeeded"
grep -q "^culprit collect: localhost: not reached: " "$work/err-nojump" || fail "the host behind an unreachable jump is not named: $(cat "$work/err-nojump")"
[ ! -e "$work/nojump/localhost" ] || fail "a host behind an unreachable jump has a folder"
# This machine, without ssh.
"$culprit" collect -o "$work/here" 2> "$work/err-here" || fail "collect here failed: $(cat "$work/err-here")"
[ "$(ls "$work/here")" = "$(hostname | cut -d. -f1)" ] || fail "collect here did not write one folder named for this host"
[ -s "$work/here/$(ls "$work/here")/ps.txt" ] || fail "collect here wrote no ps.txt"
echo ok
