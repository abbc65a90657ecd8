#!/usr/bin/env bash
# cli_gpu_faulty.sh - on GPU 0, the tuner survives candidates that write to an illegal
# address (the context is poisoned: the worker is replaced), hang, compute wrongly or do
# not compile; each is recorded and the run ends with the correct best. Skips (77)
# without a GPU.
set -u
MMTUNE=$1
DATA=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
nvidia-smi -L >/dev/null 2>&1 || { echo "no GPU: skipped"; exit 77; }
export MMTUNE_TEMPLATE_DIR="$DATA/templates" MMTUNE_WATCHDOG_S=5
"$MMTUNE" --device 0 --shapes "$DATA/shapes_faulty.yaml" --space "$DATA/space_faulty_cuda.yaml" --db "$tmp/f.db" \
  >"$tmp/out" 2>"$tmp/err"
rc=$?
cat "$tmp/out" "$tmp/err"
[ $rc = 0 ] || { echo "FAIL: mmtune exited $rc"; exit 1; }
grep -q "FAULT=0" "$tmp/out" || { echo "FAIL: the best is not FAULT=0"; exit 1; }
if ! command -v sqlite3 >/dev/null; then echo "sqlite3 is not installed: status checks skipped"; exit 0; fi
got=$(sqlite3 "$tmp/f.db" "select c.params || ':' || t.status from trial t join config c on c.id = t.config_id order by c.params")
want=$'FAULT=0:ok\nFAULT=1:launch_error\nFAULT=2:timeout\nFAULT=3:wrong_result\nFAULT=4:compile_error'
[ "$got" = "$want" ] || { echo "FAIL: statuses"; echo "$got"; exit 1; }
echo "cli_gpu_faulty: all passed"
