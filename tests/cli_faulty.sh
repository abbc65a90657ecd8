#!/usr/bin/env bash
# cli_faulty.sh MMTUNE DATA [DEVICE] - the tuner survives candidates that crash, hang,
# compute wrongly or do not compile: each is recorded with its status and the run ends
# with the correct best (on the CPU the wrong one is also the fastest: a verification that
# let it through would make it the best, which the table shows). DEVICE is cpu (default) or a GPU number (cli_gpu_faulty.sh),
# where the crash is an illegal address: a launch_error after which the worker is replaced.
set -u
MMTUNE=$1
DATA=$2
DEVICE=${3:-cpu}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if [ "$DEVICE" = cpu ]; then
  space=$DATA/space_faulty.yaml crash=crashed
else
  nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
  space=$DATA/space_faulty_cuda.yaml crash=launch_error
fi
# the vendor a yardstick only (clilib.sh says why)
export MMTUNE_TEMPLATE_DIR="$DATA/templates" MMTUNE_WATCHDOG_S=5 MMTUNE_VENDOR=off
"$MMTUNE" --device "$DEVICE" --shapes "$DATA/shapes_faulty.yaml" --space "$space" --db "$tmp/f.db" \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out" "$tmp/err"
[ $rc = 0 ] || { echo "FAIL: mmtune exited $rc"; exit 1; }
grep -q "FAULT=0" "$tmp/out" || { echo "FAIL: the best is not FAULT=0"; exit 1; }
if ! command -v sqlite3 >/dev/null; then echo "sqlite3 is not installed: status checks skipped"; exit 0; fi
# the search's trials (the vendor round times the winner again, beside the vendor)
got=$(sqlite3 "$tmp/f.db" "select c.params || ':' || t.status from trial t join config c on c.id = t.config_id
                           where coalesce(t.message, '') not like 'vendor round:%' order by c.params")
want=$'FAULT=0:ok\nFAULT=1:'$crash$'\nFAULT=2:timeout\nFAULT=3:wrong_result\nFAULT=4:compile_error'
[ "$got" = "$want" ] || { echo "FAIL: statuses"; echo "$got"; exit 1; }
sqlite3 "$tmp/f.db" "select message from trial t join config c on c.id = t.config_id where c.params = 'FAULT=4'" |
  grep -q "planted compile error" || { echo "FAIL: the compile log is not in the trial row"; exit 1; }
again=$(sqlite3 "$tmp/f.db" "select c.params from trial t join config c on c.id = t.config_id
                             where t.message like 'vendor round:%' and t.status = 'ok'")
[ "$again" = FAULT=0 ] || { echo "FAIL: the vendor round timed '$again', not the winner FAULT=0"; exit 1; }
echo "cli_faulty on $DEVICE: all passed"
