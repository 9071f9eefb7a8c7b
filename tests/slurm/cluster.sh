# A throw-away one-node Slurm cluster on 127.0.0.1 (sourced by the slurm tests): munged on its
# own socket and key, slurmctld and slurmd with a config in $work/slurm, state and spool under
# it, ports picked free. Nothing system-wide is read or changed (/etc/slurm, /etc/munge, the
# system munge socket); everything started is stopped by stop_cluster (the caller traps it).
# Needs: $work (an empty folder), skip() and fail() from the caller.
# After start_cluster: SLURM_CONF is exported, so sbatch / squeue / sinfo talk to this cluster.
# $cluster_conf_extra, when set, is appended to slurm.conf (the epilog test's `Epilog=`).

: "${work:?cluster.sh needs \$work}"
cluster_pids=""
stop_cluster() {
  # Each pid file is read once, before any daemon is waited for: a daemon removes its own as it
  # ends, so a second read could find it gone, and under `set -e` (the callers) a failed `cat`
  # in this EXIT trap failed a test whose cluster had done its work (seen under load).
  daemon_pids=""
  for pidfile in "$work/slurm/slurmd.pid" "$work/slurm/slurmctld.pid" "$work/munge/munged.pid"; do
    pid=$(cat "$pidfile" 2>/dev/null) || continue
    [ -n "$pid" ] || continue
    daemon_pids="$daemon_pids $pid"
    kill "$pid" 2>/dev/null || true
  done
  # Wait (up to 5 s) for the daemons and any job step they left, then make sure.
  for pid in $daemon_pids; do
    i=0
    while kill -0 "$pid" 2>/dev/null && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
    kill -9 "$pid" 2>/dev/null || true
  done
  for pid in $cluster_pids; do kill -9 "$pid" 2>/dev/null || true; done
}

# free_port: a TCP port nobody listens on (from /proc/net/tcp*), in 20000-39999.
free_port() {
  used=$(cat /proc/net/tcp /proc/net/tcp6 2>/dev/null | awk 'NR > 1 { split($2, a, ":"); print a[2] }')
  p=$(( 20000 + ($$ * 7 + ${1:-0} * 131) % 20000 ))
  while echo "$used" | grep -qix "$(printf '%04X' "$p")"; do p=$((p + 1)); done
  echo "$p"
}

# wait_for SECONDS CMD...: polls CMD every 0.1 s until it succeeds; 1 when it never does.
wait_for() {
  limit=$(( $1 * 10 )); shift
  i=0
  until "$@" >/dev/null 2>&1; do
    i=$((i + 1))
    [ $i -ge $limit ] && return 1
    sleep 0.1
  done
  return 0
}

daemon_log() {  # the last lines of a daemon's log, for a skip or failure message
  [ -f "$1" ] && tail -5 "$1" | sed 's/^/    /' >&2
  return 0
}

node_idle() { [ "$(sinfo -h -n localhost -o %t 2>/dev/null)" = idle ]; }

start_cluster() {
  for t in munged mungekey slurmctld slurmd sbatch sinfo scontrol; do
    command -v "$t" >/dev/null 2>&1 || [ -x "/usr/sbin/$t" ] ||
      skip "$t is not installed (Debian: apt-get install slurm-wlm munge)"
  done
  PATH=$PATH:/usr/sbin
  [ "$(id -u)" -eq 0 ] || skip "a throw-away Slurm cluster needs root (slurmd runs jobs as their user)"
  mkdir -p "$work/munge" "$work/slurm/state" "$work/slurm/spool"
  # A watchdog stops the daemons should this shell die without its trap (ctest's time-out kill).
  parent=$$
  ( trap '' HUP INT TERM; while kill -0 "$parent" 2>/dev/null; do sleep 1; done; stop_cluster ) >/dev/null 2>&1 &
  cluster_pids=$!
  chmod 700 "$work/munge"
  # munge: its own key and socket; -f because a test folder's parents may be group-writable.
  mungekey --create --keyfile="$work/munge/munge.key" >/dev/null 2>&1 ||
    dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 2>/dev/null
  chmod 400 "$work/munge/munge.key"
  socket=$work/munge/munge.socket
  munged -f --socket="$socket" --key-file="$work/munge/munge.key" --pid-file="$work/munge/munged.pid" \
    --log-file="$work/munge/munged.log" --seed-file="$work/munge/munged.seed" >"$work/munge/start.log" 2>&1 ||
    { daemon_log "$work/munge/start.log"; skip "munged does not start"; }
  wait_for 5 test -S "$socket" || { daemon_log "$work/munge/munged.log"; skip "munged did not open its socket"; }

  cpus=$(slurmd -C 2>/dev/null | sed -n 's/.*CPUs=\([0-9]*\).*/\1/p' | head -1)
  [ -n "$cpus" ] || cpus=1
  memory=$(slurmd -C 2>/dev/null | sed -n 's/.*RealMemory=\([0-9]*\).*/\1/p' | head -1)
  [ -n "$memory" ] || memory=1024
  ctld_port=$(free_port 1)
  slurmd_port=$(free_port 2)
  [ "$slurmd_port" = "$ctld_port" ] && slurmd_port=$((ctld_port + 1))
  s=$work/slurm
  : > "$s/plugstack.conf"
  cat > "$s/slurm.conf" <<EOF
# throw-away one-node cluster of tests/slurm (see cluster.sh)
ClusterName=culprit-test
SlurmctldHost=localhost
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$socket
CredType=cred/munge
StateSaveLocation=$s/state
SlurmdSpoolDir=$s/spool
SlurmctldPidFile=$s/slurmctld.pid
SlurmdPidFile=$s/slurmd.pid
SlurmctldLogFile=$s/slurmctld.log
SlurmdLogFile=$s/slurmd.log
PlugStackConfig=$s/plugstack.conf
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/builtin
# schedule at once on submit and on each job end (default: batched up to 3 s)
SchedulerParameters=batch_sched_delay=0
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SwitchType=switch/none
MailProg=/bin/true
ReturnToService=2
# sbatch --wait polls every 2 s while MinJobAge/2 is no more than that (else it backs off to 8 s, 32 s)
MinJobAge=4
SlurmctldTimeout=10
SlurmdTimeout=10
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$memory State=UNKNOWN
PartitionName=test Nodes=localhost Default=YES MaxTime=10 State=UP
EOF
  [ -z "${cluster_conf_extra:-}" ] || printf '%s\n' "$cluster_conf_extra" >> "$s/slurm.conf"
  export SLURM_CONF="$s/slurm.conf"
  slurmctld -f "$SLURM_CONF" -i >"$s/slurmctld.start" 2>&1 ||
    { daemon_log "$s/slurmctld.start"; daemon_log "$s/slurmctld.log"; skip "slurmctld does not start"; }
  slurmd -f "$SLURM_CONF" -N localhost >"$s/slurmd.start" 2>&1 ||
    { daemon_log "$s/slurmd.start"; daemon_log "$s/slurmd.log"; skip "slurmd does not start"; }
  wait_for 20 node_idle ||
    { daemon_log "$s/slurmctld.log"; daemon_log "$s/slurmd.log"; skip "the one-node cluster did not come up (node: $(sinfo -h -o %t 2>&1))"; }
}
