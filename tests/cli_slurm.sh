#!/usr/bin/env bash
# cli_slurm.sh MMTUNE DATA - tuning on a cluster the way README's "Many machines" says: a
# one-node Slurm (slurmctld and slurmd on localhost with a slurm.conf of its own, MUNGE on
# a socket of its own, all under the test's scratch folder) runs examples/slurm_tune.sbatch
# as a job array of three shards, each into its own database, and a job that depends on
# the array merges them; the merged database has every problem of the shapes file once and
# every trial of the shards. A task that fails ends the test at once with the tasks'
# output (the merge that waits for them is cancelled, not waited for). Skips (77) where
# that Slurm cannot start: not root, Slurm or MUNGE not installed (scripts/install-deps.sh
# installs them as root), or a daemon that does not come up; it says which.
set -u
MMTUNE=$1
. "$(dirname "$0")/clilib.sh"
examples=$(cd "$(dirname "$0")/../examples" && pwd)
export PATH="$PATH:/usr/sbin:/sbin" # the daemons, where a minimal PATH leaves them out
[ "$(id -u)" -eq 0 ] || skip "a Slurm of the test's own needs root (slurmd runs each job as its user)"
for tool in munged munge slurmctld slurmd sbatch sinfo scancel sqlite3; do
  command -v "$tool" >/dev/null ||
    skip "$tool is not installed (scripts/install-deps.sh installs slurmctld slurmd slurm-client munge as root)"
done

pids=()
stop() { # the daemons this test started, by their pids, then the scratch folder
  [ -n "${SLURM_CONF:-}" ] && scancel --quiet --user root 2>/dev/null
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null; done
  rm -rf "$tmp"
}
trap stop EXIT
logs() { for f in "$@"; do echo "--- $f"; tail -5 "$tmp/$f" 2>/dev/null; done; }

# MUNGE: its socket's directory must be searchable by all, its key private
chmod 755 "$tmp"
mkdir -m 755 "$tmp/munge"
head -c 1024 /dev/urandom >"$tmp/munge/munge.key"
chmod 600 "$tmp/munge/munge.key"
munged --foreground --socket="$tmp/munge/socket" --key-file="$tmp/munge/munge.key" --log-file="$tmp/munged.log" \
  --pid-file="$tmp/munge/munged.pid" --seed-file="$tmp/munge/seed" &
pids+=($!)
for _ in $(seq 50); do [ -S "$tmp/munge/socket" ] && break; sleep 0.1; done
munge -n -S "$tmp/munge/socket" | unmunge -S "$tmp/munge/socket" >/dev/null 2>&1 ||
  skip "munged does not start here: $(logs munged.log)"

# two TCP ports nobody listens on (from /proc/net/tcp, ports in hex)
listening=$(awk 'NR > 1 && $4 == "0A" { split($2, a, ":"); print a[2] }' /proc/net/tcp /proc/net/tcp6 2>/dev/null)
port=$((20000 + $$ % 20000))
while echo "$listening" | grep -qi "^$(printf '%04X' $port)$\|^$(printf '%04X' $((port + 1)))$"; do port=$((port + 2)); done
node=$(hostname -s)
mkdir "$tmp/state" "$tmp/spool"
cat >"$tmp/slurm.conf" <<EOF
ClusterName=mmtunetest
SlurmctldHost=$node(127.0.0.1)
SlurmctldPort=$port
SlurmdPort=$((port + 1))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$tmp/munge/socket
CredType=cred/munge
StateSaveLocation=$tmp/state
SlurmdSpoolDir=$tmp/spool
SlurmctldPidFile=$tmp/slurmctld.pid
SlurmdPidFile=$tmp/slurmd.pid
SlurmctldLogFile=$tmp/slurmctld.log
SlurmdLogFile=$tmp/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
DependencyParameters=kill_invalid_depend
NodeName=$node NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=mmtune Nodes=$node Default=YES MaxTime=INFINITE State=UP
EOF
export SLURM_CONF="$tmp/slurm.conf"
slurmctld -D -c -i >/dev/null 2>&1 &
pids+=($!)
slurmd -D -N "$node" >/dev/null 2>&1 &
pids+=($!)
for _ in $(seq 150); do [ "$(sinfo --noheader --format=%T 2>/dev/null)" = idle ] && break; sleep 0.2; done
[ "$(sinfo --noheader --format=%T 2>/dev/null)" = idle ] ||
  skip "Slurm does not start here: $(logs slurmctld.log slurmd.log)"
echo "ok: $(sinfo --version) on one node ($node, $(nproc) CPUs), MUNGE $(munged --version | cut -d' ' -f1)"

# the README's two commands, with mmtune on PATH; tiny CPU tunes
export PATH="$(dirname "$MMTUNE"):$PATH"
cd "$tmp"
cat >shapes.yaml <<'YAML'
problems:
  - {m: [8, 16, 24], n: 8, k: 8}
  - {m: 8, n: 8, k: 8, dtype: f64}
YAML
jid=$(sbatch --parsable --array=0-2 "$examples/slurm_tune.sbatch" shapes.yaml results --device cpu \
  --strategy random --budget 1 2>"$tmp/err")
[ -n "$jid" ] || { echo "FAIL: sbatch of the array: $(cat "$tmp/err")"; exit 1; }
# the merge waits for the array: afterok, which a failed task can never satisfy, so Slurm
# cancels the merge then (kill_invalid_depend above) and the wait ends at once, not at its
# timeout; sbatch --wait says 0 for a cancelled job too, so the states are read back
mid=$(timeout 600 sbatch --parsable --wait --dependency=afterok:"$jid" \
  --wrap 'mmtune merge results/shard_*.db -o results/all.db' 2>"$tmp/err")
state() { scontrol show job "$1" 2>&1 | grep -oE 'JobState=[A-Z_]+|ExitCode=[0-9:]+|Reason=[A-Za-z_]+' | tr '\n' ' '; }
merged=$(state "${mid%%;*}")
case "$merged" in
  *JobState=COMPLETED*) echo "ok: the merge job after the array" ;;
  *) echo "FAIL: the merge job: ${merged:-not found} $(cat "$tmp/err")"
     echo "the array: $(state "$jid")"; tail -n 5 mmtune-*.out slurm-*.out 2>/dev/null; exit 1 ;;
esac
expect_eq "three shard databases" "$(ls results/shard_*.db | wc -l)" 3
expect_eq "the merged one has every problem once" \
  "$(sqlite3 results/all.db "select group_concat(mode || ' ' || m, ', ') from (select * from best_view order by mode, m)")" \
  "f32 8, f32 16, f32 24, f64 8"
shards=0
for db in results/shard_*.db; do shards=$((shards + $(sqlite3 "$db" "select count(*) from trial"))); done
expect_eq "and every trial of the shards" "$(sqlite3 results/all.db "select count(*) from trial")" "$shards"
expect_eq "each task's session names its shard" \
  "$(sqlite3 results/all.db "select command from session" | grep -o -- '--shard [0-9]/3' | sort | tr '\n' ' ')" \
  "--shard 0/3 --shard 1/3 --shard 2/3 "
exit $fail
